"""What the search tests look for: in each chapter of a book, a phrase and the heading it is under.

Read from the chapter's Markdown as an author wrote it, never typed into a test: the first ``##``
or ``###`` heading followed by a line of prose gives the heading, and that line's first words
the phrase. Search must find the phrase and land on the heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

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
FIELD = re.compile(r"\[\[\w+\]\]")
NOT_PROSE = (":::", "#", "**", "-", "|", "```", "<", "!", ">")


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
    for chapter in book_chapters(content):
        lines = chapter.text.split("---", 2)[2].splitlines()
        headings = [(i, line.lstrip("#").strip()) for i, line in enumerate(lines) if re.match(r"#{2,3} ", line)]
        for index, heading in headings:
            following = next((line for line in lines[index + 1 :] if line.strip()), "")
            if following and not following.startswith(NOT_PROSE):
                words = FIELD.sub("", following).split()[:PHRASE_WORDS]
                targets.append(Target(chapter.meta.slug, f"{chapter.meta.slug}.html", heading, " ".join(words)))
                break
        else:
            raise LookupError(f"{chapter.path}: no heading followed by a line of prose")
    return targets


def quoted(query: str) -> str:
    """A query as the page quotes it back when nothing matches."""
    return query[:QUOTED] + ("…" if len(query) > QUOTED else "")
