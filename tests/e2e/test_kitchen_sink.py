"""The kitchen-sink book in Chromium, three ways: every construct rendered, by keyboard, at 360 px, clean for axe.

One page load per way (over http, from the unzipped zip, the single file), audited like every
e2e page (no request leaving it, no console error, no CSP violation). On it: the rendering
checks the three engines share (tests/browsers/renders.js), a keyboard reader scrolling the wide
table, the footnotes there and back, the download holding the book's file, the lab computing
in Python, then the same page at 360 px, and axe-core in light and dark (on the two documents:
the chapter page and the single file). Firefox and WebKit run the rendering checks in
tests/browsers/.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.browser_fixtures import DOCUMENTS, WAYS, Where, way_of
from tests.browsers.flows import RENDERS, SQUARE
from tests.conftest import KITCHEN_SINK, Built
from tests.e2e.conftest import PYTHON_READY_MS, audit_page
from tests.e2e.test_accessibility import AXE, axe_violations, tab_to

pytestmark = pytest.mark.e2e

CHAPTER = "kitchen-sink.html"
NARROW = {"width": 360, "height": 800}
DOWNLOAD = "The costs as a CSV file"


@pytest.fixture(params=WAYS)
def kitchen_sink_url(request: pytest.FixtureRequest, kitchen_sink: Built) -> Where:
    return way_of(request, kitchen_sink, CHAPTER, "kitchen_sink_server", "kitchen_sink_unzipped")


def download_bytes(page: Page, href: str, where: Where) -> bytes:
    """What the download link gives: the file over http or from disk, the data: URI's bytes in the single file."""
    if href.startswith("data:"):
        return base64.b64decode(href.split(",", 1)[1])
    if where.origin.startswith("http"):
        return page.request.get(where.origin + href).body()
    return Path(where.origin.removeprefix("file://") + href).read_bytes()


def test_every_construct_reads_in_chromium(page: Page, kitchen_sink_url: Where, request: pytest.FixtureRequest) -> None:
    way = request.node.callspec.params["kitchen_sink_url"]
    page.add_init_script(path=str(AXE))
    with audit_page(page, kitchen_sink_url.origin):
        page.goto(kitchen_sink_url.chapter)
        lab = page.get_by_role("region", name=SQUARE)
        tokens = lab.get_by_label("Tokens")
        expect(tokens).to_be_enabled(timeout=PYTHON_READY_MS)
        assert page.evaluate(f"({RENDERS})()") == []

        wide = page.get_by_role("region", name="A wide table")
        tab_to(page, wide)
        page.keyboard.press("ArrowRight")
        expect(wide).not_to_have_js_property("scrollLeft", 0)

        page.get_by_role("link", name="[1]").click()
        expect(page.get_by_role("link", name="Back to reference 1")).to_be_in_viewport()
        page.get_by_role("link", name="Back to reference 1").click()
        expect(page.get_by_role("link", name="[1]")).to_be_in_viewport()

        download = page.get_by_role("link", name=DOWNLOAD)
        href = download.get_attribute("href") or ""
        assert download_bytes(page, href, kitchen_sink_url) == (KITCHEN_SINK / "files" / "costs.csv").read_bytes()
        if way == "single-file":
            expect(download).to_have_attribute("download", "costs.csv")

        tokens.fill("200")
        expect(lab.get_by_label("Cells a cold prefill pays")).to_have_text("40,000")

        page.set_viewport_size(NARROW)
        assert page.evaluate(f"({RENDERS})()") == []
        if way in DOCUMENTS:
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                assert axe_violations(page) == [], scheme
        expect(page.get_by_role("heading", level=1)).to_have_text(re.compile("Every construct"))
