"""Every block of a chapter reaches its page: its headings and labs, counted in the Markdown and in the HTML.

markdown-it drops what it cannot parse without a word (blocks nested past its limit: a list nested ten
deep removed the rest of its chapter, labs included; issue 34). The build's nesting plugin
(``sitegen/markdown/plugins/nesting.py``) lets blocks nest far deeper and reports what would still be
dropped as an error at its line, so a book that renders without errors has every block in its tokens;
here the tokens' headings and labs are counted again in the page, so that a stage after the parser
(the labs', the pages') that loses one is caught. The Markdown is counted by markdown-it, the build's
own, never line by line: a ``#`` in an indented code block or a formula is no heading, and a Setext
heading is one (issue 46). Every fixture book is counted (``tests/books/*``, ``deep-nesting`` the case
above), and the real book. The pages are rendered as the build renders them, labs' starting views
included (one model process a book), without the runtime stage: the HTML of a chapter is its page's body.
"""

from __future__ import annotations

from collections.abc import Sequence
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it.token import Token

from sitegen.book.assets import load_assets
from sitegen.book.source import load_book, load_source
from sitegen.labs.discovery import enabled_labs
from sitegen.labs.stage import lab_stage
from sitegen.markdown.pages import Pages, parse_chapters, render_pages
from sitegen.site.assemble import static_names
from sitegen.site.templates import make_templates
from tests.conftest import ROOT

BOOKS = [*sorted((ROOT / "tests" / "books").glob("*/content")), ROOT / "content"]


def in_markdown(tokens: Sequence[Token]) -> tuple[int, int]:
    """(headings, labs) in a chapter's tokens, as the build's Markdown parsed it."""
    headings = sum(token.type == "heading_open" for token in tokens)
    return headings, sum(token.type == "container_lab_open" for token in tokens)


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


def rendered(content: Path) -> tuple[Pages, dict[str, Sequence[Token]]]:
    """The book's pages as the build renders them (stages source to pages), failing on any error, and
    each chapter's tokens by its path."""
    book, errors = load_book(content / "book.toml", "content/book.toml")
    assert book is not None, errors
    source = load_source(content)
    templates = make_templates(ROOT / "site_template")
    chapters = parse_chapters(source, book.experimental_labs)
    labs = lab_stage(chapters.placements, enabled_labs(book.experimental_labs), ROOT, book.build_timeout, book.sweep)
    static = frozenset(static_names(templates.folder / "static"))
    pages = render_pages(chapters, labs, templates, static, load_assets(content))
    assert [*source.errors, *labs.errors, *pages.errors] == []
    return pages, {chapter.path: chapter.tokens for chapter in chapters.listed}


@pytest.mark.parametrize("content", BOOKS, ids=[path.parent.name for path in BOOKS])
def test_every_heading_and_lab_of_every_chapter_reaches_its_page(content: Path) -> None:
    pages, tokens = rendered(content)
    assert pages.pages
    for page in pages.pages:
        counted = in_markdown(tokens[page.source.path])
        assert counted[0] > 0, page.source.path
        assert in_html(page.body) == counted, page.source.path
