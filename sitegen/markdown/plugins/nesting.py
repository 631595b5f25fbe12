"""Blocks nested past markdown-it's limit are an error at their line, never silently dropped.

markdown-it throws away the rest of a block nested past its limit, for a list item the rest of the
chapter, so the block parser here may go deeper and reports what still goes past
(:class:`NestingBlock`, why this limit: :data:`BLOCK_LIMIT`).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from sitegen.markdown.plugins.env import report

BLOCK_LIMIT = 100
"""How many levels deep blocks may nest (markdown-it's default preset's ``maxNesting``).

markdown-it stops parsing blocks ``maxNesting`` levels in (a level is an open token: a container, a
quote, a list and each of its items) and throws away the rest of the block around it, which for a
list item is the rest of the chapter, labs and all. The CommonMark preset's limit, 20, is reached by
a list nested ten deep. This limit, that of markdown-it's own default preset, lets every nesting a
book plausibly holds render; it stays well within Python's recursion limit (each container level
costs the parser about three frames: 400 nested containers overflow the default 1,000). Whatever
still goes past it is reported at the first line dropped.

Inline parsing keeps the preset's 20: past it markdown-it keeps the text as text (nothing is lost),
and every level costs time on a line of brackets (docs/refusals.md).
"""


class NestingBlock(ParserBlock):
    """markdown-it's block parser with its own nesting limit, reporting what it would drop."""

    def tokenize(self, state: StateBlock, startLine: int, endLine: int) -> None:
        line = state.skipEmptyLines(startLine)
        if state.level >= BLOCK_LIMIT and line < endLine and state.sCount[line] >= state.blkIndent:
            token = Token("nesting_cut", "", 0)  # the first block markdown-it drops, for its line
            token.map = [line, line + 1]
            message = (
                f"this block is nested too deeply to render: at most {BLOCK_LIMIT} levels of containers, "
                "quotes and lists (a list counts two a level: the list and its item); nest less"
            )
            report(state.env, token, message)
        options = state.md.options
        inline = options["maxNesting"]
        options["maxNesting"] = BLOCK_LIMIT  # read by the parser on entry; the inline parser keeps its own
        try:
            super().tokenize(state, startLine, endLine)
        finally:
            options["maxNesting"] = inline


def nesting_plugin(md: MarkdownIt) -> None:
    """Let blocks nest :data:`BLOCK_LIMIT` deep, and report any block nested deeper at its line."""
    block = NestingBlock()
    block.ruler = md.block.ruler  # the same rules, those plugins add later included
    md.block = block
