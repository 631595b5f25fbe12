"""A chapter's table of contents: its ``##`` and ``###`` headings, with their anchors.

The ids are the ones mdit-py-plugins' anchors plugin (or a lab) gave the
headings, so every entry lands: the link checker tests links against the very
same ids. A ``###`` nests under the ``##`` before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it.token import Token

LEVELS = {"h2": 2, "h3": 3}
TEXT = {"text", "code_inline", "math_inline"}
"""Inline tokens whose content is what a heading says (a formula as its TeX: the contents are plain text)."""


@dataclass(frozen=True)
class Entry:
    """One heading: its id, its text (plain: no markup) and the headings nested under it."""

    id: str
    text: str
    children: tuple[Entry, ...] = ()


def plain_text(inline: Token) -> str:
    """What a heading says, without its Markdown: the text of its inline children."""
    parts = [
        " " if child.type in {"softbreak", "hardbreak"} else child.content
        for child in inline.children or ()
        if child.type in TEXT | {"softbreak", "hardbreak"}
    ]
    return "".join(parts).strip()


def table_of_contents(tokens: Sequence[Token]) -> tuple[Entry, ...]:
    """The chapter's ``##`` headings in order, each with the ``###`` headings that follow it."""
    top: list[tuple[Entry, list[Entry]]] = []
    for index, token in enumerate(tokens):
        level = LEVELS.get(token.tag) if token.type == "heading_open" else None
        if level is None or "id" not in token.attrs or index + 1 >= len(tokens):
            continue
        entry = Entry(str(token.attrs["id"]), plain_text(tokens[index + 1]))
        if level == 3 and top:
            top[-1][1].append(entry)
        else:
            top.append((entry, []))
    return tuple(Entry(entry.id, entry.text, tuple(children)) for entry, children in top)
