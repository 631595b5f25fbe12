"""Links learn their line: markdown-it maps blocks to lines, not inline tokens.

A paragraph's inline source keeps its line breaks, so the number of newlines
before the point where a link starts is how many lines into the paragraph it
is. The ``link`` rule is wrapped to record that on its ``link_open`` token, so
a broken link in the fifth line of a paragraph is reported at that line.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token


def line_offset(state: StateInline, position: int) -> int:
    """How many lines into its block ``position`` of the inline source is."""
    return state.src.count("\n", 0, position)


def mark_first(tokens: list[Token], kind: str, offset: int) -> None:
    """Record ``offset`` on the first token of type ``kind`` (pending text may come first)."""
    for token in tokens:
        if token.type == kind:
            token.meta["line_offset"] = offset
            return


def link_lines_plugin(md: MarkdownIt) -> None:
    """Record on each ``link_open`` the line it starts on, relative to its block."""
    rules = dict(zip(md.inline.ruler.get_active_rules(), md.inline.ruler.getRules(""), strict=True))
    link = rules["link"]

    def link_with_line(state: StateInline, silent: bool) -> bool:
        count, start = len(state.tokens), state.pos
        if not link(state, silent):
            return False
        if not silent:
            mark_first(state.tokens[count:], "link_open", line_offset(state, start))
        return True

    md.inline.ruler.at("link", link_with_line)
