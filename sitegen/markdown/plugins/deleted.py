"""``~~text~~`` is ``<del>``, as GitHub Flavored Markdown renders it.

markdown-it renders strikethrough as ``<s>`` (text no longer accurate); GFM, which the book's Markdown
follows, as ``<del>``: text removed, what an author striking a word through means (and what assistive
technology may announce). The tokens keep their type, so their readers see one construct (:func:`deleted_plugin`).
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

STRUCK = frozenset({"s_open", "s_close"})


def _deleted(state: StateCore) -> None:
    for token in state.tokens:
        for child in token.children or ():
            if child.type in STRUCK:
                child.tag = "del"


def deleted_plugin(md: MarkdownIt) -> None:
    """Render strikethrough as ``<del>``.

    markdown-it's strikethrough rule makes ``s_open``/``s_close`` tokens, rendered as ``<s>``: text no
    longer accurate. GFM's spec, which the guide says the book's Markdown follows, renders ``<del>``:
    text removed, which is what an author striking a word through in prose means (and what assistive
    technology may announce as a deletion). The tokens keep their type, so search and every other
    reader of the tokens see the same construct; only the element changes.
    """
    md.core.ruler.push("deleted", _deleted)
