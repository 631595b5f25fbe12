"""A page's meta description, derived from the chapter itself: its lede.

Search engines (and Lighthouse's SEO audit) expect ``<meta name="description">``. A chapter already
opens with one, its lede, so an author writes nothing twice and it can never go stale; which paragraph
and how it is cut: :func:`lede`, :func:`description`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from sitegen.markdown.toc import plain_text

LIMIT = 300
"""Characters at most; search results show about half that, and cut the rest themselves."""


def lede(tokens: Sequence[Token]) -> str:
    """The text of the chapter's opening paragraph (or, failing that, of its first paragraph), or "".

    The opening paragraph is the one before the chapter's first heading, callout or lab: the lede.
    """
    first = ""
    opening = True
    for index, token in enumerate(tokens):
        if token.type == "heading_open" or token.type.startswith("container_"):
            opening = False
        if token.type == "paragraph_open" and token.level == 0 and index + 1 < len(tokens):
            text = plain_text(tokens[index + 1])
            if text and opening:
                return text
            first = first or text
    return first


def description(tokens: Sequence[Token]) -> str:
    """The chapter's lede on one line, cut at a word under ``LIMIT`` characters (ending in "…").

    A sentence or two saying what the page is about, as plain text; a long lede is cut near what
    search results show.
    """
    text = re.sub(r"\s+", " ", lede(tokens)).strip()
    if len(text) <= LIMIT:
        return text
    cut = text[: LIMIT - 1].rsplit(" ", 1)[0].rstrip(",;:—– ")
    return f"{cut}…"
