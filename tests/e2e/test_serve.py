"""``build.py serve`` with a page open in Chromium: edits reach the page by themselves.

Each test starts the real command (a child process, port 0) on a temporary copy of
what it edits, opens a page, changes a file and waits (Playwright ``expect``, no
sleeps) for the page to show the change. How fast that is belongs to bench/
(``bench/serve_reload.py``); here the timeouts are generous and only the reload
itself is asserted.
"""

from __future__ import annotations

import queue
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from sitegen.serve.http_server import Hub, Status, make_server
from tests.browser_fixtures import serve
from tests.chapter_labs import DECODE, NEXT
from tests.conftest import ROOT
from tests.e2e.conftest import PYTHON_READY_MS
from tests.project_copy import project_copy
from tests.reader_model import COSTS, SQUARE

pytestmark = pytest.mark.e2e

RELOAD_MS = 30_000
"""Generous: a prose edit shows in well under a second here (bench/serve_reload.py)."""
MODEL_RELOAD_MS = 120_000
"""A deadline, not a goal: a model edit restarts serve's build process and builds the wheel, seconds
on a loaded 2-core machine (bench/serve_reload.py measures it; docs/performance.md, "Writing")."""
START_SECONDS = 120
LEDE = "Attention needs every previous key."


@dataclass
class Serving:
    url: str
    process: subprocess.Popen[str]
    log: Path


@contextmanager
def start(command: list[str], log: Path) -> Iterator[Serving]:
    """Run ``serve``, wait for the address it prints, stop it (SIGTERM) afterwards."""
    with log.open("w", encoding="utf-8") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in process.stdout or ():
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        line = lines.get(timeout=START_SECONDS)
    except queue.Empty:
        process.kill()
        pytest.fail(f"serve printed no address:\n{log.read_text(encoding='utf-8')}")
    assert line.startswith("serving http://127.0.0.1:"), line
    try:
        yield Serving(line.split()[1], process, log)
    finally:
        process.terminate()
        assert process.wait(timeout=30) == 0, log.read_text(encoding="utf-8")


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """A copy of the book's content, to edit."""
    return Path(shutil.copytree(ROOT / "content", tmp_path / "content"))


@pytest.fixture
def served(content: Path, tmp_path: Path) -> Iterator[Serving]:
    """serve on the copy of the content, with this project's code."""
    command = [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--content", str(content)]
    with start(command, tmp_path / "serve.log") as serving:
        yield serving


def console_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def edit(path: Path, *changes: tuple[str, str]) -> None:
    """Replace each ``(old, new)`` once, in one write (one rebuild)."""
    text = path.read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")


def test_a_prose_edit_reloads_the_open_page_then_a_failed_build_shows_its_errors_until_fixed(
    page: Page, served: Serving, content: Path
) -> None:
    """Two flows under one ``serve`` and one open page (a serve started, and its first build, for
    both): a prose edit, then a failed build and its fix, each waited for on the page."""
    errors = console_errors(page)
    page.goto(served.url + "cache.html")
    edited = a_prose_edit_reloads_the_open_page(page, served, content)
    a_failed_build_shows_its_errors_until_fixed(page, content, edited)
    assert errors == []


def a_prose_edit_reloads_the_open_page(page: Page, served: Serving, content: Path) -> str:
    """The chapter's lede edited: the page reloads by itself, where the reader was. Returns the new lede."""
    expect(page.get_by_text(LEDE)).to_be_visible()
    expect(page.locator('script[src="/__kvpage/reload.js"]')).to_have_count(1)
    page.evaluate("scrollTo(0, 400)")

    edited = "Edited while serving: the page reloads by itself."
    edit(content / "03-cache.md", (LEDE, edited))
    expect(page.get_by_text(edited)).to_be_visible(timeout=RELOAD_MS)
    expect(page.get_by_text(LEDE)).to_have_count(0)
    assert page.url == served.url + "cache.html"
    page.wait_for_function("() => scrollY === 400")  # where the reader was
    return edited


def a_failed_build_shows_its_errors_until_fixed(page: Page, content: Path, lede: str) -> None:
    """A lab parameter out of range: the errors over the page, whose last good build (showing
    ``lede``) stays readable under them, until a fix is built."""
    chapter = content / "03-cache.md"
    good = chapter.read_text(encoding="utf-8")

    edit(chapter, ("prompt=16 tokens=16", "prompt=16 tokens=999"))
    alert = page.get_by_role("alert", name="Build failed")
    expect(alert).to_contain_text("content/03-cache.md:", timeout=RELOAD_MS)
    expect(alert).to_contain_text("tokens (Tokens to generate) must be between 1 and 64, not 999")
    expect(page.get_by_text(lede)).to_be_visible()  # the last good build stays readable under it

    chapter.write_text(good.replace(lede, "Fixed, and rebuilt."), encoding="utf-8")
    expect(page.get_by_text("Fixed, and rebuilt.")).to_be_visible(timeout=RELOAD_MS)
    expect(alert).to_have_count(0)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the whole project whose model a test may change. It starts with this checkout's
    caches, so serve's first build reuses the runtime and only the edit builds one."""
    return project_copy(ROOT, tmp_path / "project")


def test_a_model_edit_is_swapped_into_the_open_page_then_shows_in_the_python_disclosure(
    page: Page, project: Path, tmp_path: Path
) -> None:
    """Two flows under one ``serve`` of one copy of the project (its start and first build for
    both), on one page: a model edit swapped into the open page, which ends with a reload; then, on
    that fresh page, a model edit in the Python disclosure."""
    command = [sys.executable, str(project / "build.py"), "serve", "--port", "0"]
    with start(command, tmp_path / "serve.log") as serving:
        errors = console_errors(page)
        page.goto(serving.url + "cache.html")
        a_model_edit_is_swapped_into_the_open_page_at_its_current_values(page, project)
        a_model_edit_shows_in_the_python_disclosure_and_keeps_the_readers_edit(page, project)
        assert errors == []


def a_model_edit_is_swapped_into_the_open_page_at_its_current_values(page: Page, project: Path) -> None:
    """serve builds only the new wheel; the open page swaps it into its running Python and computes
    every lab again at the values the reader left, without a reload. A model that does not import
    leaves the last good one running, the error over the page; the fix is swapped in again. A prose
    edit then reloads the page, which restores the snapshot and runs the newest wheel."""
    decode = page.get_by_role("region", name="Lab · prefill once, then decode")
    step = decode.get_by_role("button", name="Forward")
    expect(step).to_be_enabled(timeout=PYTHON_READY_MS)
    decode.get_by_role("radio", name="Recompute").check()
    step.click()
    status = decode.get_by_text(re.compile(r"^no cache kept · \d"))  # not the Python disclosure's f-string
    expect(status).to_be_visible()
    after_step = status.inner_text()
    page.evaluate("window.__notReloaded = true")

    model = project / "kvpage" / "labs" / "decode.py"
    edit(model, ('"cache cold"', '"cache empty"'), ('f"no cache kept · ', 'f"nothing kept · '))
    # The lab computed again by the new model (its update action starts the run afresh) ...
    expect(decode.get_by_text("cache empty", exact=True)).to_be_visible(timeout=MODEL_RELOAD_MS)
    assert page.evaluate("window.__notReloaded") is True, "the page reloaded"
    expect(decode.get_by_role("radio", name="Recompute")).to_be_checked()  # ... at the reader's values
    step.click()
    expect(decode.get_by_text(after_step.replace("no cache kept · ", "nothing kept · "))).to_be_visible()

    edit(model, ('return "cache empty"', 'return "cache empty" +'))
    broken = model.read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(broken, 1) if 'return "cache empty" +' in text)
    alert = page.get_by_role("alert", name="Build failed")
    expect(alert).to_contain_text(f"kvpage/labs/decode.py:{line}:", timeout=MODEL_RELOAD_MS)
    expect(alert).to_contain_text("SyntaxError")
    decode.get_by_role("button", name="Reset").click()  # the last good model still answers
    expect(decode.get_by_text("cache empty", exact=True)).to_be_visible()

    edit(model, ('return "cache empty" +', 'return "cache bare"'), ('f"nothing kept · ', 'f"none kept · '))
    expect(alert).to_have_count(0, timeout=MODEL_RELOAD_MS)
    expect(decode.get_by_text("cache bare", exact=True)).to_be_visible()
    assert page.evaluate("window.__notReloaded") is True, "the page reloaded"

    # A page opened now restores the snapshot (the model before the edits) and runs the new wheel.
    with page.expect_event("load", timeout=RELOAD_MS):
        edit(project / "content" / "03-cache.md", (LEDE, "Edited after the model."))
    expect(step).to_be_enabled(timeout=PYTHON_READY_MS)
    # The reloaded page resumes the lab from its link (Recompute, reset), and steps by the new wheel.
    expect(page).to_have_url(re.compile("decode:"))
    expect(decode.get_by_role("radio", name="Recompute")).to_be_checked()
    step.click()
    expect(decode.get_by_text(after_step.replace("no cache kept · ", "none kept · "))).to_be_visible()


def changed_lines(before: str, after: str) -> tuple[int, int]:
    """Lines added and removed from ``before`` to ``after`` (a longest common subsequence, as the page counts)."""
    a, b = before.split("\n"), after.split("\n")
    row = [0] * (len(b) + 1)
    for line in a:
        following = [0]
        for j, other in enumerate(b):
            following.append(row[j] + 1 if line == other else max(row[j + 1], following[j]))
        row = following
    return len(b) - row[-1], len(a) - row[-1]


def a_model_edit_shows_in_the_python_disclosure_and_keeps_the_readers_edit(page: Page, project: Path) -> None:
    """The disclosure shows the files of the model the page runs: after a model edit, the new build's.
    An editor the reader left as the book had it takes the new text; one holding the reader's edit
    keeps it, and "Your model" counts its lines against the new book's file."""
    costs = project / COSTS
    decode = page.get_by_role("region", name=DECODE)
    next_lab = page.get_by_role("region", name=NEXT)
    expect(decode.get_by_role("button", name="Forward")).to_be_enabled(timeout=PYTHON_READY_MS)
    page.evaluate("window.__notReloaded = true")
    decode.get_by_text("Python: the code behind this lab").click()
    shown = decode.locator(f'figure[data-file="{COSTS}"] pre.code')

    # Before any Edit (the editor not loaded yet): the highlighted file is the new one.
    edit(costs, (SQUARE, f"{SQUARE}  # edited while serving"))
    expect(shown).to_have_text(costs.read_text(encoding="utf-8"), timeout=MODEL_RELOAD_MS)

    # An editor left as the book had it, and one holding the reader's edit, run.
    decode.get_by_role("button", name="Edit").click()
    next_lab.get_by_text("Python: the code behind this lab").click()
    next_lab.get_by_role("button", name="Edit").click()
    mine = costs.read_text(encoding="utf-8").replace("  # edited while serving", "  # the reader's")
    next_lab.get_by_label(f"Edit {COSTS}").fill(mine)
    next_lab.get_by_role("button", name="Run").click()
    yours = next_lab.get_by_role("status").filter(has_text="Your model")
    expect(yours).to_contain_text(f"{COSTS} +1 −1")

    edit(costs, ('"""Attention cost in cells', '"""Attention\'s cost in cells'))  # a line the reader left alone
    book = costs.read_text(encoding="utf-8")
    expect(decode.get_by_label(f"Edit {COSTS}")).to_have_value(book, timeout=MODEL_RELOAD_MS)
    expect(next_lab.get_by_label(f"Edit {COSTS}")).to_have_value(mine)
    added, removed = changed_lines(book, mine)
    expect(yours).to_contain_text(f"{COSTS} +{added} −{removed}")
    next_lab.get_by_role("button", name="Back to the book's model").click()
    expect(next_lab.locator(f'figure[data-file="{COSTS}"] pre.code')).to_have_text(book)
    assert page.evaluate("window.__notReloaded") is True, "the page reloaded"


PROBE = (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>waiting</title></head><body>'
    '<script src="{src}" onload="document.title = \'loaded\'" onerror="document.title = \'refused\'"></script>'
    "</body></html>"
)
"""A page that says whether it could load ``src`` as a script."""


@contextmanager
def serving_folder(folder: Path) -> Iterator[str]:
    """serve's HTTP server alone (no build) on ``folder``: its address."""
    hub = Hub()
    hub.publish(Status("s-1", True))
    server = make_server(0, folder, hub)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        hub.close()
        server.shutdown()
        server.server_close()


def test_no_page_of_another_origin_can_load_what_serve_sends(page: Page, tmp_path: Path) -> None:
    """A page from disk, or from another port of 127.0.0.1, sends serve an allowed ``Host``; only
    ``Cross-Origin-Resource-Policy`` keeps it from running the search index (the book's text) as a
    script of its own. serve's own page still loads it."""
    site = tmp_path / "site"
    (site / "search").mkdir(parents=True)
    (site / "search" / "index.js").write_text('globalThis.kvpageSearch = "the book";\n', encoding="utf-8")
    (site / "index.html").write_text(PROBE.format(src="search/index.js"), encoding="utf-8")
    with serving_folder(site) as origin:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "probe.html").write_text(PROBE.format(src=origin + "search/index.js"), encoding="utf-8")
        page.goto(origin)
        expect(page).to_have_title("loaded")
        page.goto((elsewhere / "probe.html").as_uri())
        expect(page).to_have_title("refused")
        with contextmanager(serve)(elsewhere) as other_port:
            page.goto(other_port.base + "probe.html")
            expect(page).to_have_title("refused")
