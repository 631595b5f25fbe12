"""``$…$`` and ``$$…$$``: formulas, parsed by mdit-py-plugins' dollarmath and printed as MathML.

The rules are those of prose with prices in it (Pandoc's), so "$5 and $10" stays text. Parsing only
finds the formulas: the pages stage typesets the book's in one batch (:mod:`sitegen.markdown.mathml`).
The rules and how a formula is printed: :func:`formulas_plugin`.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from mdit_py_plugins.dollarmath import dollarmath_plugin


def formulas_plugin(md: MarkdownIt) -> None:
    """Parse ``$…$`` and ``$$…$$``; print the MathML the pages stage put on each token.

    The rules are the usual ones for prose with prices in it (Pandoc's): an opening ``$`` must
    have a non-space right after it, a closing ``$`` a non-space right before it and no digit
    right after it, so "$5 and $10" stays text; ``\\$`` is a dollar sign. ``$$`` on lines of
    its own is a displayed formula, which may span lines (no blank line inside).

    Parsing only finds the formulas: the pages stage typesets every formula of the book in
    one batch (:mod:`sitegen.markdown.mathml`) and hangs each one's MathML on its token, which these
    render rules print. A displayed formula sits in a box that scrolls sideways when it is
    wider than the column, and is a tab stop so a keyboard can scroll it.
    """
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False, allow_blank_lines=False)

    def mathml(token: Token) -> str:
        # Only a build that already failed (Temml refused the TeX) renders a formula without MathML.
        return str(token.meta.get("mathml") or f"<code>{escapeHtml(token.content.strip())}</code>")

    def render_inline(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        return mathml(tokens[idx])

    def render_block(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        return f'<div class="math-display" tabindex="0">{mathml(tokens[idx])}</div>\n'

    md.add_render_rule("math_inline", render_inline)
    md.add_render_rule("math_block", render_block)
