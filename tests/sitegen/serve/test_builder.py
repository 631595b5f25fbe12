"""serve's builder: the worker's protocol, and the warm child process on serve's side."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from sitegen.serve.builder import Builder, Report, worker_loop


def test_the_worker_answers_one_report_per_request() -> None:
    outcomes = iter([Report(ok=True, seconds=0.5, runtime="k1"), Report(ok=False, errors=["content/a.md:1: x"])])
    replies = io.StringIO()
    asked: list[str] = []

    def rebuild(hot_base: str) -> Report:
        print("progress goes to stderr, never into the replies")
        asked.append(hot_base)
        return next(outcomes)

    assert worker_loop(rebuild, io.StringIO("build\nbuild k1\n"), replies) == 0
    lines = [json.loads(line) for line in replies.getvalue().splitlines()]
    assert lines == [
        {"ok": True, "errors": [], "warnings": [], "seconds": 0.5, "runtime": "k1"},
        {"ok": False, "errors": ["content/a.md:1: x"], "warnings": [], "seconds": 0.0, "runtime": ""},
    ]
    assert asked == ["", "k1"]  # after a model edit, the runtime whose snapshot the wheel may run on


def test_a_crash_in_the_build_is_reported_not_raised() -> None:
    replies = io.StringIO()

    def rebuild(hot_base: str) -> Report:
        raise KeyError("boom")

    worker_loop(rebuild, io.StringIO("build\n"), replies)
    report = json.loads(replies.getvalue())
    assert report["ok"] is False
    assert "KeyError: 'boom'" in report["errors"][0]


def test_a_builder_that_dies_is_an_error_with_its_last_words() -> None:
    builder = Builder([sys.executable, "-c", "import sys; sys.stderr.write('ImportError: no model\\n'); sys.exit(3)"])
    report = builder.build()
    assert report.ok is False
    assert report.errors[0] == "the build process stopped (exit status 3):"
    assert report.errors[1:] == ["ImportError: no model"]
    builder.stop()


def test_a_builder_is_a_warm_process_that_stops_when_asked() -> None:
    code = 'import sys\nfor line in sys.stdin:\n    print(\'{"ok": true, "seconds": 0.1}\', flush=True)\n'
    builder = Builder([sys.executable, "-c", code])
    assert builder.build() == Report(ok=True, seconds=0.1)
    process = builder.process
    assert builder.build() == Report(ok=True, seconds=0.1)
    assert builder.process is process  # the same process, still warm
    builder.stop()
    assert process is not None and process.returncode == 0


def test_a_standby_builder_imports_the_code_only_when_its_first_build_is_asked_for(tmp_path: Path) -> None:
    """The standby takes over at a restart: it has imported the preloaded modules, and imports the
    code (here a script that says which version of a file it read) only at its first request."""
    (tmp_path / "version.txt").write_text("old", encoding="utf-8")
    script = tmp_path / "worker.py"
    script.write_text(
        "import json, pathlib, sys\n"
        "version = (pathlib.Path(__file__).parent / 'version.txt').read_text()\n"
        "preloaded = 'wave' in sys.modules\n"
        "for line in sys.stdin:\n"
        "    print(json.dumps({'ok': True, 'errors': [version, str(preloaded), sys.path[0]]}), flush=True)\n",
        encoding="utf-8",
    )
    builder = Builder([sys.executable, str(script)], preload=("wave",))
    assert builder.build().errors == ["old", "True", str(tmp_path)]
    assert builder.standby is not None
    (tmp_path / "version.txt").write_text("new", encoding="utf-8")  # an edit, after the standby started
    builder.stop()
    assert builder.build().errors == ["new", "True", str(tmp_path)]
    builder.stop(standby=True)
    assert builder.standby is None
