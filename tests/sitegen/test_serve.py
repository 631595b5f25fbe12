"""serve's parts without a browser: the injected script, the server, the watcher, the builder protocol.

The whole command, with a page open in Chromium, is tested in tests/e2e/test_serve.py.
"""

from __future__ import annotations

import html
import http.client
import io
import json
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sitegen.project_copy import project_copy
from sitegen.serve import (
    Builder,
    Hub,
    Report,
    Server,
    Status,
    Watcher,
    change_kind,
    inject,
    make_server,
    worker_loop,
)
from tests.conftest import ROOT


def test_the_reload_script_goes_at_the_end_of_the_head() -> None:
    page = b"<html><head><title>x</title></head><body>x</body></html>"
    tag = b'<script src="/__kvpage/reload.js" data-build="s-1" defer></script>\n'
    assert inject(page, "s-1") == b"<html><head><title>x</title>" + tag + b"</head><body>x</body></html>"
    assert inject(b"<p>no head</p>", "s-1") == b"<p>no head</p>" + tag


def test_the_build_id_is_escaped() -> None:
    assert b'data-build="&quot;&gt;"' in inject(b"</head>", '">')


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Server, Hub, Path]]:
    folder = tmp_path / "site"
    (folder / "static").mkdir(parents=True)
    (folder / "index.html").write_bytes(b"<!doctype html><html><head><title>i</title></head><body>i</body></html>")
    (folder / "static" / "a.css").write_bytes(b"p{}")
    (folder / "pyodide").mkdir()
    (folder / "pyodide" / "pyodide.asm.0123abcd.wasm.bin").write_bytes(b"\x1f\x8b")
    (folder / "pyodide" / "pyodide-lock.json").write_bytes(b"{}")
    hub = Hub()
    server = make_server(0, folder, hub)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server, hub, folder
    hub.close()
    server.shutdown()
    server.server_close()


def get(server: Server, path: str, **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    connection.request("GET", path, headers=headers)
    return connection.getresponse()


def test_it_listens_on_the_loopback_interface_only(server: tuple[Server, Hub, Path]) -> None:
    assert server[0].server_address[0] == "127.0.0.1"


def test_before_the_first_good_build_every_page_shows_the_errors(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("", False, ("content/a.md:3: <bad> lab",)))
    response = get(http_server, "/index.html")
    body = response.read()
    assert response.status == 503
    assert b"content/a.md:3: &lt;bad&gt; lab" in body
    assert b'src="/__kvpage/reload.js" data-build=""' in body


def test_pages_get_the_reload_script_and_files_an_etag(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    page = get(http_server, "/")
    assert page.status == 200
    assert page.getheader("Cache-Control") == "no-store"
    assert b'<script src="/__kvpage/reload.js" data-build="s-1" defer></script>\n</head>' in page.read()

    style = get(http_server, "/static/a.css")
    etag = style.getheader("ETag")
    assert (style.status, style.read(), style.getheader("Content-Type")) == (200, b"p{}", "text/css; charset=utf-8")
    assert style.getheader("Cache-Control") == "no-cache"
    assert etag
    again = get(http_server, "/static/a.css", **{"If-None-Match": etag})
    assert (again.status, again.read()) == (304, b"")


def test_content_addressed_runtime_files_are_kept_for_a_year(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    hashed = get(http_server, "/pyodide/pyodide.asm.0123abcd.wasm.bin")
    assert (hashed.status, hashed.read()) == (200, b"\x1f\x8b")
    assert hashed.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    again = get(http_server, "/pyodide/pyodide.asm.0123abcd.wasm.bin", **{"If-None-Match": hashed.getheader("ETag")})
    assert again.status == 304 and again.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    lock = get(http_server, "/pyodide/pyodide-lock.json")  # not named after its content: revalidated
    assert lock.getheader("Cache-Control") == "no-cache" and lock.getheader("ETag")


def test_a_changed_file_gets_a_new_etag(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, folder = server
    hub.publish(Status("s-1", True))
    first = get(http_server, "/static/a.css").getheader("ETag")
    (folder / "static" / "a.css").write_bytes(b"p{color:red}")
    response = get(http_server, "/static/a.css", **{"If-None-Match": first or ""})
    assert response.status == 200
    assert response.read() == b"p{color:red}"


@pytest.mark.parametrize("path", ["/missing.html", "/../secret", "/static/", "/%2e%2e/secret"])
def test_nothing_outside_the_site_is_served(server: tuple[Server, Hub, Path], path: str) -> None:
    http_server, hub, folder = server
    (folder.parent / "secret").write_text("no", encoding="utf-8")
    hub.publish(Status("s-1", True))
    assert get(http_server, path).status == 404


def test_a_missing_page_links_the_index_and_reloads_with_the_next_build(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    response = get(http_server, "/renamed.html")
    body = response.read()
    assert response.status == 404
    assert b"This build has no page renamed.html" in body
    assert b'<a href="/">the list of chapters</a>' in body
    assert b'data-build="s-1"' in body


def test_the_reload_client_is_served(server: tuple[Server, Hub, Path]) -> None:
    response = get(server[0], "/__kvpage/reload.js")
    assert response.status == 200
    assert b'new EventSource("/__kvpage/events")' in response.read()


def test_the_event_stream_sends_the_status_now_and_every_change(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    stream = get(http_server, "/__kvpage/events")
    assert stream.getheader("Content-Type") == "text/event-stream"

    def event() -> dict[str, object]:
        lines = [stream.readline(), stream.readline(), stream.readline()]
        assert lines[0] == b"event: status\n" and lines[2] == b"\n"
        return dict(json.loads(lines[1].removeprefix(b"data: ")))

    assert event() == {"build": "s-1", "ok": True, "errors": [], "kind": "page", "previous": ""}
    hub.publish(Status("s-1", False, ("content/a.md:1: broken",)))
    assert event() == {
        "build": "s-1",
        "ok": False,
        "errors": ["content/a.md:1: broken"],
        "kind": "page",
        "previous": "",
    }
    hub.publish(Status("s-2", True, kind="model", previous="s-1"))
    assert event() == {"build": "s-2", "ok": True, "errors": [], "kind": "model", "previous": "s-1"}


def test_what_changed_says_how_the_open_page_takes_the_build(tmp_path: Path) -> None:
    model = tmp_path / "kvpage"
    assert change_kind([model / "labs" / "decode.py", model / "costs.py"], model) == "model"
    assert change_kind([tmp_path / "site_template" / "static" / "kvpage.css"], model) == "css"
    assert change_kind([model / "costs.py", tmp_path / "content" / "03-cache.md"], model) == "page"
    assert change_kind([tmp_path / "content" / "03-cache.md"], model) == "page"


def test_the_watcher_sees_added_changed_and_removed_files_but_not_editor_droppings(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a", encoding="utf-8")
    watcher = Watcher([tmp_path])
    assert watcher.changes() == []
    (tmp_path / "a.md").write_text("a changed", encoding="utf-8")
    (tmp_path / "b.md").write_text("b", encoding="utf-8")
    assert watcher.changes() == [tmp_path / "a.md", tmp_path / "b.md"]
    (tmp_path / "b.md").unlink()
    assert watcher.changes() == [tmp_path / "b.md"]
    (tmp_path / ".a.md.swp").write_text("x", encoding="utf-8")
    (tmp_path / "a.md~").write_text("x", encoding="utf-8")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
    assert watcher.changes() == []


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


def test_serve_reports_a_looping_lab_over_the_page_and_builds_again_on_the_next_save(tmp_path: Path) -> None:
    """The lab-loop fixture (book.toml: build_timeout = 1) under the real ``serve``: the first build
    stops the loop and serve shows why; a save builds again (here to another error, as a good build
    of a new lab would make a runtime, minutes of Pyodide: the e2e suite's model edit covers that)."""
    fixture = ROOT / "tests" / "invalid" / "lab-loop"
    project = project_copy(ROOT, tmp_path / "project", caches=())
    shutil.copytree(fixture / "kvpage", project / "kvpage", dirs_exist_ok=True)
    content = shutil.copytree(fixture / "content", tmp_path / "content")
    command = [sys.executable, "build.py", "serve", "--port", "0", "--content", str(content)]
    process = subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = urlsplit(read_line(process, 60).split()[1])  # "serving http://127.0.0.1:PORT/ (Ctrl-C stops)"
        loop = "content/broken.md:8: lab 'halving' action 'compute' did not finish in 1 s (args {\"tokens\": 0})"
        assert loop in page_text(url.port or 0)
        chapter = content / "broken.md"
        chapter.write_text(chapter.read_text(encoding="utf-8").replace("tokens=0", "tokens=5000"), encoding="utf-8")
        wanted = "content/broken.md:8: tokens (Tokens) must be between 0 and 4096, not 5000"
        assert wait_for(lambda: wanted in page_text(url.port or 0), 60)
    finally:
        process.terminate()
        process.wait(timeout=30)


def read_line(process: subprocess.Popen[str], seconds: float) -> str:
    """The next line of ``process``'s stdout, or a failure after ``seconds`` (serve hung)."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline() if process.stdout else ""), daemon=True).start()
    try:
        return lines.get(timeout=seconds)
    except queue.Empty:
        pytest.fail(f"serve printed nothing in {seconds} s")


def page_text(port: int) -> str:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/broken.html")
    return html.unescape(connection.getresponse().read().decode("utf-8"))


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass (serve rebuilds on its own clock)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


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
