"""SVG files of the book: refused when they could run code, and measured for ``<img>``.

An SVG opened on its own runs the scripts it holds, so the build refuses such a file at the line of
each offending element rather than ship it or silently change the picture (:func:`read_svg`); its size
must be worked out for the box to be reserved (:func:`svg_size`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from xml.parsers import expat

XHTML_NS = "http://www.w3.org/1999/xhtml"
UNITS = {"": 1.0, "px": 1.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4, "pt": 96 / 72, "pc": 16.0}
"""CSS pixels per unit (96 per inch)."""
LENGTH = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-z%]*)\s*")
NUMBERS = re.compile(r"[-+]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][-+]?[0-9]+)?")
SPACES = re.compile(r"[\x00-\x20]+")
"""What a browser drops from a URL before reading its scheme (``java\tscript:`` is ``javascript:``)."""
REFUSED = "an SVG that can run code is refused (a browser opening the file on its own would run it): remove it"


@dataclass
class SvgFile:
    """What reading an SVG found: its size (if it could be worked out) and each problem with its line."""

    size: tuple[int, int] | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)


def local(name: str) -> tuple[str, str]:
    """(namespace, local name) of an expat name written ``namespace local`` (no namespace: "")."""
    namespace, _, tag = name.rpartition(" ")
    return namespace, tag


def read_svg(data: bytes) -> SvgFile:
    """Parse ``data``; every script-like construct is a problem at its line, and so is a missing size.

    An SVG is a document that can hold scripts: ``<script>``, event-handler attributes
    (``onload=``), ``javascript:`` URLs and ``<foreignObject>`` (HTML inside the image). Shown
    through ``<img>`` a browser runs none of them, but the same file opened on its own (a
    reader following a link to it, or the site's folder browsed from disk) runs them all. So
    the build refuses such a file, at the line of each offending element, rather than ship
    it; sanitising would silently change the picture the author drew.

    The parser is expat, as it comes with Python: it fetches no external entity and (expat ≥
    2.4) stops entity expansion that amplifies the input, so no file can make it hang.
    """
    found = SvgFile()
    parser = expat.ParserCreate(namespace_separator=" ")
    root: dict[str, str] | None = None

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal root
        line = parser.CurrentLineNumber
        namespace, tag = local(name)
        if root is None:
            root = {local(key)[1]: value for key, value in attributes.items() if not local(key)[0]}
            if tag != "svg":
                found.problems.append((line, f"not an SVG image: its root element is <{tag}>, not <svg>"))
        if tag.lower() == "script":
            found.problems.append((line, f"the SVG holds a <script> element; {REFUSED}"))
        elif tag.lower() == "foreignobject":
            found.problems.append((line, f"the SVG holds a <foreignObject> (HTML inside the image); {REFUSED}"))
        elif namespace == XHTML_NS:
            found.problems.append((line, f"the SVG holds an HTML element <{tag}>; {REFUSED}"))
        for key, value in attributes.items():
            attribute = local(key)[1]
            if attribute.lower().startswith("on"):
                message = f"<{tag}> has the event-handler attribute {attribute!r}; {REFUSED}"
                found.problems.append((line, message))
            elif "javascript:" in SPACES.sub("", value).lower():
                found.problems.append((line, f"<{tag}> {attribute}= holds a javascript: URL; {REFUSED}"))

    parser.StartElementHandler = start
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        found.problems.append((error.lineno, f"not a well-formed SVG file: {expat.ErrorString(error.code)}"))
        return found
    if root is not None and not found.problems:
        found.size, problem = svg_size(root)
        if problem:
            found.problems.append((1, problem))
    return found


def pixels(value: str | None) -> float | None:
    """A length in CSS pixels, or None when it is missing, relative (``%``, ``em``) or not a length."""
    match = LENGTH.fullmatch(value) if value is not None else None
    if match is None or match.group(2) not in UNITS:
        return None
    return float(match.group(1)) * UNITS[match.group(2)]


def svg_size(root: dict[str, str]) -> tuple[tuple[int, int] | None, str | None]:
    """The size the root ``<svg>`` asks for, in whole pixels, or why it asks for none.

    The size is the root's ``width`` and ``height`` in absolute units (``px`` or none, ``in``,
    ``cm``, ``mm``, ``pt``, ``pc``), completed from the ``viewBox`` when only one is given or
    when they are relative (``100%``, ``em``); an SVG with neither cannot have its box
    reserved, which is an error too.
    """
    width, height = pixels(root.get("width")), pixels(root.get("height"))
    numbers = [float(number) for number in NUMBERS.findall(root.get("viewBox", ""))]
    box = (numbers[2], numbers[3]) if len(numbers) == 4 and numbers[2] > 0 and numbers[3] > 0 else None
    if width is None and height is None and box is not None:
        width, height = box
    elif width is None and height is not None and box is not None:
        width = height * box[0] / box[1]
    elif height is None and width is not None and box is not None:
        height = width * box[1] / box[0]
    if width is None or height is None or width <= 0 or height <= 0:
        message = (
            "the SVG gives no size: the page cannot reserve its box before it loads; "
            'give the <svg> a viewBox="0 0 WIDTH HEIGHT" (or width and height in px)'
        )
        return None, message
    return (max(1, math.floor(width + 0.5)), max(1, math.floor(height + 0.5))), None
