"""Inline tokens are reported at their own line, not their paragraph's first line."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from sitegen.markdown.plugins.env import line_of
from sitegen.markdown.plugins.lines import inline_lines_plugin

TEXT = """Intro line.

A paragraph [first](a.html)
with `a code
span` and [second](b.html) and
[third][ref] on its last line.

> Quoted
> [fourth](c.html)

- item
  - nested [fifth](d.html)

[ref]: e.html
"""


def link_lines(tokens: list[Token]) -> dict[str, int]:
    found: dict[str, int] = {}
    for block in tokens:
        for child in block.children or []:
            if child.type == "link_open":
                found[str(child.attrs["href"])] = line_of(block, child)
    return found


def test_each_link_knows_its_line() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin)
    assert link_lines(md.parse(TEXT)) == {"a.html": 3, "b.html": 5, "e.html": 6, "c.html": 9, "d.html": 12}


def test_the_rendered_html_is_unchanged() -> None:
    assert MarkdownIt("commonmark").use(inline_lines_plugin).render(TEXT) == MarkdownIt("commonmark").render(TEXT)
