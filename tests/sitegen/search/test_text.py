"""What search reads of a chapter: its sections, one per ``##``/``###`` anchor, as plain text.

The chapters are parsed by the build's own Markdown (every plugin), so callouts, labs and their
``[[field]]`` numbers are read as the book has them.
"""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from sitegen.book.source import load_source
from sitegen.labs.placements import starting_views
from sitegen.markdown.pages import make_markdown, parse_chapters, render_pages
from sitegen.markdown.plugins.env import new_env
from sitegen.search.text import Section, html_text, sections
from sitegen.site.templates import make_templates
from tests.conftest import ROOT, book_chapters

pytestmark = pytest.mark.book

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"
TABLE_RULE = re.compile(r"\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*\Z")
"""A table's delimiter row (``| --- | :-: |``): markup, no words."""


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


def test_every_chapter_of_the_book_has_its_text_found(md: MarkdownIt) -> None:
    """Every paragraph of the real chapter is in one of its sections, whatever Markdown it uses."""
    for chapter in book_chapters():
        found = " ".join(f"{section.heading} {section.text}" for section in read(md, chapter.text, chapter.meta.title))
        found = re.sub(r"[\[\]]", "", found)  # as the lines below lose a link's brackets, so does code's text
        body = chapter.text.split("---", 2)[2]
        for line in body.splitlines():
            if TABLE_RULE.match(line) or line.lstrip().startswith(("```", "~~~")):
                continue
            plain = re.sub(r"\*\*|\[\[\w+\]\]|\(chapter:[^)]*\)|\[\^\w+\]:?|[\[\]]", "", line).strip()
            if plain and not plain.startswith(":::") and not plain.startswith("#"):
                # A table row's cells are read one by one, like the runs of spaces that part words.
                for piece in re.split(r"\s{2,}|\s*\|\s*", plain):
                    assert not piece or " ".join(piece.split()[:3]) in found, (chapter.path, piece)


def test_raw_html_around_markdown_keeps_both(md: MarkdownIt) -> None:
    """An html block an author left open does not swallow what follows it into its tags."""
    text = "<details><summary>More</summary>\n\nInside.\n\n</details>\n\n## After\n\nOutside.\n"
    assert read(md, text) == (Section("", "Title", "More Inside."), Section("after", "After", "Outside."))
