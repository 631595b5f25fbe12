"""The chapter printed, in Chromium: no page left mostly blank, and the labs' controls printed as their values.

Printed from the page as a reader has it (Python live), to a PDF by the browser's own print
layout (``page.pdf``), whose pages are read back as pixels with PDFium (pypdfium2): a page that
the print CSS leaves mostly empty (a lab kept whole and pushed to the next page did that) is
seen as it would be on paper. The controls are read under print media, by role and label.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pytest
from playwright.sync_api import Page, expect

from kvpage.costs import MODE_NAMES
from tests.browser_fixtures import DOCUMENTS
from tests.e2e.test_labs import open_chapter

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)]

FILLED = 0.75
"""How far down every page but the last must be printed: below it a page is mostly blank."""
INK = 200
"""A pixel darker than this (0 black, 255 white) is printed."""


def inked_depth(page: pypdfium2.PdfPage) -> float:
    """How far down ``page`` its last printed row is, as a fraction of its height."""
    bitmap = page.render(scale=0.5, grayscale=True)
    pixels = bytes(bitmap.buffer)
    width = bitmap.width * bitmap.n_channels
    last = max(
        (y for y in range(bitmap.height) if min(pixels[y * bitmap.stride : y * bitmap.stride + width]) < INK),
        default=0,
    )
    return (last + 1) / bitmap.height


def test_no_printed_page_but_the_last_is_mostly_blank(audited: tuple[Page, str], tmp_path: Path) -> None:
    page, url = audited
    open_chapter(page, url)
    printed = tmp_path / "chapter.pdf"
    page.pdf(path=printed, format="A4")
    document = pypdfium2.PdfDocument(printed)
    depths = [inked_depth(document[i]) for i in range(len(document))]
    assert len(depths) > 1, "the chapter printed on one page: nothing to compare"
    for number, depth in enumerate(depths[:-1], 1):
        assert depth >= FILLED, f"page {number} of {len(depths)} is printed only {depth:.0%} of the way down"


def test_controls_print_as_their_values(audited: tuple[Page, str]) -> None:
    page, url = audited
    decode, next_request = open_chapter(page, url)
    decode.get_by_role("radio", name=MODE_NAMES["recompute"]).check()
    request = next_request.get_by_label("Request 2", exact=True)
    words = " ".join(["A request long enough to wrap over many lines of its box."] * 12)
    request.fill(words)
    page.emulate_media(media="print")
    modes = decode.get_by_role("group", name="Mode")
    expect(modes).to_have_text(f"Mode {MODE_NAMES['recompute']}", use_inner_text=True)
    expect(modes.get_by_role("radio")).to_have_count(0)  # no widget: the chosen option's words
    expect(request).to_have_css("border-top-width", "0px")
    clipped = request.evaluate("box => box.scrollHeight - box.clientHeight")
    assert clipped <= 1, f"the printed request hides {clipped} px of its text"
