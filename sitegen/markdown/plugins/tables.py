"""GFM tables (markdown-it's own ``table`` rule) made to fit the page: aligned by class, scrolling in a labelled box.

The page's Content-Security-Policy allows no inline style, so alignment becomes a class, and a wide
table scrolls in a named region of its own, never the page; the caption is written as Pandoc writes
one (:data:`ALIGN`, :func:`tables_plugin`, :func:`as_caption`).
"""

from __future__ import annotations

import html
from collections.abc import MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from sitegen.markdown.toc import plain_text

CAPTION = "Table:"
ALIGN = "text-align:"
"""What markdown-it writes for a column's alignment.

markdown-it writes a column's alignment (``|---:|``) as ``style="text-align:right"``; the
page's Content-Security-Policy allows no inline style, so it becomes a class
(``align-right``), which ``kvpage.css`` styles.
"""
CELLS = ("th_open", "td_open")


def caption_at(tokens: Sequence[Token], start: int, level: int) -> bool:
    """Whether ``tokens[start:start + 3]`` is a paragraph at ``level`` that starts with ``Table:``."""
    if start < 0 or start + 2 >= len(tokens):
        return False
    opening, inline = tokens[start], tokens[start + 1]
    return (
        opening.type == "paragraph_open"
        and opening.level == level
        and inline.type == "inline"
        and inline.content.startswith(CAPTION)
    )


def as_caption(paragraph: list[Token], ident: str) -> list[Token]:
    """The three tokens of a ``Table: …`` paragraph as a ``<caption id=…>`` without the prefix.

    A caption is written as Pandoc writes one: a paragraph right before or right after the
    table that starts with ``Table:``. It becomes the table's ``<caption>`` (Markdown in it
    included) and names the region.
    """
    opening, inline, _closing = paragraph
    inline.content = inline.content[len(CAPTION) :].lstrip()
    first = inline.children[0] if inline.children else None
    if first is not None and first.type == "text":
        first.content = first.content[len(CAPTION) :].lstrip()
    level = opening.level + 1
    caption_open = Token("caption_open", "caption", 1, attrs={"id": ident}, map=opening.map, level=level, block=True)
    inline.level = level + 1
    return [caption_open, inline, Token("caption_close", "caption", -1, level=level, block=True)]


def tables_plugin(md: MarkdownIt) -> None:
    """Enable GFM tables: alignment as classes, a caption from ``Table: …``, a scrolling, named region.

    A table wider than the column scrolls inside its own box, never the page. The box is a
    region a keyboard can reach (``tabindex="0"``: arrow keys then scroll it), and a region
    needs a name: the table's caption, if it has one, else the heading the table sits under.
    """
    md.enable("table")

    def arrange(state: StateCore) -> None:
        tokens = state.tokens
        heading = ""
        names: dict[str, int] = {}
        count = 0
        index = 0
        while index < len(tokens):
            token = tokens[index]
            if token.type == "heading_open" and index + 1 < len(tokens):
                heading = plain_text(tokens[index + 1])
            elif token.type in CELLS and str(token.attrs.get("style", "")).startswith(ALIGN):
                token.attrSet("class", f"align-{str(token.attrs.pop('style'))[len(ALIGN) :]}")
            if token.type != "table_open":
                index += 1
                continue
            count += 1
            close = next(i for i in range(index, len(tokens)) if tokens[i].type == "table_close")
            ident = f"table-caption-{count}"
            caption: list[Token] = []
            if caption_at(tokens, close + 1, token.level):
                caption = as_caption(tokens[close + 1 : close + 4], ident)
                del tokens[close + 1 : close + 4]
            elif caption_at(tokens, index - 3, token.level):
                caption = as_caption(tokens[index - 3 : index], ident)
                del tokens[index - 3 : index]
                index -= 3
            if caption:
                tokens[index + 1 : index + 1] = caption
                token.meta["labelledby"] = ident
            else:
                name = heading or "Table"
                names[name] = names.get(name, 0) + 1
                token.meta["label"] = name if names[name] == 1 else f"{name} ({names[name]})"
            index += 1

    def render_table_open(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        meta = tokens[idx].meta
        if "labelledby" in meta:
            name = f'aria-labelledby="{html.escape(meta["labelledby"])}"'
        else:
            name = f'aria-label="{html.escape(str(meta.get("label", "Table")))}"'
        return f'<div class="table-scroll" role="region" {name} tabindex="0">\n<table>\n'

    def render_table_close(*_args: object) -> str:
        return "</table>\n</div>\n"

    md.core.ruler.push("tables", arrange)
    md.add_render_rule("table_open", render_table_open)
    md.add_render_rule("table_close", render_table_close)
