"""Stage 1, source: read the book and every chapter's front matter, write nothing.

Front matter is a tiny ``key: value`` block between ``---`` lines. It is parsed
here rather than as YAML so that every error can name its line, and so that
the build needs no YAML library for four fields. Where the block ends follows
the rule of mdit-py-plugins' front-matter plugin exactly, so the build never
accepts a block that the Markdown stage would then read differently.

Problems are collected, not raised: the next stage still renders the chapters
that were read, so one run reports the errors of every file.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sitegen.errors import ContentError
from sitegen.labs import all_labs

SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
NUMBER = re.compile(r"[0-9]+")
FIELDS = ("number", "part", "title", "slug")
CLOSER = re.compile(r"(?: {0,3}-{3,}|\.\.\.)[ \t]*")
"""A line that ends front matter for mdit-py-plugins: three or more dashes indented
less than a code block, or YAML's ``...``; trailing blanks allowed."""
BOOK_FIELDS = ("title", "experimental_labs")
RESERVED = {"index": "index.html is the book's list of chapters"}
"""Slugs whose page the site already has."""


@dataclass(frozen=True)
class FrontMatter:
    """What a chapter says about itself."""

    number: int
    part: str
    title: str
    slug: str
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    """The line each field is on, for messages about it (a duplicate slug, say)."""

    @property
    def headline(self) -> str:
        """``03 · The model``: the kicker above the chapter title."""
        return f"{self.number:02d} · {self.part}"


@dataclass(frozen=True)
class ChapterSource:
    """One Markdown file as read from disk."""

    path: str
    """Path as shown in messages, relative to the book's folder (``content/03-cache.md``)."""
    text: str
    meta: FrontMatter


@dataclass(frozen=True)
class Unlisted:
    """A chapter whose front matter is wrong (or whose slug is taken): it gets no page,
    but its Markdown is still checked, so one run reports the errors of its body too."""

    path: str
    text: str


@dataclass(frozen=True)
class Source:
    """Every chapter that could be read, ordered by number, and the errors of the rest."""

    chapters: tuple[ChapterSource, ...]
    errors: tuple[ContentError, ...] = ()
    unlisted: tuple[Unlisted, ...] = ()

    @property
    def complete(self) -> bool:
        """True when every file was read; otherwise a missing page may just be unreadable."""
        return not self.errors


@dataclass(frozen=True)
class Book:
    """Settings of the whole book, from ``content/book.toml``."""

    title: str
    experimental_labs: tuple[str, ...] = ()
    """Labs that are off by default (the example lab) and this book turns on."""


def parse_front_matter(path: str, text: str) -> tuple[FrontMatter | None, list[ContentError]]:
    """The front matter of ``text`` and the errors in it, each with its line."""
    lines = text.split("\n")
    if lines[0].rstrip(" \t") != "---":
        if lines[0].startswith("---"):
            return None, [ContentError(path, 1, f"front matter must open with a line '---' alone, not {lines[0]!r}")]
        return None, [ContentError(path, 1, "missing front matter: the file must start with a '---' line")]
    end = next((i for i in range(1, len(lines)) if CLOSER.fullmatch(lines[i])), None)
    if end is None:
        return None, [ContentError(path, 1, "front matter is not closed: add a '---' line after its last field")]
    values: dict[str, tuple[str, int]] = {}
    errors: list[ContentError] = []
    unreadable = False
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or not key:
            unreadable = True
            errors.append(ContentError(path, number, f"front matter line is not 'key: value': {line.strip()!r}"))
        elif key not in FIELDS:
            errors.append(
                ContentError(path, number, f"unknown front matter field {key!r}; expected {', '.join(FIELDS)}")
            )
        elif key in values:
            first = values[key][1]
            errors.append(
                ContentError(path, number, f"front matter field {key!r} is given twice (first on line {first})")
            )
        else:
            values[key] = (value.strip(), number)
    for key in FIELDS:
        if key not in values and not unreadable:  # else the unreadable line may well be it
            errors.append(ContentError(path, 1, f"front matter is missing {key!r}"))
    if errors:
        return None, sorted(errors)
    number_text, number_line = values["number"]
    if not NUMBER.fullmatch(number_text):
        errors.append(
            ContentError(path, number_line, f"front matter 'number' must be a whole number, not {number_text!r}")
        )
    slug, slug_line = values["slug"]
    if not SLUG.fullmatch(slug):
        errors.append(
            ContentError(
                path, slug_line, f"front matter 'slug' must be lowercase letters, digits and dashes, not {slug!r}"
            )
        )
    if slug in RESERVED:
        errors.append(ContentError(path, slug_line, f"front matter 'slug' cannot be {slug!r}: {RESERVED[slug]}"))
    for key in ("part", "title"):
        if not values[key][0]:
            errors.append(ContentError(path, values[key][1], f"front matter {key!r} is empty"))
    if errors:
        return None, sorted(errors)
    lines_of = {key: line for key, (_, line) in values.items()}
    return FrontMatter(int(number_text), values["part"][0], values["title"][0], slug, lines_of), []


def decode(path: str, data: bytes) -> tuple[str | None, list[ContentError]]:
    """``data`` as text (a leading byte-order mark dropped), or the line of its first bad byte."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return None, [ContentError(path, line, f"not UTF-8 text ({error.reason} at byte {error.start})")]


def load_source(content: Path) -> Source:
    """Read ``content/*.md``; every problem is kept on the result, none is raised."""
    base = content.parent
    files = sorted(content.glob("*.md"))
    if not files:
        shown = content.relative_to(base).as_posix()
        return Source((), (ContentError(shown, 0, "no chapters (*.md) found"),))
    chapters: list[ChapterSource] = []
    unlisted: list[Unlisted] = []
    errors: list[ContentError] = []
    slugs: dict[str, tuple[str, int]] = {}
    for file in files:
        path = file.relative_to(base).as_posix()
        text, problems = decode(path, file.read_bytes())
        errors.extend(problems)
        if text is None:
            continue
        meta, problems = parse_front_matter(path, text)
        errors.extend(problems)
        if meta is None:
            unlisted.append(Unlisted(path, text))
            continue
        line = meta.lines["slug"]
        if meta.slug in slugs:
            other, other_line = slugs[meta.slug]
            errors.append(ContentError(path, line, f"slug {meta.slug!r} is already used by {other}:{other_line}"))
            unlisted.append(Unlisted(path, text))
            continue
        slugs[meta.slug] = (path, line)
        chapters.append(ChapterSource(path, text, meta))
    ordered = sorted(chapters, key=lambda chapter: (chapter.meta.number, chapter.path))
    return Source(tuple(ordered), tuple(sorted(errors)), tuple(unlisted))


TOML_WHERE = re.compile(r" \(at line (\d+), column (\d+)\)$| \(at end of document\)$")


def toml_problem(shown: str, text: str, error: tomllib.TOMLDecodeError) -> ContentError:
    """tomllib's message, with its ``(at line L, column C)`` moved into ``path:line``."""
    message = str(error)
    where = TOML_WHERE.search(message)
    if where is None:
        return ContentError(shown, 1, f"not valid TOML: {message}")
    line = int(where.group(1)) if where.group(1) else max(1, len(text.splitlines()))
    column = f" (column {where.group(2)})" if where.group(2) else " (at the end of the file)"
    return ContentError(shown, line, f"not valid TOML: {message[: where.start()]}{column}")


def key_line(text: str, key: str) -> int:
    """The line where ``key`` is set (``key = …`` or ``[key]``), or 1 when it cannot be found."""
    pattern = re.compile(rf"""\s*(?:\[+\s*)?["']?{re.escape(key)}["']?\s*[=\]]""")
    return next((number for number, line in enumerate(text.splitlines(), 1) if pattern.match(line)), 1)


def load_book(path: Path, shown: str) -> tuple[Book | None, list[ContentError]]:
    """Read ``book.toml``: the book, or every problem with it."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, [ContentError(shown, 0, 'missing; it names the book (title = "...")')]
    text, errors = decode(shown, data)
    if text is None:
        return None, errors
    try:
        settings = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return None, [toml_problem(shown, text, error)]
    for key in settings:
        if key not in BOOK_FIELDS:
            message = f"unknown field {key!r}; expected {', '.join(BOOK_FIELDS)}"
            errors.append(ContentError(shown, key_line(text, key), message))
    title = settings.get("title")
    if title is None:
        errors.append(ContentError(shown, 1, "missing 'title', the name of the book (title = \"...\")"))
    elif not isinstance(title, str) or not title.strip():
        errors.append(ContentError(shown, key_line(text, "title"), "'title' must be a non-empty string"))
    experimental, problems = experimental_labs(settings.get("experimental_labs", []))
    errors.extend(ContentError(shown, key_line(text, "experimental_labs"), problem) for problem in problems)
    if errors or not isinstance(title, str):
        return None, errors
    return Book(title=title, experimental_labs=experimental), []


def experimental_labs(value: object) -> tuple[tuple[str, ...], list[str]]:
    """The ``experimental_labs`` of book.toml: names of labs that are off unless a book enables them."""
    offered = sorted(name for name, kind in all_labs().items() if kind.experimental)
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        return (), [f"'experimental_labs' must be a list of lab names, such as {json.dumps(offered[:1])}"]
    problems = [
        f"'experimental_labs' names {name!r}, which is not an experimental lab; experimental labs: {', '.join(offered)}"
        for name in value
        if name not in offered
    ]
    return tuple(value), problems
