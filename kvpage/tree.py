"""Pictures, tables and lists as plain JSON: the element trees a lab's view carries in ``parts``.

A lab draws by returning data, never markup, so a picture has one definition, in Python, beside the
numbers it shows, and two renderers (build and page) that refuse anything else (:func:`check`).
Pure data and the standard library only: this module runs in the reader's browser too.
"""

from __future__ import annotations

import re
from typing import TypeAlias, cast

from kvpage.jsonvalue import JSONValue

Node: TypeAlias = "str | list[JSONValue]"
"""A text, or ``[tag, {attributes}, *children]``."""
Attributes: TypeAlias = dict[str, str | int]
"""What :func:`el` takes: names to values, whole numbers written as their digits."""

SVG_TAGS = frozenset({"svg", "g", "rect", "path", "line", "polyline", "circle", "text", "title"})
"""Drawn in the SVG namespace: ``svg`` and everything inside it."""
HTML_TAGS = frozenset(
    {
        "div",
        "span",
        "p",
        "strong",
        "em",
        "ol",
        "ul",
        "li",
        "caption",
        "colgroup",
        "col",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
    }
)
TAGS = SVG_TAGS | HTML_TAGS
VOID_TAGS = frozenset({"col"})
"""HTML elements with no end tag (and so no children)."""
ATTRIBUTE_PATTERN = "[a-zA-Z][a-zA-Z0-9-]*"
"""The names a tree's attributes may have (``viewBox`` too), as a pattern both renderers read."""
ATTRIBUTE = re.compile(rf"{ATTRIBUTE_PATTERN}\Z")
FORBIDDEN_ATTRIBUTES = frozenset({"style", "href", "src", "srcset", "action", "formaction", "srcdoc"})
"""Attributes a tree never sets: inline style (the page's CSP forbids it) or a URL to load or follow."""
THIN: Attributes = {"vector-effect": "non-scaling-stroke"}
"""Strokes keep their width however far a picture is scaled (an SVG attribute: the page's CSP
allows no inline style, and the HTML checker's CSS validator does not know the property)."""


class TreeError(ValueError):
    """A tree that is not one of ours: an unknown element, an attribute that could run code, a bad value."""


def allowed_attribute(name: str) -> bool:
    """Whether a tree may set attribute ``name``: a plain name, no ``on…`` handler, nothing in FORBIDDEN_ATTRIBUTES."""
    return (
        bool(ATTRIBUTE.match(name)) and not name.lower().startswith("on") and name.lower() not in FORBIDDEN_ATTRIBUTES
    )


def el(tag: str, attributes: Attributes | None = None, *children: Node) -> list[JSONValue]:
    """The element ``[tag, {attributes}, *children]``; whole-number values become their digits."""
    if tag not in TAGS:
        raise TreeError(f"element {tag!r} is not one a lab may draw")
    shown: dict[str, JSONValue] = {}
    for name, value in (attributes or {}).items():
        if not allowed_attribute(name):
            raise TreeError(f"attribute {name!r} is not one a lab may set")
        shown[name] = str(value)
    if tag in VOID_TAGS and children:
        raise TreeError(f"element {tag!r} has no children")
    return [tag, shown, *children]


def num(value: float) -> str:
    """A coordinate as both renderers print it: at most two decimals, no trailing zeros, never ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def check(node: JSONValue, inside_svg: bool = False) -> None:
    """Raise TreeError unless ``node`` is a well-formed tree (what a reply's ``parts`` must hold).

    A node is a text (``str``) or an element ``[tag, {attribute: value}, *children]``. One generic
    pair of renderers shows a tree: at build time ``sitegen/labs/trees.py`` writes it as HTML for the
    reader who has no JavaScript (or whose Python has not started yet), and in the page
    ``static/kvpage/draw.js`` builds the same DOM from each reply with ``createElementNS`` and
    ``textContent``, never ``innerHTML`` (``tests/e2e/test_trees.py`` holds the two to the same DOM).

    Only the elements of ``TAGS`` may appear, attribute values are strings (numbers are formatted
    here, by :func:`num`, so both renderers print the same text) and no attribute may run code or
    load anything (:func:`allowed_attribute`). Both renderers refuse anything else: reader text is
    only ever a text node or an attribute value.
    """
    if isinstance(node, str):
        return
    if not isinstance(node, list) or len(node) < 2 or not isinstance(node[0], str) or not isinstance(node[1], dict):
        raise TreeError(f"a node is a text or [tag, {{attributes}}, ...children], not {str(node)[:60]!r}")
    tag, attributes, *children = node
    if tag not in TAGS:
        raise TreeError(f"element {tag!r} is not one a lab may draw")
    if inside_svg and tag not in SVG_TAGS:
        raise TreeError(f"element {tag!r} cannot be inside an svg")
    if not inside_svg and tag in SVG_TAGS and tag != "svg":
        raise TreeError(f"element {tag!r} must be inside an svg")
    for name, value in cast(dict[str, JSONValue], attributes).items():
        if not allowed_attribute(name):
            raise TreeError(f"attribute {name!r} is not one a lab may set")
        if not isinstance(value, str):
            raise TreeError(f"attribute {name!r} of {tag!r} must be text, not {type(value).__name__}")
    if tag in VOID_TAGS and children:
        raise TreeError(f"element {tag!r} has no children")
    for child in children:
        check(child, inside_svg or tag == "svg")
