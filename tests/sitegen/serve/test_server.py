"""``serve`` as a command (its parts are tested in test_serve_http, test_serve_watcher and
test_serve_builder); with a page open in Chromium, in tests/e2e/test_serve.py.
"""

from __future__ import annotations

import html
import http.client
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from sitegen.serve.builder import Report
from sitegen.serve.http_server import Hub
from sitegen.serve.server import Rebuilds
from tests.conftest import ROOT
from tests.project_copy import project_copy
from tests.sitegen.test_invalid_content import EXPECTED


def test_serve_reports_a_looping_lab_over_the_page_and_builds_again_on_the_next_save(tmp_path: Path) -> None:
    """The lab-loop fixture (its book.toml's small build_timeout) under the real ``serve``: the first build
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
        (loop,) = EXPECTED["lab-loop"]  # what the build says of it (tests/sitegen/test_invalid_content.py)
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


def test_serve_prints_each_warning_once_and_counts_those_an_earlier_build_printed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The harness link's warning, printed by every rebuild, buried the new ones."""
    old, new = "content/03-cache.md:42: chapter 'harness' is not in this book", "content/x.md:3: another"
    reports = iter([Report(ok=True, warnings=[old]), Report(ok=True, warnings=[old, new]), Report(ok=True)])
    builder = SimpleNamespace(build=lambda hot_base="": next(reports))
    rebuilds = Rebuilds(builder, Hub())  # type: ignore[arg-type]
    printed = []
    for _ in range(3):
        rebuilds.rebuild("x.md changed")
        printed.append([line for line in capsys.readouterr().err.splitlines() if "built in" not in line])
    assert printed == [
        [f"warning: {old}"],
        [f"warning: {new}", "1 warning as in the last build, not repeated"],
        [],
    ]
