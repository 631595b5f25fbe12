"""When Python cannot start, the chapter still reads, with the build-time numbers and a reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, Worker, expect

from kvpage.labs import decode as decode_lab
from kvpage.labs import next_request
from sitegen.runtime.packing import pack_zstd
from tests.browser_fixtures import Server
from tests.chapter_labs import DECODE, NEXT
from tests.conftest import Built
from tests.e2e.conftest import PYTHON_READY_MS
from tests.e2e.test_labs import expect_seed_readouts

pytestmark = pytest.mark.e2e


def assert_prerendered_and_disabled(page: Page, reason: str) -> None:
    decode = page.get_by_role("region", name=DECODE)
    lab = page.get_by_role("region", name=NEXT)
    expect(decode.get_by_text(re.compile(rf"The labs could not start \({re.escape(reason)}"))).to_be_visible(
        timeout=PYTHON_READY_MS
    )
    expect(lab.get_by_text(re.compile(r"The labs could not start"))).to_be_visible()
    expect_seed_readouts(decode, decode_lab.LAB)  # the build's numbers, the seed's figures
    expect_seed_readouts(lab, next_request.LAB)
    for name in ("Generate", "Back", "Forward", "Reset"):
        expect(decode.get_by_role("button", name=name)).to_be_disabled()
    expect(decode.get_by_label("Prefix length")).to_be_disabled()
    expect(lab.get_by_label("Request 2", exact=True)).to_be_disabled()
    # The chapter still reads: its own callout, found in the chapter that holds its labs (the single
    # file holds every chapter of the book, and another chapter may keep a thing of its own).
    chapter = page.get_by_role("article").filter(has=decode)
    expect(chapter.get_by_text("Keep this:")).to_be_visible()


def test_without_webassembly(browser: Browser, http_site: Server) -> None:
    page = browser.new_page()
    page.add_init_script("delete globalThis.WebAssembly")
    page.goto(http_site.base + "cache.html")
    assert_prerendered_and_disabled(page, "this browser does not support WebAssembly")
    page.close()


def test_when_the_runtime_cannot_be_loaded(browser: Browser, http_site: Server, built: Built) -> None:
    page = browser.new_page()
    wasm = built.packed("pyodide.asm.wasm")
    page.route(f"**/{wasm}*", lambda route: route.abort())  # the file and its script
    page.goto(http_site.base + "cache.html")
    assert_prerendered_and_disabled(page, f"could not load {wasm}")
    page.close()


@pytest.mark.parametrize("snapshot", ["as it comes", "held until the start failed"])
def test_a_start_that_fails_ends_every_worker(browser: Browser, http_site: Server, built: Built, snapshot: str) -> None:
    """Python's worker and the unpacker both end when Python cannot start. Over http the unpacker
    keeps a copy of what it decoded, for Cache Storage once Python is ready: when it never is,
    nothing may stay behind holding 18 MB. Here the wasm unpacks (the right size, zstd's checksum
    right) but is no WebAssembly, so Python's worker, not the unpacker, fails.

    The worker fails as soon as the wasm does not compile, which may be before the page has lent it
    the snapshot (a slow download, a loaded machine): the page must hear it then too. Held, the
    snapshot's answer comes only once the page said so (a page that missed the failure waited on
    forever: the flake of issue 47)."""
    page = browser.new_page()
    held: list[Route] = []
    if snapshot != "as it comes":
        page.route(f"**/{built.packed(built.runtime['snapshot'])}", lambda route: held.append(route))
    made: list[Worker] = []
    ended: list[Worker] = []

    def watch(worker: Worker) -> None:
        made.append(worker)
        worker.on("close", lambda closed: ended.append(closed))

    page.on("worker", watch)
    wasm = built.packed(built.runtime["wasm"])
    not_wasm = pack_zstd(bytes(built.runtime["unpacked"][built.runtime["wasm"]]))
    page.route(f"**/{wasm}", lambda route: route.fulfill(body=not_wasm))
    page.goto(http_site.base + "cache.html")
    expect(page.locator("html")).to_have_attribute("data-python", "failed", timeout=PYTHON_READY_MS)
    for route in held:
        route.fallback()
    assert len(made) == 2, [worker.url for worker in made]  # Python's worker and the unpacker
    for worker in made:
        if worker not in ended:  # events arrive only while Playwright is called: none is missed here
            with worker.expect_event("close", timeout=PYTHON_READY_MS):
                pass
    page.close()


def test_a_single_file_missing_a_binary_says_which(browser: Browser, built: Built, tmp_path: Path) -> None:
    html = built.single.read_text(encoding="utf-8")
    cut, count = re.subn(
        r'<script>\(globalThis\.kvpageAssets\?\?=new Map\(\)\)\.set\("python\.snapshot".*?</script>',
        "",
        html,
        flags=re.DOTALL,
    )
    assert count == 1
    (tmp_path / "kvpage.html").write_text(cut, encoding="utf-8")
    page = browser.new_page()
    page.goto((tmp_path / "kvpage.html").as_uri())
    assert_prerendered_and_disabled(page, f"the page has no {built.runtime['packed']['python.snapshot']}")
    page.close()


def one_byte_changed(data: bytes) -> bytes:
    """``data`` with its middle byte inverted: the format's own header is still right."""
    changed = bytearray(data)
    changed[len(changed) // 2] ^= 0xFF
    return bytes(changed)


@pytest.mark.parametrize("name", ["python.snapshot", "wheel"], ids=["zstd", "gzip"])
@pytest.mark.parametrize("damage", ["garbage", "one byte"])
def test_damaged_packed_bytes_fail_with_the_file_s_name(
    browser: Browser, http_site: Server, built: Built, name: str, damage: str
) -> None:
    """Not the format at all, or one byte changed (zstd's checksum, gzip's CRC): the download
    arrives, the decoder refuses it, and so does the fallback script."""
    page = browser.new_page()
    binary = built.packed(built.runtime["wheel"] if name == "wheel" else name)
    body = b"not packed at all" if damage == "garbage" else one_byte_changed(built.files[binary])
    page.route(f"**/{binary}", lambda route: route.fulfill(body=body))
    page.route(f"**/{binary}.js", lambda route: route.abort())
    page.goto(http_site.base + "cache.html")
    assert_prerendered_and_disabled(page, f"could not load {binary}")
    page.close()
