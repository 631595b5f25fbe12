"""Ids: prefixed per chapter for the single-file book, repeated ones reported at both lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from sitegen.book.source import ChapterSource, FrontMatter
from sitegen.markdown.ids import (
    REFERRING,
    _StartTags,
    duplicate_ids,
    element_ids,
    id_prefixer,
    ids_around,
    marked_tags,
    prefix_toc,
    referring_tags,
    rewrite_tags,
    single_file_clashes,
    template_line,
)
from sitegen.markdown.toc import Entry

CHAPTERS = {"cache.html": "cache", "intro.html": "intro"}


def prefix_ids(body: str, slug: str, chapters: dict[str, str]) -> str:
    """A chapter's HTML as the single file holds it: its tags that refer, rewritten (sitegen.site.assemble)."""
    return rewrite_tags(body, referring_tags(body), id_prefixer(slug, chapters))[0]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('<h2 id="set-up">Set-up</h2>', '<h2 id="cache--set-up">Set-up</h2>'),
        ('<label for="x-tokens">T</label>', '<label for="cache--x-tokens">T</label>'),
        ('<section aria-labelledby="a b">', '<section aria-labelledby="cache--a cache--b">'),
        ('<span data-shows="x-prompt">', '<span data-shows="cache--x-prompt">'),
        ('<a href="#set-up">', '<a href="#cache--set-up">'),
        ('<a href="#caf%C3%A9">', '<a href="#cache--caf%C3%A9">'),
        ('<a href="intro.html#how">', '<a href="#intro--how">'),
        ('<a href="intro.html">', '<a href="#intro">'),
        ('<a href="cache.html#set-up">', '<a href="#cache--set-up">'),
        ('<input type="radio" name="x-mode" value="kv">', '<input type="radio" name="cache--x-mode" value="kv">'),
        ("<input type=radio id=r>", '<input type="radio" id="cache--r">'),
        ('<img id="i"/>', '<img id="cache--i"/>'),
        ('<output form="f" for="a">', '<output form="cache--f" for="cache--a">'),
        ('<a href="#fn1" id="fnref1">[1]</a>', '<a href="#cache--fn1" id="cache--fnref1">[1]</a>'),
    ],
)
def test_ids_and_what_refers_to_them_are_prefixed(before: str, after: str) -> None:
    assert prefix_ids(before, "cache", CHAPTERS) == after


@pytest.mark.parametrize(
    "kept",
    [
        '<a href="#">top</a>',
        '<a href="https://example.org/#x">out</a>',
        '<a href="static/kvpage.css#x">file</a>',
        '<a href="other.html#x">not a chapter</a>',
        '<input type="text" name="query">',
        '<p class="x"  data-params="{&quot;a&quot;: 1}">unchanged bytes</p>',
        '<script type="application/json">{"id": "<b id=\\"x\\">"}</script>',
        "<pre><code>&lt;h2 id=&quot;x&quot;&gt;</code></pre>",
        '<!-- <h2 id="x"> -->',
        '<math><mo form="prefix" fence="true">(</mo><mi>x</mi><mo form="postfix">)</mo></math>',
    ],
)
def test_everything_else_is_kept_byte_for_byte(kept: str) -> None:
    assert prefix_ids(kept, "cache", CHAPTERS) == kept


def test_an_attribute_value_is_escaped_again_when_its_tag_is_rebuilt() -> None:
    before = '<section data-params="{&quot;a&quot;: &quot;&lt;b&gt;&quot;}" aria-labelledby="h">'
    after = prefix_ids(before, "cache", CHAPTERS)
    assert after == '<section data-params="{&quot;a&quot;: &quot;&lt;b&gt;&quot;}" aria-labelledby="cache--h">'


def test_element_ids_are_those_of_elements_only() -> None:
    text = '<h2 id="a">x</h2><script>const s = "<p id=\\"b\\">";</script><p id="a">y</p><!-- <i id="c"> -->'
    assert element_ids(text) == ["a", "a"]


def test_the_table_of_contents_points_at_the_prefixed_headings() -> None:
    toc = (Entry("a", "A", (Entry("b", "B"),)), Entry("c", "C"))
    assert prefix_toc(toc, "cache") == (Entry("cache--a", "A", (Entry("cache--b", "B"),)), Entry("cache--c", "C"))


MD = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=3)


def test_a_repeated_id_is_reported_at_both_lines() -> None:
    text = '## Notes\n\nText with <span id="notes">an id</span>.\n\n## Notes\n\n<div id="x"></div>\n<p id="x"></p>\n'
    tokens = MD.parse(text)
    body = MD.renderer.render(tokens, MD.options, {})
    assert [str(error) for error in duplicate_ids(MD, tokens, body, "x.md")] == [
        "x.md:3: id 'notes' is used twice on the page (first at x.md:1)",
        "x.md:7: id 'x' is used twice on the page (first at x.md:7)",
    ]


def test_headings_of_the_same_text_are_not_a_repeat() -> None:
    tokens = MD.parse("## Notes\n\n## Notes\n")
    assert duplicate_ids(MD, tokens, MD.renderer.render(tokens, MD.options, {}), "x.md") == []


def test_a_slug_that_is_an_id_of_the_template_names_both_places(tmp_path: Path) -> None:
    (tmp_path / "single.html").write_text('<html>\n<script id="kvpage-config"></script>\n', encoding="utf-8")
    chapter = ChapterSource("content/x.md", "", FrontMatter(1, "P", "T", "kvpage-config", {"slug": 5}))
    page = '<script id="kvpage-config"></script><article id="kvpage-config"></article><p id="a"></p>'
    assert [str(error) for error in single_file_clashes(element_ids(page), {"kvpage-config": chapter}, tmp_path)] == [
        f"content/x.md:5: slug 'kvpage-config' is also the id of an element at {tmp_path.name}/single.html:2, "
        "which the single-file book holds too"
    ]
    twice = '<script id="kvpage-config"></script><p id="kvpage-config"></p>'
    assert [str(error) for error in single_file_clashes(element_ids(twice), {}, tmp_path)] == [
        f"{tmp_path.name}/single.html:2: id 'kvpage-config' is used 2 times in the single-file book"
    ]
    assert template_line(tmp_path, "nowhere") == tmp_path.name


HIGHLIGHTED = '<span class="k">def</span> <span class="nf">paid</span>(<span class="n">n</span>):\n' * 12
"""A run of highlighted code, long enough to be skipped (sitegen.markdown.ids.PLAIN_RUN)."""


@pytest.mark.parametrize(
    "fragment",
    [
        f'<h2 id="a">A</h2><pre>{HIGHLIGHTED}</pre><a href="#a">up</a>',
        f'<script>{HIGHLIGHTED}<p id="in-script"></script>{HIGHLIGHTED}<h2 id="after">',
        f'<style>{HIGHLIGHTED}<p id="in-style"></style><p id="s">',
        f'<!-- {HIGHLIGHTED} <p id="in-comment"> -->{HIGHLIGHTED}<p id="c">',
        f"<a title='{HIGHLIGHTED}' id=x>{HIGHLIGHTED}<b id=y>",
        f'<a title="x" {HIGHLIGHTED}<p id="z">',
        f'{HIGHLIGHTED}<input type="radio" name="m">{HIGHLIGHTED}<label for="m">',
        '<svg viewBox="0 0 9 9" aria-hidden="true">' + '<line x1="0" y1="1" x2="2" y2="3"/>' * 20 + '<p ID="up">',
        f'<p class="x">{HIGHLIGHTED}<span class="k" id="marked">{HIGHLIGHTED}<SPAN CLASS="k" ID="upper">',
        f"{HIGHLIGHTED}<p",
    ],
)
def test_the_tags_that_refer_are_found_as_a_whole_parse_finds_them(fragment: str) -> None:
    """Long runs of plain tags are skipped, never a tag with an id or a link, in a script, a comment or
    an attribute value too."""
    every = _StartTags(fragment).tags
    assert referring_tags(fragment) == tuple(tag for tag in every if any(name in REFERRING for name, _ in tag[3]))
    assert element_ids(fragment) == [value for *_, attrs in every for name, value in attrs if name == "id" and value]


def test_a_single_file_check_reads_the_chapters_it_knows_no_more() -> None:
    chapter = f'{HIGHLIGHTED}<p id="cache--a">'
    made: list[str] = []

    def make() -> str:
        made.append(chapter)
        return chapter

    around = ['<main id="top"><article id="cache">', '</article></main><p id="top">']
    page = chapter.join(around)
    assert ids_around(around, [(make, ["cache--a"])]) == element_ids(page) == ["top", "cache", "cache--a", "top"]
    assert made == []  # known between two tags: not made, not read
    script = ["<script>", "</script>"]
    assert ids_around(script, [(make, ["cache--a"])]) == element_ids(chapter.join(script)) == []
    assert made == [chapter]  # inside a script: read as the page holds it


def test_highlighted_code_is_not_parsed_tag_by_tag() -> None:
    page = f'<h2 id="a">A</h2><pre>{HIGHLIGHTED}</pre><a href="#a">up</a>'
    assert [tag for _, _, tag, _ in marked_tags(page)] == ["h2", "a"]
