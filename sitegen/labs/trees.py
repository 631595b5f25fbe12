"""A lab's element trees as HTML: the build-time half of the one pair of tree renderers.

A lab's view carries its pictures, tables and lists as element trees (:mod:`kvpage.tree`). The
build writes the starting view's trees into the page with :func:`to_html`, so a reader sees them
before Python starts and without JavaScript; the page's script builds the DOM of every later view
from the same trees (``site_template/static/kvpage/draw.js``). Both refuse what
``kvpage.tree.check`` refuses, write each attribute in the tree's order and add no whitespace,
so the DOM a browser parses from this HTML is the DOM the script builds from the same tree
(``tests/e2e/test_trees.py`` compares the two in the page).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import cast

from kvpage.jsonvalue import JSONValue
from kvpage.tree import VOID_TAGS, check


def to_html(nodes: Sequence[JSONValue]) -> str:
    """``nodes`` (a part of a view: a list of trees) as HTML; TreeError if one is not a tree."""
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
