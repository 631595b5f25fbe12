"""A lab's element trees (:mod:`kvpage.tree`) as HTML: the build-time half of the one pair of tree
renderers, so the starting view's pictures, tables and lists show before Python starts and without
JavaScript; the page's script (``static/kvpage/draw.js``) builds the same DOM from the same trees.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import cast

from kvpage.jsonvalue import JSONValue
from kvpage.tree import VOID_TAGS, check


def to_html(nodes: Sequence[JSONValue]) -> str:
    """``nodes`` (a part of a view: a list of trees) as HTML; TreeError if one is not a tree.

    This and the page's script (``static/kvpage/draw.js``) both refuse what ``kvpage.tree.check`` refuses,
    write each attribute in the tree's order and add no whitespace, so the DOM a browser parses from this HTML
    is the DOM the script builds from the same tree (``tests/e2e/test_trees.py`` compares the two in the
    page).
    """
    for node in nodes:
        check(node)
    return "".join(map(_html, nodes))


def _html(node: JSONValue) -> str:
    if isinstance(node, str):
        return html.escape(node, quote=False)
    tag, attributes, *children = cast(list[JSONValue], node)
    shown = "".join(
        f' {name}="{html.escape(str(value), quote=True)}"' for name, value in cast(dict[str, str], attributes).items()
    )
    if tag in VOID_TAGS:
        return f"<{tag}{shown}>"
    return f"<{tag}{shown}>{''.join(map(_html, children))}</{tag}>"
