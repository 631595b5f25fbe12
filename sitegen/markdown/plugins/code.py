"""Code blocks, highlighted at build time by Pygments: the page needs no script to show them.

Only classes, as the page's Content-Security-Policy allows no ``style=""``; an unknown language is
plain text with a warning, as a typo would otherwise go unnoticed. How a block is written:
:func:`code_plugin`.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from sitegen.markdown.plugins.env import report

FORMATTER = HtmlFormatter(nowrap=True)
"""Spans with class names only, no wrapper: the plugin writes the ``<pre>`` itself."""


def language(token: Token) -> str:
    """The language a fence names (its info string's first word), or ""."""
    words = token.info.split()
    return words[0] if words else ""


def lexer_for(name: str) -> Lexer | None:
    """Pygments' lexer for a language name or alias, keeping the code's blank lines as written."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def code_plugin(md: MarkdownIt) -> None:
    """Highlight fenced code by its language; every block scrolls in itself and takes the focus.

    A fenced block names its language on its first line (```` ```python ````); Pygments
    finds the lexer by that name or alias and the block's tokens become ``<span class=…>``
    with Pygments' short class names (``k`` keyword, ``s`` string, ``c`` comment…), which
    ``kvpage.css`` colours for light and dark. Only classes: the page's Content-Security-Policy
    allows no ``style=""``. A language Pygments does not know renders as plain text, with a
    warning at the block's line (a typo such as ``pyhton`` would otherwise go unnoticed); a
    block with no language, or an indented one, is plain text.

    Every block scrolls sideways inside itself rather than widening the page, and is a tab stop
    (``tabindex="0"``), so a keyboard can scroll it too.
    """

    def find_lexers(state: StateCore) -> None:
        for token in state.tokens:
            name = language(token) if token.type == "fence" else ""
            if not name:
                continue
            if lexer_for(name) is None:
                message = f"code block language {name!r} is not one Pygments knows; the block renders as plain text"
                report(state.env, token, message, warning=True)
            else:
                token.meta["lexer"] = name

    def render(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        token = tokens[idx]
        name = str(token.meta.get("lexer", ""))
        lexer = lexer_for(name) if name else None
        code = highlight(token.content, lexer, FORMATTER) if lexer is not None else escapeHtml(token.content)
        shown = f' class="language-{escapeHtml(name)}"' if name else ""
        return f'<pre class="code" tabindex="0"><code{shown}>{code}</code></pre>\n'

    md.core.ruler.push("code_languages", find_lexers)
    md.add_render_rule("fence", render)
    md.add_render_rule("code_block", render)
