"""Stage 1, source: read every chapter and its front matter, write nothing.

Front matter is a tiny ``key: value`` block between ``---`` lines. It is parsed
here rather than as YAML so that every error can name its line, and so that
the build needs no YAML library for four fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sitegen.errors import BuildError, ContentError

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
FIELDS = ("number", "part", "title", "slug")


@dataclass(frozen=True)
class FrontMatter:
    """What a chapter says about itself."""

    number: int
    part: str
    title: str
    slug: str

    @property
    def headline(self) -> str:
        """``03 · The model``: the kicker above the chapter title."""
        return f"{self.number:02d} · {self.part}"


@dataclass(frozen=True)
class ChapterSource:
    """One Markdown file as read from disk."""

    path: str
    """Path as shown in messages, relative to the project (``content/03-cache.md``)."""
    text: str
    meta: FrontMatter


@dataclass(frozen=True)
class Source:
    """Every chapter of the book, ordered by number."""

    chapters: tuple[ChapterSource, ...]


def parse_front_matter(path: str, text: str) -> tuple[FrontMatter | None, list[ContentError]]:
    """The front matter of ``text`` and the errors in it, each with its line."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None, [ContentError(path, 1, "missing front matter: the file must start with a '---' line")]
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        return None, [ContentError(path, 1, "front matter is not closed: add a '---' line after it")]
    values: dict[str, tuple[str, int]] = {}
    errors: list[ContentError] = []
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip():
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or not key:
            errors.append(ContentError(path, number, f"front matter line is not 'key: value': {line.strip()!r}"))
        elif key not in FIELDS:
            errors.append(
                ContentError(path, number, f"unknown front matter field {key!r}; expected {', '.join(FIELDS)}")
            )
        elif key in values:
            errors.append(ContentError(path, number, f"front matter field {key!r} is given twice"))
        else:
            values[key] = (value.strip(), number)
    for key in FIELDS:
        if key not in values:
            errors.append(ContentError(path, 1, f"front matter is missing {key!r}"))
    if errors:
        return None, errors
    number_text, number_line = values["number"]
    if not number_text.isdigit():
        errors.append(
            ContentError(path, number_line, f"front matter 'number' must be a whole number, not {number_text!r}")
        )
    slug, slug_line = values["slug"]
    if not SLUG.match(slug):
        errors.append(
            ContentError(
                path, slug_line, f"front matter 'slug' must be lowercase letters, digits and dashes, not {slug!r}"
            )
        )
    for key in ("part", "title"):
        if not values[key][0]:
            errors.append(ContentError(path, values[key][1], f"front matter {key!r} is empty"))
    if errors:
        return None, errors
    return FrontMatter(int(number_text), values["part"][0], values["title"][0], slug), []


def load_source(root: Path, content: Path) -> Source:
    """Read ``content/*.md``; raise BuildError with every problem at once."""
    files = sorted(content.glob("*.md"))
    if not files:
        raise BuildError([f"{content.relative_to(root)}: no chapters (*.md) found"])
    chapters: list[ChapterSource] = []
    errors: list[ContentError] = []
    slugs: dict[str, str] = {}
    for file in files:
        path = file.relative_to(root).as_posix()
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            errors.append(ContentError(path, 1, f"not UTF-8 text ({error.reason} at byte {error.start})"))
            continue
        meta, problems = parse_front_matter(path, text)
        errors.extend(problems)
        if meta is None:
            continue
        if meta.slug in slugs:
            errors.append(ContentError(path, 1, f"slug {meta.slug!r} is already used by {slugs[meta.slug]}"))
            continue
        slugs[meta.slug] = path
        chapters.append(ChapterSource(path, text, meta))
    if errors:
        raise BuildError(sorted(errors))
    return Source(tuple(sorted(chapters, key=lambda chapter: (chapter.meta.number, chapter.path))))
