"""The chapter printed and without JavaScript, in Chromium.

Printed from the page as a reader has it (Python live), to a PDF by the browser's own print
layout (``page.pdf``), whose pages are read back as pixels and text with PDFium (pypdfium2): at
most MAX_PAGES A4 pages, none but the last mostly empty (a lab kept whole and pushed to the next
page did that), the labs' Python left out (it was ten of eighteen pages) with a line naming its
files, and the closing prose right after the labs. The controls and the token rows are read under
print media, by role and label: controls as their values, every token inside its rows. Without
JavaScript each lab says that its numbers are the chapter's starting values and that exploring
needs JavaScript.

The two tests with Python live share one page a document (``one_page``), each starting from a link
to the chapter's values: what prints is what the page shows, however it came to show it.
"""

from __future__ import annotations

from pathlib import Path

import pypdfium2
import pytest
from playwright.sync_api import Browser, Page, expect

from kvpage.costs import MODE_NAMES
from tests.browser_fixtures import DOCUMENTS, Where
from tests.chapter_labs import DECODE, NEXT
from tests.e2e.conftest import audit_page
from tests.e2e.test_links import at_the_chapters_values

pytestmark = pytest.mark.e2e
on_each_document = pytest.mark.parametrize("one_page", DOCUMENTS, indirect=True)

FILLED = 0.75
"""How far down every page but the last must be printed: below it a page is mostly blank."""
INK = 200
"""A pixel darker than this (0 black, 255 white) is printed."""
MAX_PAGES = 8
"""The chapter on paper, A4 (issue 45): its prose, its figure and both labs as the reader left them."""


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


def words(text: str) -> str:
    """``text`` with its whitespace (a PDF's line breaks among it) made single spaces."""
    return " ".join(text.split())


def printed_page(pages: list[str], text: str) -> int:
    """The number of the first of ``pages`` (their words) on which ``text`` begins."""
    start = " ".join(words(text).split()[:6])
    return next(number for number, page in enumerate(pages, 1) if start in page)


@on_each_document
def test_the_chapter_prints_on_at_most_8_pages_none_mostly_blank_without_its_python(
    on_one_page: tuple[Page, str], tmp_path: Path
) -> None:
    page, url = on_one_page
    decode, _ = at_the_chapters_values(page, url)
    printed = tmp_path / "chapter.pdf"
    page.emulate_media(media="print")  # the shared page was set to screen, which page.pdf would then print
    page.pdf(path=printed, format="A4")
    document = pypdfium2.PdfDocument(printed)
    depths = [inked_depth(document[i]) for i in range(len(document))]
    assert 1 < len(depths) <= MAX_PAGES, f"the chapter printed on {len(depths)} pages"
    for number, depth in enumerate(depths[:-1], 1):
        assert depth >= FILLED, f"page {number} of {len(depths)} is printed only {depth:.0%} of the way down"
    pages = [words(document[i].get_textpage().get_text_range()) for i in range(len(document))]
    whole = " ".join(pages)
    sources = page.locator("figure[data-file]")
    defined = [line for code in sources.locator("pre").all_text_contents() for line in code.splitlines()]
    assert [line for line in defined if line.startswith("def ") and words(line) in whole] == []
    for path in set(sources.evaluate_all("files => files.map((file) => file.dataset.file)")):
        assert path in whole, f"the printed chapter does not say where {path} is"
    labs = decode.locator("xpath=ancestor::article[1]").locator("section.lab")  # this chapter's, in any book
    last_words = labs.last.locator(".figure-text").last.text_content()
    closing = labs.last.evaluate("(lab) => lab.nextElementSibling.textContent")
    assert last_words and closing
    assert printed_page(pages, closing) - printed_page(pages, last_words) <= 1, "the closing prose is far from the labs"


@on_each_document
def test_controls_print_as_their_values(on_one_page: tuple[Page, str]) -> None:
    page, url = on_one_page
    decode, next_request = at_the_chapters_values(page, url)
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
    rows = next_request.get_by_role("group", name="Tokens of both requests, position by position")
    cut = rows.evaluate(
        """(rows) => {
          const edge = rows.getBoundingClientRect().right;
          return [...rows.querySelectorAll(".chip")].filter((chip) => chip.getBoundingClientRect().right > edge + 1)
            .map((chip) => chip.textContent);
        }"""
    )
    assert cut == [], f"{len(cut)} printed tokens are cut off at the edge of their rows"


@pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)
def test_without_javascript_each_lab_says_its_numbers_are_the_starting_values(
    browser: Browser, site_url: Where
) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        with audit_page(page, site_url.origin):
            page.goto(site_url.chapter)
            for name in (DECODE, NEXT):
                lab = page.get_by_role("region", name=name)
                said = lab.get_by_role("status").filter(has_text="starting values")
                expect(said).to_contain_text("the chapter’s starting values")
                expect(said).to_contain_text("needs JavaScript")
                expect(lab).not_to_contain_text("wake up")
    finally:
        context.close()
