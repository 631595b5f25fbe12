"""What search finds in a chapter: its text cut into sections, one per ``##`` or ``###`` heading.

A search result lands on a heading, so a section is a heading's anchor and all the chapter says until
the next (:func:`sections`). Text is read from markdown-it's tokens, not the rendered page, so every
construct is read one way whatever plugin made it (:func:`inline_text`, :func:`block_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from markdown_it.token import Token

from sitegen.markdown.toc import LEVELS

SEARCH_DIR = "search"
"""The site's folder for the search index (``search/index.js``): no file of the book may land there."""
SPACES = re.compile(r"\s+")
BREAKS = frozenset({"softbreak", "hardbreak"})
MARKUP = frozenset({"html_inline", "html_block"})
HIDDEN = frozenset({"script", "style"})
NOT_TEXT = frozenset({"front_matter"})
"""Block tokens whose content is not the chapter's words (the front matter's YAML)."""

FieldText = Callable[[Token], str]
"""What the page shows for a ``lab_field`` token: its lab's starting text (the labs stage's)."""


def no_field_text(_token: Token) -> str:
    return ""


@dataclass(frozen=True)
class Section:
    """One place a search result can land: a heading's anchor (``""``: the chapter's opening)."""

    anchor: str
    heading: str
    text: str


class _Text(HTMLParser):
    """The text of raw HTML an author wrote, without its tags, scripts or styles."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN and self.hidden:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(markup: str) -> str:
    return " ".join(_Text(markup).parts)


def inline_text(token: Token, field_text: FieldText = no_field_text) -> str:
    """What an inline token says: its children's text, a lab field as the number the page shows."""
    parts: list[str] = []
    for child in token.children or ():
        if child.type in BREAKS:
            parts.append(" ")
        elif child.type == "lab_field":
            parts.append(field_text(child))
        elif child.type == "html_inline":
            parts.append(html_text(child.content))
        elif child.children and child.type != "image":
            parts.append(inline_text(child, field_text))
        else:
            parts.append(child.content)
    return "".join(parts)


def block_text(token: Token, field_text: FieldText = no_field_text) -> str:
    """What a block-level token says on its own (inline tokens are read by their own case).

    Every construct the Markdown may hold is read the same way, whatever plugin made it: an inline
    token's text is its ``content`` (``text``, ``code_inline``, an image's alt text, inline math) and a
    block token's is its ``content`` when it has no inline children (a code block, a fence, block
    math); raw HTML gives its text, never its tags.
    """
    if token.type == "inline":
        return inline_text(token, field_text)
    if token.type in MARKUP:
        return html_text(token.content)
    if token.nesting == 0 and not token.children and token.type not in NOT_TEXT:
        return token.content
    return ""


def squeeze(text: str) -> str:
    return SPACES.sub(" ", text).strip()


def sections(tokens: Sequence[Token], title: str, field_text: FieldText = no_field_text) -> tuple[Section, ...]:
    """The chapter's sections in order: its opening, headed by ``title`` (so a chapter is found by
    its title even when it opens with a heading), then one per heading with an anchor.

    A search result lands on a heading, so a section is a heading's anchor, its text, and everything
    the chapter says until the next such heading; what comes before the first one is the chapter's
    opening and lands on the chapter itself. Text is read from markdown-it's tokens, not from the
    rendered page: a callout's words and a lab's prose are there (a ``[[field]]`` as the number the
    build printed into the page), and a lab's controls, which its template draws, are not; nor is
    markup. Deeper headings (``####``, which get no anchor) stay words of their section.
    """
    found: list[Section] = []
    anchor, heading = "", title
    parts: list[str] = []
    skip: Token | None = None
    for index, token in enumerate(tokens):
        if token is skip:
            continue
        if token.type == "heading_open" and token.tag in LEVELS and "id" in token.attrs and index + 1 < len(tokens):
            found.append(Section(anchor, heading, squeeze(" ".join(parts))))
            skip = tokens[index + 1]
            anchor, heading, parts = str(token.attrs["id"]), squeeze(inline_text(skip, field_text)), []
            continue
        text = block_text(token, field_text)
        if text:
            parts.append(text)
    found.append(Section(anchor, heading, squeeze(" ".join(parts))))
    return tuple(found)
