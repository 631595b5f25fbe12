"""Raw HTML in a chapter is held to :mod:`sitegen.markdown.html_rules`'s rules, each problem at its
line, and the page gets it as checked (decision 0050).

Each fragment is checked on its own and must end as it began, so checking the fragments is checking
the page: :func:`raw_html_plugin` says why, :class:`Opened` what may span fragments.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from sitegen.errors import ContentError
from sitegen.markdown.html_rules import OPTIONAL_END, VOID, check_raw_html
from sitegen.markdown.plugins.env import chapter, line_of, record

RAW_BLOCK = re.compile(r"[ ]{0,3}<pre(?=[\s>]|$)", re.IGNORECASE)
"""CommonMark's HTML block of kind 1 that raw HTML may use: it ends only at a closing tag."""
RAW_BLOCK_END = re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)
UNCLOSED_PRE = "raw HTML <pre> is not closed: Markdown would read the rest of the chapter as its HTML; add </pre>"
LEFT_OPEN = (
    "raw HTML <{name}> is not closed in its chapter: a browser would hold the rest of the chapter in it "
    "(and carry a link or formatting on into the next); add </{name}>"
)
CLOSES_NOTHING = (
    "raw HTML </{name}> closes no <{name}> the chapter opened: a browser would close an element of the page "
    "around the chapter with it, or drop it; remove it"
)


def raw_html_plugin(md: MarkdownIt) -> None:
    """Report every problem of a chapter's raw HTML at its line, and give the page the checked HTML
    (use it after ``inline_lines_plugin``).

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
    error where it opens.

    One thing only the Markdown parser sees: a block opened by ``<pre>`` (or ``<script>``,
    ``<style>``, ``<textarea>``, refused anyway) runs, for CommonMark, until the line that closes
    it, so an unclosed one takes the rest of the chapter as its HTML.
    """

    def check(state: StateCore) -> None:
        path = chapter(state.env).path
        opened = Opened()
        for block in state.tokens:
            fragments: list[tuple[Token, int]] = [(block, line_of(block))] if block.type == "html_block" else []
            if (
                block.type == "html_block"
                and RAW_BLOCK.match(block.content)
                and not RAW_BLOCK_END.search(block.content)
            ):
                record(state.env, ContentError(path, line_of(block), UNCLOSED_PRE))
                opened.said.add(line_of(block))
            fragments += [
                (child, line_of(block, child)) for child in block.children or () if child.type == "html_inline"
            ]
            for token, line in fragments:
                checked = check_raw_html(token.content)
                token.content = checked.html
                for offset, message in checked.problems:
                    record(state.env, ContentError(path, line + offset, message))
                for offset, message in checked.warnings:
                    record(state.env, ContentError(path, line + offset, message), warning=True)
                for offset, kind, name in checked.tags:
                    problem = opened.tag(kind, name, line + offset)
                    if problem is not None:
                        record(state.env, ContentError(path, line + offset, problem))
        for name, line in opened.stack:
            if line not in opened.said:
                record(state.env, ContentError(path, line, LEFT_OPEN.format(name=name)))

    md.core.ruler.after("inline", "raw_html", check)


class Opened:
    """The elements a chapter's raw HTML has opened and not yet closed, across its fragments, in order.

    Elements may span fragments (``<details>`` in one block, Markdown, then ``</details>``): the tree
    builder only nests them, and each is one the allow-list checked. But each must close in its
    chapter, and close only what the chapter opened: one left open would hold the rest of the
    chapter (collapsed, hidden, or a link, which a browser carries on into the next chapter of the
    single file), and a stray ``</article>`` would close the page's own.
    """

    def __init__(self) -> None:
        self.stack: list[tuple[str, int]] = []
        self.said: set[int] = set()
        """Lines whose element left open is already an error of its own (an unclosed ``<pre>`` block)."""

    def tag(self, kind: str, name: str, line: int) -> str | None:
        """Take one tag at ``line``; what is wrong with it, if anything. An end tag closes the last
        element of its name and those opened inside it, as a browser's does."""
        if name in VOID or name in OPTIONAL_END:
            return None
        if kind == "start":
            self.stack.append((name, line))
            return None
        names = [opened for opened, _ in self.stack]
        if name not in names:
            return CLOSES_NOTHING.format(name=name)
        del self.stack[len(names) - 1 - names[::-1].index(name) :]
        return None
