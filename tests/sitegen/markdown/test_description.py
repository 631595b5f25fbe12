"""The meta description: the chapter's lede, as plain text, cut at a word when long."""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt

from sitegen.markdown.description import LIMIT, description
from tests.conftest import Built, book_chapters


def described(markdown: str) -> str:
    md = MarkdownIt("commonmark").enable("table")
    return description(md.parse(markdown))


def test_the_lede_is_the_paragraph_before_the_first_heading_as_plain_text() -> None:
    text = "Keys are *kept*, not\n[recomputed](x.html): `O(n)`.\n\n## Later\n\nNot this.\n"
    assert described(text) == "Keys are kept, not recomputed: O(n)."


def test_without_an_opening_paragraph_the_first_paragraph_serves() -> None:
    assert described("## First\n\nThe first words.\n\nMore.\n") == "The first words."
    assert described("## Only a heading\n") == ""


def test_a_long_lede_is_cut_at_a_word() -> None:
    words = " ".join(["cache"] * 200)
    cut = described(words)
    assert len(cut) <= LIMIT and cut.endswith("cache…") and "  " not in cut


def test_every_chapter_page_describes_itself_with_its_lede(built: Built) -> None:
    for chapter in book_chapters():
        page = built.files[f"{chapter.meta.slug}.html"].decode("utf-8")
        (meta,) = re.findall(r'<meta name="description" content="([^"]*)">', page)
        # The first paragraph of the chapter's article, as the reader sees it, without its markup.
        article = page[page.index('<article class="chapter">') :]
        first = re.search(r"<p>(.*?)</p>", article[article.index("</header>") :], re.DOTALL)
        assert first is not None
        shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", first[1])).strip()
        assert meta, f"{chapter.path}: no description"
        assert html.unescape(meta) == html.unescape(shown)
    index = built.files["index.html"].decode("utf-8")
    assert re.search(r'<meta name="description" content="[^"]+">', index)
