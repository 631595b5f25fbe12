"""Raw HTML in a chapter is held to :mod:`sitegen.markdown.html_rules`'s rules, each problem at its
line, and the page gets it as checked.

Markdown hands raw HTML over as ``html_block`` tokens (whole lines, with their line) and
``html_inline`` tokens inside a paragraph (whose line :mod:`sitegen.markdown.plugins.lines` records);
each is checked on its own, right after inline parsing (later core rules make HTML tokens of
their own, a task list's checkbox by mdit-py-plugins' tasklists, which are not the author's),
and its text replaced by what the check wrote out from the tokens it read: the renderer copies
a token's text into the page, so the page holds the checked tokens and nothing else, and the
later readers of the page's HTML (links, ids, search) read them too.

Checking each fragment on its own is checking the page, because every fragment must end as it
began, in the tokenizer's data state: a comment, a tag or an element of text left open at its end
is an error, and what is written out is closed by construction (text escaped, tags whole). So a
comment opened in one fragment cannot run on into Markdown's HTML or the next fragment; it is an
error where it opens. What the tree builder does across fragments (``<kbd>`` in one, ``</kbd>``
in the next) only nests elements, and every element there is one the allow-list checked.

One thing only the Markdown parser sees: a block opened by ``<pre>`` (or ``<script>``,
``<style>``, ``<textarea>``, refused anyway) runs, for CommonMark, until the line that closes
it, so an unclosed one takes the rest of the chapter as its HTML.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from sitegen.errors import ContentError
from sitegen.markdown.html_rules import check_raw_html
from sitegen.markdown.plugins.env import line_of, record

RAW_BLOCK = re.compile(r"[ ]{0,3}<pre(?=[\s>]|$)", re.IGNORECASE)
"""CommonMark's HTML block of kind 1 that raw HTML may use: it ends only at a closing tag."""
RAW_BLOCK_END = re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)
UNCLOSED_PRE = "raw HTML <pre> is not closed: Markdown would read the rest of the chapter as its HTML; add </pre>"


def raw_html_plugin(md: MarkdownIt) -> None:
    """Report every problem of a chapter's raw HTML at its line, and give the page the checked HTML
    (use it after ``inline_lines_plugin``)."""

    def check(state: StateCore) -> None:
        path = str(state.env["path"])
        for block in state.tokens:
            fragments: list[tuple[Token, int]] = [(block, line_of(block))] if block.type == "html_block" else []
            if (
                block.type == "html_block"
                and RAW_BLOCK.match(block.content)
                and not RAW_BLOCK_END.search(block.content)
            ):
                record(state.env, ContentError(path, line_of(block), UNCLOSED_PRE))
            fragments += [
                (child, line_of(block, child)) for child in block.children or () if child.type == "html_inline"
            ]
            for token, line in fragments:
                checked = check_raw_html(token.content)
                token.content = checked.html
                for offset, message in checked.problems:
                    record(state.env, ContentError(path, line + offset, message))

    md.core.ruler.after("inline", "raw_html", check)
