"""Hostile raw HTML, built from the pieces where parsers disagree (issue 43): shared by the
in-process property of tests/sitegen/markdown/test_html_rules.py and the Chromium check of
tests/e2e/test_raw_html_dom.py.

A fragment is a few pieces: comment openers and closers in every form the standard ends early or
never (``<!-->``, ``--!>``, ``-- >``), CDATA, processing instructions and declarations, tags of
allowed and refused elements (text elements, ``<svg>``/``<math>`` and their integration points,
nested) in odd casing, with allowed and refused attributes, quotes left open, and text.
"""

from __future__ import annotations

import random

from hypothesis import strategies as st

MARKS = [
    *("<!--", "<!-->", "<!--->", "<!---->", "-->", "--!>", "-- >", "--", "<!-", "<!--<!--"),
    *("<![CDATA[", "]]>", "<?xml version='1.0'?>", "<?", "?>", "<!DOCTYPE html>", "<!x>", "</", "</>"),
    *("<", ">", "/>", "'", '"', "=", "\n", " ", "&amp;", "&lt", "&#x3c;", "&", "text", "-"),
]
"""Pieces that open, close or half-close a construct."""
NAMES = [
    *("b", "p", "div", "span", "a", "img", "table", "td", "details", "summary", "pre", "kbd", "video", "source"),
    *("script", "style", "textarea", "title", "xmp", "noscript", "noembed", "noframes", "plaintext", "iframe"),
    *("svg", "math", "foreignObject", "desc", "mtext", "mglyph", "annotation-xml", "template", "select"),
    *("meta", "base", "link", "form", "input", "button", "object", "embed", "image"),
]
ATTRIBUTES = [
    *("class", "title", "href", "src", "onerror", "onclick", "style", "xlink:href", "srcset", "aria-label"),
    *("data-x", "formaction", "encoding", "open", "http-equiv"),
]
VALUES = ["", "x", "javascript:alert(1)", "JaVa&#x09;script:x", "https://example.org/", "text/html", "<!--", "-->"]
QUOTES = ['"', "'", ""]


def tag(rng: random.Random) -> str:
    """A start or end tag, its name in any casing, with attributes in any quoting."""
    name = "".join(c.upper() if rng.random() < 0.5 else c for c in rng.choice(NAMES))
    if rng.random() < 0.25:
        return f"</{name}>"
    attributes = ""
    for _ in range(rng.randint(0, 3)):
        quote = rng.choice(QUOTES)
        value = rng.choice(VALUES).replace(quote, "") if quote else "v"
        attributes += f" {rng.choice(ATTRIBUTES)}={quote}{value}{quote}"
    return f"<{name}{attributes}{rng.choice(['>', '/>', '>', ''])}"


def fragment(rng: random.Random) -> str:
    """A fragment of raw HTML: one to eight pieces, marks and tags."""
    return "".join(rng.choice(MARKS) if rng.random() < 0.5 else tag(rng) for _ in range(rng.randint(1, 8)))


def fragments() -> st.SearchStrategy[str]:
    """:func:`fragment` as a hypothesis strategy: hypothesis draws the generator's choices (and shrinks them)."""
    return st.randoms(use_true_random=False).map(fragment)
