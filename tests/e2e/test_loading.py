"""How Python arrives: progress events while it loads, and which files each way of opening reads.

A first visit is the same load whatever a test reads of it (the progress events, the files asked
for, when and at which priority, the workers' marks), so each way of opening is loaded once for the
module (``first_visit``: a fresh context, its first visit, audited), and every test reads the record
of that one load. The loads that differ (a host that gzips scripts, an unzipped copy served, a second
visit, a Cache Storage that fails) each have a page of their own.
"""

from __future__ import annotations

import contextlib
import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser_fixtures import WAYS, QuietHandler, Server, serve
from tests.chapter_labs import DECODE, chapter_run
from tests.conftest import Built
from tests.e2e.conftest import PYTHON_READY_MS, audit_page, chapter_opened
from tests.e2e.test_labs import expect_run

pytestmark = pytest.mark.e2e

RECORD_PROGRESS = """
window.__progress = [];
window.__said = [];
document.addEventListener("kvpage:progress", (event) => window.__progress.push(event.detail));
document.addEventListener("DOMContentLoaded", () => {
  const line = document.querySelector("[data-role=runtime]");
  window.__said.push(line.textContent);
  new MutationObserver(() => window.__said.push(line.textContent)).observe(line, { childList: true });
});
"""


def load(page: Page, url: str) -> tuple[list[dict[str, Any]], list[str]]:
    page.add_init_script(RECORD_PROGRESS)
    page.goto(url)
    decode = page.get_by_role("region", name="Lab · prefill once, then decode")
    expect(decode.get_by_role("button", name="Generate")).to_be_enabled(timeout=PYTHON_READY_MS)
    progress: list[dict[str, Any]] = page.evaluate("window.__progress")
    said: list[str] = page.evaluate("window.__said")
    return progress, said


FIRST_FRAME = """
window.__firstFrame = null;
requestAnimationFrame(() => (window.__firstFrame ??= performance.timeOrigin + performance.now()));
"""
"""Registered before the page's own scripts run: the wall-clock time (ms) of the page's first frame."""

FIRST_MARKS = """() => {
  const first = {};
  for (const mark of performance.getEntriesByType("mark")) first[mark.name] ??= mark.startTime;
  return first;
}"""
"""The time of each of the page's performance marks, the first of a name."""

RUNTIME_RECEIVED = """() => performance.getEntriesByType("resource")
  .filter((entry) => new URL(entry.name).pathname.includes("/pyodide/"))
  .reduce((sum, entry) => sum + entry.encodedBodySize, 0)"""
"""Bytes of Python's files as the browser received them (bodies as sent, compressed or not)."""


@dataclass(frozen=True)
class Visit:
    """What a first visit to the chapter, until its labs were live, showed and asked for."""

    url: str
    progress: list[dict[str, Any]]
    said: list[str]
    requested: set[str]
    """The file names it asked for."""
    sent: dict[str, tuple[float, str]]
    """Each file name's first request as Chromium's network stack reports it: its wall-clock time
    (ms) and its priority."""
    first_frame: float | None
    marks: dict[str, float]
    received: int
    """Bytes of Python's files as the browser received them (``RUNTIME_RECEIVED``)."""


@pytest.fixture(scope="module")
def first_visit(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Visit]:
    """content/'s chapter opened ``request.param`` (one of WAYS) in a fresh context, audited, until
    its labs are live: one load a way for every test of the module that reads a first visit."""
    where = chapter_opened(request)
    context = browser.new_context()
    page = context.new_page()
    sent: dict[str, tuple[float, str]] = {}

    def record(event: dict[str, Any]) -> None:
        name = event["request"]["url"].rsplit("/", 1)[-1]
        sent.setdefault(name, (event["wallTime"] * 1000, event["request"]["initialPriority"]))

    cdp = context.new_cdp_session(page)
    cdp.on("Network.requestWillBeSent", record)
    cdp.send("Network.enable")
    names: set[str] = set()
    page.on("request", lambda request: names.add(request.url.rsplit("/", 1)[-1]))
    page.add_init_script(FIRST_FRAME)
    try:
        with audit_page(page, where.origin):
            progress, said = load(page, where.chapter)
            visit = Visit(
                where.chapter,
                progress,
                said,
                names,
                sent,
                page.evaluate("window.__firstFrame"),
                page.evaluate(FIRST_MARKS),
                page.evaluate(RUNTIME_RECEIVED),
            )
    finally:
        context.close()
    yield visit


every_way = pytest.mark.parametrize("first_visit", WAYS, indirect=True)
over_http = pytest.mark.parametrize("first_visit", ["http"], indirect=True)
from_a_folder = pytest.mark.parametrize("first_visit", ["file"], indirect=True)
both_fetching_ways = pytest.mark.parametrize("first_visit", ["http", "file"], indirect=True)


@every_way
def test_progress_runs_from_downloading_to_ready(first_visit: Visit) -> None:
    progress, said = first_visit.progress, first_visit.said
    phases = [event["phase"] for event in progress]
    assert phases[-2:] == ["starting", "ready"], phases
    downloading = [event for event in progress if event["phase"] == "downloading"]
    assert set(phases[: len(downloading)]) <= {"downloading"}
    if first_visit.url.endswith("kvpage.html"):  # the single-file book: everything is inline already
        assert downloading == []
    else:
        loaded = [event["loaded"] for event in downloading]
        assert loaded == sorted(loaded)
        total = progress[-1]["total"]  # as the browser reported it received (the next test)
        assert total > 5_000_000
        assert progress[-1] == {"phase": "ready", "loaded": total, "total": total}
        assert any(text.startswith("Loading Python: ") and text.endswith(" MB…") for text in said), said
    assert said[-1].startswith("Live: these numbers are computed by kvpage's Python model")


def requested(page: Page, url: str) -> set[str]:
    """The file names ``url`` requested until its labs were live; its progress must have counted
    everything it expected, however the files came."""
    names: set[str] = set()
    page.on("request", lambda request: names.add(request.url.rsplit("/", 1)[-1]))
    progress, _ = load(page, url)
    counted(progress)
    return names


def counted(progress: list[dict[str, Any]]) -> None:
    """The progress ended having counted everything it expected, however the files came."""
    assert progress[-1]["loaded"] == progress[-1]["total"] > 5_000_000, progress[-1]


def packed(built: Built) -> set[str]:
    """The gzipped binaries, as fetched over http (named after their bytes); their scripts add ".js"."""
    return set(built.runtime["packed"].values())


@over_http
def test_over_http_the_binaries_come_packed_as_themselves(first_visit: Visit, built: Built) -> None:
    names = first_visit.requested
    counted(first_visit.progress)
    assert names >= packed(built)
    assert not any(name.endswith(".bin.js") for name in names), names
    assert not any("stdlib" in name for name in names), "every module the labs use is in the snapshot"


@both_fetching_ways
def test_python_is_requested_after_the_first_frame_at_low_priority(first_visit: Visit, built: Built) -> None:
    """Python's bytes never hold up the chapter: the page asks for them once it has drawn its first
    frame (its text and CSS are on screen), and at low priority, as Chromium's network stack reports
    each request (its time, wall clock, and priority)."""
    sent, first_frame = first_visit.sent, first_visit.first_frame
    expected = packed(built) if first_visit.url.startswith("http") else {f"{name}.js" for name in packed(built)}
    binaries = {name: sent[name] for name in expected if name in sent}
    assert set(binaries) == expected, sent
    assert first_frame is not None
    assert all(at > first_frame for at, _ in binaries.values()), (first_frame, binaries)
    assert {priority for _, priority in binaries.values()} == {"Low"}, binaries


def test_an_unzipped_copy_served_over_http_falls_back_to_the_scripts(
    page: Page, unzipped_site: Path, built: Built
) -> None:
    assert not any(path.name.endswith(".bin") for path in unzipped_site.rglob("*"))  # the zip leaves them out
    # Its scripts gzipped by the host: the progress bar counts what came instead of what it expected.
    with contextlib.contextmanager(serve)(unzipped_site, GzipHandler) as server:
        names = requested(page, server.base + "cache.html")
    assert {f"{name}.js" for name in packed(built)} <= names


@from_a_folder
def test_from_a_folder_the_binaries_come_as_scripts(first_visit: Visit, built: Built) -> None:
    names = first_visit.requested
    counted(first_visit.progress)
    assert {f"{name}.js" for name in packed(built)} <= names
    assert not packed(built) & names


class GzipHandler(QuietHandler):
    """Sends scripts gzipped, as GitHub Pages does (``Content-Encoding: gzip``)."""

    def send_head(self) -> Any:
        path = self.translate_path(self.path)
        if not path.endswith(".js") or "gzip" not in self.headers.get("Accept-Encoding", ""):
            return super().send_head()
        body = gzip.compress(Path(path).read_bytes(), mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


@over_http
def test_over_http_the_progress_total_is_what_was_received(first_visit: Visit, built: Built) -> None:
    total_is_what_was_received(first_visit.progress, first_visit.received, built)


def test_from_a_host_that_gzips_scripts_the_progress_total_is_what_was_received(page: Page, built: Built) -> None:
    with contextlib.contextmanager(serve)(built.site, GzipHandler) as server:
        progress, _ = load(page, server.base + "cache.html")
    total_is_what_was_received(progress, page.evaluate(RUNTIME_RECEIVED), built)


def total_is_what_was_received(progress: list[dict[str, Any]], received: int, built: Built) -> None:
    assert progress[-1] == {"phase": "ready", "loaded": received, "total": received}
    # Expected before anything arrived: what the host sends for each packed binary. Over http the page
    # fetches only those (Pyodide's JavaScript is one of them), and a host that gzips scripts, as
    # GitHub Pages does, sends them as they are: the total is right from the first event.
    runtime = built.runtime
    binaries = [built.packed(runtime[name]) for name in ("code", "wasm", "snapshot", "wheel")]
    sent = sum(runtime["sent"][path] for path in binaries)
    first = next(event for event in progress if event["phase"] == "downloading")
    assert first["total"] == sent == received


CACHED_KEYS = """async () => {
  const cache = await caches.open("kvpage-unpacked");
  return (await cache.keys()).map((request) => request.url);
}"""
"""Every key of the page's Cache Storage of unpacked binaries."""


def unpacked_key(base: str, built: Built, name: str) -> str:
    return f"{base}{built.packed(name)}?unpacked"


def the_decode_lab_steps(page: Page) -> None:
    """Python answers with the model's numbers: one Forward step of the chapter's decode lab."""
    decode = page.get_by_role("region", name=DECODE)
    decode.get_by_role("button", name="Forward").click()
    expect_run(decode, chapter_run().after(1))


def test_a_second_visit_over_http_reads_python_unpacked_from_cache_storage(
    page: Page, http_site: Server, built: Built
) -> None:
    runtime = built.runtime
    kept = [runtime[name] for name in ("code", "wasm", "snapshot", "wheel")]
    html = page.locator("html")
    # Another build's entry goes; another site's (a sibling folder of the same origin) stays.
    stale, elsewhere = f"{http_site.base}pyodide/pyodide.asm.0badf00d.wasm.bin?unpacked", f"{http_site.base}x/a.bin"
    page.goto(http_site.base + "no-such-page")  # the origin, before the book's page
    page.evaluate(
        """async ([stale, elsewhere]) => {
          const cache = await caches.open("kvpage-unpacked");
          await cache.put(stale, new Response("old"));
          await cache.put(elsewhere, new Response("theirs"));
        }""",
        [stale, elsewhere],
    )
    page.goto(http_site.base + "cache.html")
    expect(html).to_have_attribute("data-python-cache", "kept", timeout=PYTHON_READY_MS)
    keys = {unpacked_key(http_site.base, built, name) for name in kept}
    assert set(page.evaluate(CACHED_KEYS)) == keys | {elsewhere}

    names: set[str] = set()
    page.on("request", lambda request: names.add(request.url.rsplit("/", 1)[-1]))
    progress, _ = load(page, http_site.base + "cache.html")
    expect(html).to_have_attribute("data-python-cache", "hit")
    assert not {built.packed(name).rsplit("/", 1)[-1] for name in kept} & names, names  # none fetched again
    assert progress[-1]["phase"] == "ready" and progress[-1]["loaded"] == progress[-1]["total"], progress[-1]
    the_decode_lab_steps(page)


@pytest.mark.parametrize("trouble", ["damaged", "refused"])
def test_cache_storage_that_fails_is_a_miss(page: Page, http_site: Server, built: Built, trouble: str) -> None:
    """A kept binary of the wrong size, or a Cache Storage that refuses to open (a private window,
    quota): the page fetches and unpacks as on a first visit, and still works."""
    wasm = built.packed(built.runtime["wasm"]).rsplit("/", 1)[-1]
    if trouble == "refused":
        page.add_init_script("caches.open = () => Promise.reject(new DOMException('no', 'SecurityError'))")
    else:
        page.goto(http_site.base + "no-such-page")  # the origin, before the book's page
        page.evaluate(
            """async (key) => (await caches.open("kvpage-unpacked")).put(key, new Response("short"))""",
            unpacked_key(http_site.base, built, built.runtime["wasm"]),
        )
    names = requested(page, http_site.base + "cache.html")
    assert wasm in names
    expect(page.locator("html")).not_to_have_attribute("data-python-cache", "hit")
    the_decode_lab_steps(page)


@both_fetching_ways
def test_the_first_workers_phases_are_marked_in_the_order_they_happen(first_visit: Visit, built: Built) -> None:
    """bench/run.py prints where a cold start went from these marks: each must be there, at the
    time its step happened (the worker's clock brought onto the page's), so in this order."""
    at = first_visit.marks
    runtime = built.runtime
    unpacked = [f"kvpage:unpacked-{runtime[name]}" for name in ("wasm", "snapshot")]
    phases = ("made", "started", "compiled", "decoded", "instantiated", "restored")
    worker = [f"kvpage:worker-{phase}" for phase in phases]
    assert set(unpacked + worker) <= at.keys(), sorted(at)
    steps = ["kvpage:worker-made", "kvpage:worker-started", "kvpage:worker-instantiated", "kvpage:worker-restored"]
    steps += ["kvpage:worker-ready", "kvpage:labs-live"]
    assert [at[name] for name in steps] == sorted(at[name] for name in steps), {name: at[name] for name in steps}
    wasm, snapshot = unpacked
    assert at[wasm] <= at["kvpage:worker-compiled"] <= at["kvpage:worker-instantiated"], at
    assert max(at[wasm], at[snapshot], at["kvpage:worker-compiled"]) <= at["kvpage:worker-decoded"], at
    assert at["kvpage:worker-decoded"] <= at["kvpage:worker-restored"], at
