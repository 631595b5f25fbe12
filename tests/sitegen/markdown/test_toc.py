"""The table of contents: ``##`` headings in order, ``###`` nested, ids as the anchors plugin made them."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from sitegen.markdown.plugins.formulas import formulas_plugin
from sitegen.markdown.toc import Entry, table_of_contents


def toc(markdown: str) -> tuple[Entry, ...]:
    md = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=3)
    return table_of_contents(md.parse(markdown))


def test_level_three_nests_under_the_level_two_before_it() -> None:
    text = "# Title\n\n## One\n\n### One a\n\n### One b\n\n## Two\n\n#### Too deep\n"
    assert toc(text) == (
        Entry("one", "One", (Entry("one-a", "One a"), Entry("one-b", "One b"))),
        Entry("two", "Two"),
    )


def test_a_level_three_before_any_level_two_stands_on_its_own() -> None:
    assert toc("### Early\n\n## Later\n") == (Entry("early", "Early"), Entry("later", "Later"))


def test_entries_are_plain_text_without_markup() -> None:
    assert toc("## The *KV* `cache` and [links](x.html) <b>tags</b>\n") == (
        Entry("the-kv-cache-and-links-tags", "The KV cache and links tags"),
    )


def test_a_formula_in_a_heading_is_its_tex() -> None:
    md = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=3).use(formulas_plugin)
    assert table_of_contents(md.parse("## Why $n^2$ cells\n")) == (Entry("why--cells", "Why n^2 cells"),)


def test_a_chapter_without_headings_has_no_contents() -> None:
    assert toc("Just a paragraph.\n") == ()
