"""What the search tests look for: in each chapter of a book, a phrase and the heading it is under.

Read from the search stage's own sections of the chapter (its Markdown parsed by the build's own
markdown-it, every plugin), never typed into a test and never read from the Markdown by hand: the
first section under a heading whose text opens with words gives the heading, and those first words
the phrase. Search must find the phrase and land on the heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sitegen.book.source import load_source
from sitegen.labs.discovery import all_labs
from sitegen.markdown.pages import parse_chapters
from sitegen.search.text import sections
from tests.conftest import book_chapters

PHRASE_WORDS = 4
HOSTILE_QUERIES = (
    '<img src=x onerror="window.__injected = 1"><script>window.__injected = 2</script>',
    "\\d+.*?[(^$|{})]\\ ${window.__injected = 3} `a` ' \" (?<x>)",
    "token " * 16_667,
)
"""Markup, regular-expression and template syntax, and 100,002 characters (every word a term of the book)."""
LONGEST_QUERY = 200
"""Characters of a query the page searches (static/search.js); a longer one is said to be cut."""
QUOTED = 60
"""Characters of a query that "No results for …" quotes back."""
PLAIN = re.compile(r"\w+")
"""A word a reader types as it is (no formula's TeX, no punctuation)."""


@dataclass(frozen=True)
class Target:
    slug: str
    url: str
    """The chapter's page in the site."""
    heading: str
    phrase: str


def search_targets(content: Path) -> list[Target]:
    """One target per chapter of the book in ``content``, in the book's order."""
    targets = []
    parsed = parse_chapters(load_source(content), all_labs()).listed
    for chapter, found in zip(book_chapters(content), parsed, strict=True):
        for section in sections(found.tokens, chapter.meta.title)[1:]:
            words = section.text.split()[:PHRASE_WORDS]
            if len(words) == PHRASE_WORDS and all(PLAIN.fullmatch(word) for word in words):
                targets.append(Target(chapter.meta.slug, f"{chapter.meta.slug}.html", section.heading, " ".join(words)))
                break
        else:
            raise LookupError(f"{chapter.path}: no heading whose section opens with {PHRASE_WORDS} words")
    return targets


def quoted(query: str) -> str:
    """A query as the page quotes it back when nothing matches."""
    return query[:QUOTED] + ("…" if len(query) > QUOTED else "")
