"""What search reads of a chapter: its sections, one per ``##``/``###`` anchor, as plain text.

The chapters are parsed by the build's own Markdown (every plugin), so callouts, labs and their
``[[field]]`` numbers are read as the book has them.
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from sitegen import pipeline
from sitegen.book.source import load_source
from sitegen.labs.stage import starting_views
from sitegen.markdown.pages import make_markdown, parse_chapters, render_pages
from sitegen.markdown.plugins.env import new_env
from sitegen.search.text import Section, html_text, sections
from sitegen.site.templates import make_templates
from tests.conftest import EVERY_BOOK, ROOT, BookUnderTest, book_chapters
from tests.pagetext import WORD, prose_runs

pytestmark = pytest.mark.book

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"


@pytest.fixture(scope="module")
def md() -> MarkdownIt:
    return make_markdown({"first": "first.html", "second": "second.html"}, ["square"])


def read(md: MarkdownIt, text: str, title: str = "Title") -> tuple[Section, ...]:
    return sections(md.parse(text, new_env("chapter.md")), title)


def test_each_heading_with_an_anchor_starts_a_section_and_the_opening_is_the_chapters(md: MarkdownIt) -> None:
    text = (
        "Opening words.\n\n## One\n\nFirst *part*.\n\n### One a\n\nDeeper.\n\n#### Too deep\n\nStill one a.\n\n## Two\n"
    )
    assert read(md, text) == (
        Section("", "Title", "Opening words."),
        Section("one", "One", "First part."),
        Section("one-a", "One a", "Deeper. Too deep Still one a."),
        Section("two", "Two", ""),
    )


def test_a_chapter_that_opens_with_a_heading_keeps_its_opening_for_its_title(md: MarkdownIt) -> None:
    assert read(md, "## Start\n\nText.\n", "The title") == (
        Section("", "The title", ""),
        Section("start", "Start", "Text."),
    )


def test_the_front_matter_is_not_text(md: MarkdownIt) -> None:
    found = read(md, "---\nnumber: 1\ntitle: Secret\nslug: s\n---\n\nVisible.\n")
    assert found == (Section("", "Title", "Visible."),)


def test_markup_gives_its_text_never_its_tags(md: MarkdownIt) -> None:
    text = (
        'Inline <span class="x">raw</span> and `code` and ![a cat](cat.png) and [a link](https://example.org).\n\n'
        '<div title="hidden attribute">Block <b>html</b><script>var notText = 1;</script><style>p{}</style></div>\n\n'
        "```python\nprint('a fence')\n```\n\n    indented code\n"
    )
    (opening,) = read(md, text)
    assert opening.text == ("Inline raw and code and a cat and a link. Block html print('a fence') indented code")


def test_html_text_skips_scripts_and_styles_even_unclosed() -> None:
    assert html_text("<p>a<script>b</script>c<style>d") == "a c"


def test_a_heading_reads_as_plain_text(md: MarkdownIt) -> None:
    (_, heading) = read(md, "## The *KV* `cache` and [links](x.html)\n")
    assert heading.heading == "The KV cache and links"


def test_the_two_chapter_book(md: MarkdownIt) -> None:
    """Callouts are their section's words; a lab's prose is, with its fields as the numbers the page
    shows, and the lab's controls (its template) are not."""
    first, second = book_chapters(BOOK)
    found = read(md, first.text, first.meta.title)
    assert [section.heading for section in found] == [
        "First steps",
        "Setting out",
        "A detail worth a heading",
        "Onwards",
    ]
    assert found[-1].text == "Keep this: a prompt of n tokens costs n² cells to prefill."

    chapters = parse_chapters(load_source(BOOK), ["square"])
    pages = render_pages(chapters, starting_views(chapters.placements), make_templates(ROOT / "site_template"))
    page = next(page for page in pages.pages if page.source.path == second.path)
    body = page.body
    shown = dict(re.findall(r'<output class="lab-field" data-field="(\w+)" aria-live="off">([^<]*)</output>', body))
    assert shown["tokens"] and shown["cells"]
    lab = next(section for section in page.sections if section.anchor == "lab--the-square")
    assert lab.heading == "Lab · the square"
    assert lab.text == (
        f"A cold prefill of {shown['tokens']} tokens pays {shown['cells']} cells: every token against every token "
        "before it."
    )
    assert "Cells a cold prefill pays" in body and "Cells a cold prefill pays" not in lab.text


def found_in_order(runs: list[list[str]], words: list[str]) -> list[str] | None:
    """The first run that is not, word for word, in ``words`` after the run before it (None: all are)."""
    position = 0
    for run in runs:
        width = len(run)
        found = next((at for at in range(position, len(words) - width + 1) if words[at : at + width] == run), None)
        if found is None:
            return run
        position = found + width
    return None


@EVERY_BOOK
def test_every_chapter_of_the_book_has_its_text_found(book_under_test: BookUnderTest) -> None:
    """Every word of every chapter's prose, as the build rendered it (read by an HTML parser), is in
    its sections, in the page's order and with the words the page keeps together kept together,
    whatever Markdown the chapter uses: a formula, a table's caption, a callout, a lab's prose (the
    added-chapter book's "Memory" uses every construct docs/authoring.md documents)."""
    rendered = pipeline.render(pipeline.Options(content=book_under_test.content))
    for page in rendered.pages.pages:
        words = WORD.findall(" ".join(f"{section.heading} {section.text}" for section in page.sections))
        runs = prose_runs(page.body)
        assert runs, page.source.path
        assert found_in_order(runs, words) is None, (page.source.path, found_in_order(runs, words))


def test_raw_html_around_markdown_keeps_both(md: MarkdownIt) -> None:
    """An html block an author left open does not swallow what follows it into its tags."""
    text = "<details><summary>More</summary>\n\nInside.\n\n</details>\n\n## After\n\nOutside.\n"
    assert read(md, text) == (Section("", "Title", "More Inside."), Section("after", "After", "Outside."))
