"""A page's meta description, derived from the chapter itself: its lede.

Search engines (and Lighthouse's SEO audit) expect ``<meta name="description">``: a sentence or
two saying what the page is about. A chapter already opens with one, its lede, the paragraph
before its first heading, callout or lab; the description is that paragraph as plain text, so
an author writes nothing twice and it can never go stale. A chapter with no paragraph there
takes its first paragraph anywhere. Long ledes are cut at a word, near what search results show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it.token import Token

from sitegen.markdown.toc import plain_text

LIMIT = 300
"""Characters at most; search results show about half that, and cut the rest themselves."""


def lede(tokens: Sequence[Token]) -> str:
    """The text of the chapter's opening paragraph (or, failing that, of its first paragraph), or ""."""
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
    """The chapter's lede on one line, cut at a word under ``LIMIT`` characters (ending in "…")."""
    text = re.sub(r"\s+", " ", lede(tokens)).strip()
    if len(text) <= LIMIT:
        return text
    cut = text[: LIMIT - 1].rsplit(" ", 1)[0].rstrip(",;:—– ")
    return f"{cut}…"
