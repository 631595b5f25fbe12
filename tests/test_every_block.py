"""Every block of a chapter reaches its page: its headings and labs, counted in the Markdown and in the HTML.

markdown-it drops what it cannot parse without a word (blocks nested past its limit: a list nested ten
deep removed the rest of its chapter, labs included; issue 34). The Markdown side here is counted line
by line, not by markdown-it, so that a block the parser drops is missed on one side only: an ATX
heading (``## …``) or a lab's opening (``::: lab …``) outside fenced code, after any quote and list
markers. Every fixture book is counted (``tests/books/*``, ``deep-nesting`` the case above), and the
real book. The pages are rendered as the build renders them, labs' starting views included (one model
process a book), without the runtime stage: the HTML of a chapter is its page's body.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sitegen.book.assets import load_assets
from sitegen.book.source import load_book, load_source
from sitegen.labs.placements import enabled_labs, lab_stage
from sitegen.markdown.pages import Pages, parse_chapters, render_pages
from sitegen.site.assemble import static_names
from sitegen.site.templates import make_templates
from tests.conftest import ROOT

BOOKS = [*sorted((ROOT / "tests" / "books").glob("*/content")), ROOT / "content"]
PREFIX = re.compile(r"(?:[ \t]*(?:>|[-*+](?=[ \t])|[0-9]{1,9}[.)](?=[ \t])))*[ \t]*")
"""What may stand before a block on its line: indentation, quote markers and list markers."""
FENCE = re.compile(r"(`{3,}|~{3,})")
HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
LAB = re.compile(r":{3,}[ \t]*lab(?:[ \t]|$)")


def in_markdown(text: str) -> tuple[int, int]:
    """(headings, labs) in a chapter's Markdown, front matter and fenced code left out."""
    lines = text.split("\n")
    closer = next(number for number in range(1, len(lines)) if lines[number].strip() in ("---", "..."))
    headings = labs = 0
    fence = ""
    for line in lines[closer + 1 :]:
        block = PREFIX.sub("", line, count=1)  # the pattern matches at the start, if only ""
        opened = FENCE.match(block)
        if fence:
            marker = opened.group(1) if opened else ""
            closes = marker[:1] == fence[0] and len(marker) >= len(fence) and not block[len(marker) :].strip()
            fence = "" if closes else fence
        elif opened:
            fence = opened.group(1)
        else:
            headings += bool(HEADING.match(block))
            labs += bool(LAB.match(block))
    return headings, labs


class Counter(HTMLParser):
    """Headings and lab regions in a page's HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.headings = self.labs = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.headings += tag in ("h1", "h2", "h3", "h4", "h5", "h6")
        self.labs += tag == "section" and "data-lab" in dict(attrs)


def in_html(body: str) -> tuple[int, int]:
    counter = Counter()
    counter.feed(body)
    counter.close()
    return counter.headings, counter.labs


def rendered(content: Path) -> Pages:
    """The book's pages as the build renders them (stages source to pages), failing on any error."""
    book, errors = load_book(content / "book.toml", "content/book.toml")
    assert book is not None, errors
    source = load_source(content)
    templates = make_templates(ROOT / "site_template")
    chapters = parse_chapters(source, book.experimental_labs)
    labs = lab_stage(chapters.placements, enabled_labs(book.experimental_labs), ROOT, book.build_timeout, book.sweep)
    static = frozenset(static_names(templates.folder / "static"))
    pages = render_pages(chapters, labs, templates, static, load_assets(content))
    assert [*source.errors, *labs.errors, *pages.errors] == []
    return pages


@pytest.mark.parametrize("content", BOOKS, ids=[path.parent.name for path in BOOKS])
def test_every_heading_and_lab_of_every_chapter_reaches_its_page(content: Path) -> None:
    pages = rendered(content)
    assert pages.pages
    for page in pages.pages:
        counted = in_markdown(page.source.text)
        assert counted[0] > 0, page.source.path
        assert in_html(page.body) == counted, page.source.path
