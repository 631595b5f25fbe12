"""Inline tokens learn their line: markdown-it maps blocks to lines, not inline tokens.

So that a broken link, an image without alt text or bad TeX in the fifth line of a paragraph is
reported at that line, the rules that make them are wrapped to record it (:func:`inline_lines_plugin`).
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

InlineRule = Callable[[StateInline, bool], bool]
WRAPPED = {"link": "link_open", "image": "image", "math_inline": "math_inline", "html_inline": "html_inline"}
"""Inline rule → the token whose line it records (a rule the parser lacks is skipped)."""


def line_offset(state: StateInline, position: int) -> int:
    """How many lines into its block ``position`` of the inline source is."""
    return state.src.count("\n", 0, position)


def mark_first(tokens: list[Token], kind: str, offset: int) -> None:
    """Record ``offset`` on the first token of type ``kind`` (pending text may come first)."""
    for token in tokens:
        if token.type == kind:
            token.meta["line_offset"] = offset
            return


def recording(rule: InlineRule, kind: str) -> InlineRule:
    """``rule``, recording on the first ``kind`` token it makes how many lines into its block it starts."""

    def with_line(state: StateInline, silent: bool) -> bool:
        count, start = len(state.tokens), state.pos
        if not rule(state, silent):
            return False
        if not silent:
            mark_first(state.tokens[count:], kind, line_offset(state, start))
        return True

    return with_line


def inline_lines_plugin(md: MarkdownIt) -> None:
    """Record on each link, image and inline formula the line it starts on, relative to its block.

    Use it after the plugins that add those rules (mdit-py-plugins' dollarmath).

    A paragraph's inline source keeps its line breaks, so the number of newlines before the point
    where a link starts is how many lines into the paragraph it is. The rules that make links,
    images, inline formulas and inline HTML are wrapped to record that on the token they make, so a
    broken link, an image without alt text or bad TeX in the fifth line of a paragraph is reported
    at that line.
    """
    rules = dict(zip(md.inline.ruler.get_active_rules(), md.inline.ruler.getRules(""), strict=True))
    for name, kind in WRAPPED.items():
        if name in rules:
            md.inline.ruler.at(name, recording(rules[name], kind))
