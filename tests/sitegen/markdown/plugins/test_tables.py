"""Tables: alignment as classes, a caption from ``Table:``, each in a scrolling region with a name."""

from __future__ import annotations

from markdown_it import MarkdownIt

from sitegen.markdown.plugins.tables import tables_plugin

TABLE = "| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n"


def render(text: str) -> str:
    return MarkdownIt("commonmark").use(tables_plugin).render(text)


def test_alignment_is_a_class_not_a_style() -> None:
    html = render(TABLE)
    assert '<th class="align-left">a</th>\n<th class="align-center">b</th>\n<th class="align-right">c</th>' in html
    assert '<td class="align-right">3</td>' in html
    assert "style=" not in html


def test_a_caption_after_or_before_the_table_names_its_region() -> None:
    for text in (f"{TABLE}\nTable: Costs *by* step.\n", f"Table: Costs *by* step.\n\n{TABLE}"):
        html = render(text)
        assert html.startswith(
            '<div class="table-scroll" role="region" aria-labelledby="table-caption-1" tabindex="0">\n<table>\n'
            '<caption id="table-caption-1">Costs <em>by</em> step.</caption>\n<thead>'
        ), html
        assert html.endswith("</table>\n</div>\n")
        assert "Table:" not in html


def test_without_a_caption_the_heading_above_names_it() -> None:
    html = render(f"## Costs\n\n{TABLE}\n{TABLE}\n### More\n\n{TABLE}")
    labels = [line for line in html.splitlines() if line.startswith('<div class="table-scroll"')]
    assert labels == [
        '<div class="table-scroll" role="region" aria-label="Costs" tabindex="0">',
        '<div class="table-scroll" role="region" aria-label="Costs (2)" tabindex="0">',
        '<div class="table-scroll" role="region" aria-label="More" tabindex="0">',
    ]
    assert render(TABLE).startswith('<div class="table-scroll" role="region" aria-label="Table" tabindex="0">')


def test_a_paragraph_that_merely_mentions_a_table_is_not_a_caption() -> None:
    html = render(f"{TABLE}\nThe table: above.\n\nTable: is a word in a list\n\n- item\n")
    assert "<caption" not in html
    assert "<p>Table: is a word in a list</p>" in html
