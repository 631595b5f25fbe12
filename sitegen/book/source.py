"""Stage "source": read the book and every chapter's front matter, write nothing.

Front matter is YAML read as every other tool would, composed into nodes so that each message names
the file's line (:func:`parse_front_matter`). Problems are collected, not raised: the next stage
still renders the chapters that were read, so one run reports the errors of every file (decision 0061).
"""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sitegen.book.inside import within
from sitegen.errors import ContentError
from sitegen.labs.discovery import all_labs
from sitegen.memo import NO_MEMO, Memo

SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
NUMBER = re.compile(r"[0-9]+")
FIELDS = ("number", "part", "title", "slug")
CLOSER = re.compile(r"(?: {0,3}-{3,}|\.\.\.)[ \t]*")
"""A line that ends front matter for mdit-py-plugins: three or more dashes indented
less than a code block, or YAML's ``...``; trailing blanks allowed."""
STR, INT, NULL, MAP = (f"tag:yaml.org,2002:{name}" for name in ("str", "int", "null", "map"))
"""The YAML tags the safe loader resolves plain values to (``3`` is INT, an empty value NULL)."""
BOOK_FIELDS = (
    "title",
    "experimental_labs",
    "call_timeout",
    "build_timeout",
    "sweep",
    "hide_python",
    "planned_chapters",
)
CALL_TIMEOUT = (5, 1, 600)
"""``call_timeout`` in seconds: the default, and the least and most a book may set."""
BUILD_TIMEOUT = (10, 1, 600)
"""``build_timeout`` in seconds: the default, and the least and most a book may set."""
TIMEOUTS = {
    "call_timeout": (CALL_TIMEOUT, "how long a lab's call to Python may take before the page stops it"),
    "build_timeout": (BUILD_TIMEOUT, "how long a lab's call to the model may take before the build stops it"),
}
NOT_A_FILE = "not a file: a chapter must be a Markdown file (a symbolic link to no file, or a folder named *.md?)"
YAML_DEPTH = 20
"""How deep front matter may nest lists and mappings: its fields are text and numbers, so any
nesting is already an error, and this bound keeps PyYAML's recursive composer far from the stack's end."""
YAML_OPENERS = (
    yaml.BlockMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.FlowSequenceStartToken,
)
YAML_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)
SLUG_LENGTH = 100
"""The longest slug: it is the page's file name (``slug.html``) and its URL, and file systems refuse a
name of more than 255 bytes; 100 characters is already more than a reader can take in."""
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
class Field:
    """One front matter field: its value as YAML composed it, and the line of its key."""

    node: yaml.Node
    line: int


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
    call_timeout: float = CALL_TIMEOUT[0]
    """Seconds a lab's call to Python may take in the page before it is stopped (the lab says so and
    keeps the reader's values)."""
    build_timeout: float = BUILD_TIMEOUT[0]
    """Seconds each of the build's calls to the model (starting views, warm-up) may take before the
    build stops it and fails at the lab's line (``sitegen/labs/model_process.py``)."""
    sweep: bool = True
    """Whether the build calls each placed lab at every value its controls reach and each button
    (``sitegen.labs.stage.swept``); ``sweep = false`` for a book whose lab loops on purpose
    (tests/books/runaway)."""
    hide_python: tuple[str, ...] = ()
    """Labs whose "Python" disclosure (``sitegen/labs/sources.py``) this book leaves out."""
    planned_chapters: tuple[str, ...] = ()
    """Slugs of chapters still to be written: a link to one renders as its text marked "(coming)",
    with no warning (``sitegen/markdown/plugins/chapter_links.py``)."""


def parse_front_matter(path: str, text: str) -> tuple[FrontMatter | None, list[ContentError]]:
    """The front matter of ``text`` and the errors in it, each with its line.

    Front matter is a YAML mapping between ``---`` lines, read with PyYAML's safe loader (no tags
    that run code), so ``title: "Cache"`` means Cache, as every other tool that reads front matter
    would say. It is composed into nodes first rather than loaded straight into a dict: nodes keep
    their line, so every message names the file's line, and a field given twice is an error instead
    of YAML's silent "last one wins". Where the block ends follows the rule of mdit-py-plugins'
    front-matter plugin exactly, so the build never accepts a block that the Markdown stage would
    then read differently.
    """
    lines = text.split("\n")
    if lines[0].rstrip(" \t") != "---":
        if lines[0].startswith("---"):
            return None, [ContentError(path, 1, f"front matter must open with a line '---' alone, not {lines[0]!r}")]
        return None, [ContentError(path, 1, "missing front matter: the file must start with a '---' line")]
    end = next((i for i in range(1, len(lines)) if CLOSER.fullmatch(lines[i])), None)
    if end is None:
        return None, [ContentError(path, 1, "front matter is not closed: add a '---' line after its last field")]
    root, errors = compose(path, "\n".join(lines[1:end]))
    if errors:
        return None, errors
    if root is None:  # nothing but blank lines and comments: every field is missing
        root = yaml.MappingNode(MAP, [])
    if not isinstance(root, yaml.MappingNode):
        message = f"front matter must be fields, one 'key: value' a line, not {described(root)}"
        return None, [ContentError(path, line_of(root), message)]
    fields, errors = read_fields(path, root)
    if errors:
        return None, sorted(errors)
    return check_fields(path, fields)


def compose(path: str, block: str) -> tuple[yaml.Node | None, list[ContentError]]:
    """The front matter ``block`` composed into nodes, or the one reason it cannot be, at its line.

    Nesting is measured from the scanner's tokens before composing: PyYAML composes a list in a
    list by recursion, and 500 nested ``[`` overflow Python's stack. A character YAML refuses (a
    NUL, say) is found by PyYAML's reader, whose error has a position but no mark.
    """
    try:
        deep = too_deep(block)
        if deep is not None:
            message = f"front matter nests lists or mappings more than {YAML_DEPTH} deep"
            message += " (its fields are a number and texts)"
            return None, [ContentError(path, int(deep.start_mark.line) + 2, message)]
        return yaml.compose(block, Loader=yaml.SafeLoader), []
    except yaml.MarkedYAMLError as error:
        return None, [yaml_problem(path, error)]
    except yaml.reader.ReaderError as error:
        line = block.count("\n", 0, error.position) + 2
        column = error.position - (block.rfind("\n", 0, error.position) + 1) + 1
        message = f"front matter holds U+{error.character:04X}, a character YAML does not allow (column {column})"
        return None, [ContentError(path, line, message)]


def too_deep(block: str) -> yaml.Token | None:
    """The token that opens a list or mapping more than :data:`YAML_DEPTH` levels in, if any."""
    depth = 0
    for token in yaml.scan(block, Loader=yaml.SafeLoader):
        if isinstance(token, YAML_OPENERS):
            depth += 1
            if depth > YAML_DEPTH:
                return token
        elif isinstance(token, YAML_CLOSERS):
            depth -= 1
    return None


def line_of(node: yaml.Node) -> int:
    """The file's line of a node of the front matter, which starts on the file's line 2."""
    return int(node.start_mark.line) + 2


def described(node: yaml.Node) -> str:
    """A value as the author wrote it, for messages: the text of a scalar, else what it is."""
    if isinstance(node, yaml.ScalarNode):
        return repr(node.value)
    return "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"


def yaml_problem(path: str, error: yaml.MarkedYAMLError) -> ContentError:
    """PyYAML's message at the file's line: where the construct it was reading began, if it says.

    An unclosed quote is reported where the quote opens, not where the block ends.
    """
    problem = error.problem or "cannot be read"
    mark = error.problem_mark
    line = int(mark.line) + 2 if mark is not None else 2
    where = f" (column {mark.column + 1})" if mark is not None else ""
    if error.context and error.context_mark is not None:
        where = f" (line {line}, column {mark.column + 1})" if mark is not None else ""
        problem = f"{error.context}, {problem}"
        line = int(error.context_mark.line) + 2
    hint = ""
    if error.problem == "mapping values are not allowed here":
        hint = "; quote a value that holds ': ', as in title: \"Cache: the sequel\""
    return ContentError(path, line, f"front matter is not valid YAML: {problem}{where}{hint}")


def read_fields(path: str, root: yaml.MappingNode) -> tuple[dict[str, Field], list[ContentError]]:
    """The mapping's fields by name, and every unknown, repeated or missing one."""
    fields: dict[str, Field] = {}
    errors: list[ContentError] = []
    for key, value in root.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else described(key)
        line = line_of(key)
        if name not in FIELDS:
            message = f"unknown front matter field {name!r}; expected {', '.join(FIELDS)}"
            errors.append(ContentError(path, line, message))
        elif name in fields:
            message = f"front matter field {name!r} is given twice (first on line {fields[name].line})"
            errors.append(ContentError(path, line, message))
        else:
            fields[name] = Field(value, line)
    errors.extend(ContentError(path, 1, f"front matter is missing {key!r}") for key in FIELDS if key not in fields)
    return fields, errors


def whole_number(node: yaml.Node) -> int | None:
    """``3`` as written: ASCII digits read in base ten (YAML 1.1 would read ``010`` as octal 8)."""
    if isinstance(node, yaml.ScalarNode) and node.tag == INT and NUMBER.fullmatch(node.value):
        return int(node.value, 10)
    return None


def check_fields(path: str, fields: Mapping[str, Field]) -> tuple[FrontMatter | None, list[ContentError]]:
    """Every field's value checked (all of them, so one run shows every problem), then read."""
    errors: list[ContentError] = []

    def problem(key: str, message: str) -> None:
        errors.append(ContentError(path, fields[key].line, f"front matter {message}"))

    node = fields["number"].node
    number = whole_number(node)
    if number is None:
        quoted = isinstance(node, yaml.ScalarNode) and node.tag == STR and NUMBER.fullmatch(node.value)
        problem(
            "number", f"'number' must be a whole number, not {described(node)}{' (drop the quotes)' if quoted else ''}"
        )
    texts: dict[str, str] = {}
    for key in ("part", "title", "slug"):
        node = fields[key].node
        if isinstance(node, yaml.ScalarNode) and node.tag in (STR, NULL):
            texts[key] = node.value.strip() if node.tag == STR else ""
            if not texts[key] and key != "slug":
                problem(key, f"{key!r} is empty")
        else:
            hint = f' (quote it: {key}: "{node.value}")' if isinstance(node, yaml.ScalarNode) else ""
            problem(key, f"{key!r} must be text, not {described(node)}{hint}")
    slug = texts.get("slug")
    if slug is not None and not SLUG.fullmatch(slug):
        problem("slug", f"'slug' must be lowercase letters, digits and dashes, not {slug!r}")
    if slug is not None and len(slug) > SLUG_LENGTH:
        length = f"{len(slug):,} characters; at most {SLUG_LENGTH} are allowed"
        problem("slug", f"'slug' is {length} (it names the page's file)")
    if slug in RESERVED:
        problem("slug", f"'slug' cannot be {slug!r}: {RESERVED[slug]}")
    if errors or number is None or slug is None:
        return None, sorted(errors)
    lines_of = {key: field.line for key, field in fields.items()}
    return FrontMatter(number, texts["part"], texts["title"], slug, lines_of), []


def decode(path: str, data: bytes) -> tuple[str | None, list[ContentError]]:
    """``data`` as text (a leading byte-order mark dropped), or the line of its first bad byte."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return None, [ContentError(path, line, f"not UTF-8 text ({error.reason} at byte {error.start})")]


def load_source(content: Path, memo: Memo = NO_MEMO) -> Source:
    """Read ``content/*.md``; every problem is kept on the result, none is raised. serve's ``memo``
    keeps each chapter's front matter by its text.

    A chapter that is a symbolic link out of ``content`` is an error at the file, and is not read.
    Problems are collected, not raised: the next stage still renders the chapters that were read, so
    one run reports the errors of every file.
    """
    base = content.parent
    files = sorted(content.glob("*.md"))
    if not files:
        shown = content.relative_to(base).as_posix()
        return Source((), (ContentError(shown, 0, "no chapters (*.md) found"),))
    chapters: list[ChapterSource] = []
    unlisted: list[Unlisted] = []
    errors: list[ContentError] = []
    slugs: dict[str, tuple[str, int]] = {}
    root = content.resolve()
    for file in files:
        path = file.relative_to(base).as_posix()
        real = within(root, file)
        if isinstance(real, str):
            errors.append(ContentError(path, 0, real))
            continue
        if not real.is_file():  # a link to nothing, or a folder named like a chapter
            errors.append(ContentError(path, 0, NOT_A_FILE))
            continue
        text, problems = decode(path, real.read_bytes())
        errors.extend(problems)
        if text is None:
            continue
        meta, problems = memo.get(("front matter", path), text, functools.partial(parse_front_matter, path, text))
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


def deepest_line(text: str) -> int:
    """The line where ``[`` and ``{`` first nest deepest, outside strings and comments (as near as a
    scan of characters can tell: TOML's multi-line strings are read as their quotes)."""
    depth = deepest = 0
    line = found = 1
    quote = ""
    comment = escaped = False
    for char in text:
        if char == "\n":
            line, comment = line + 1, False
        elif comment or escaped:
            escaped = False
        elif quote:
            escaped = char == "\\" and quote == '"'
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            comment = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest, found = depth, line
        elif char in "]}":
            depth -= 1
    return found


def key_line(text: str, key: str) -> int:
    """The line where ``key`` is set (``key = …`` or ``[key]``), or 1 when it cannot be found."""
    pattern = re.compile(rf"""\s*(?:\[+\s*)?["']?{re.escape(key)}["']?\s*[=\]]""")
    return next((number for number, line in enumerate(text.splitlines(), 1) if pattern.match(line)), 1)


def build_timeout(path: Path) -> float:
    """The book's ``build_timeout``, read before the labs are imported (the model's import is limited by
    it, and reading the whole book needs the labs): the default when book.toml does not give a valid
    one, which :func:`load_book` then reports."""
    default, least, most = BUILD_TIMEOUT
    try:
        value = tomllib.loads(path.read_text(encoding="utf-8")).get("build_timeout", default)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return default
    valid = isinstance(value, int | float) and not isinstance(value, bool) and least <= value <= most
    return float(value) if valid else default


def read_toml(path: Path, shown: str) -> tuple[tuple[dict[str, Any], str] | None, list[ContentError]]:
    """``book.toml``'s settings and its text, or why it cannot be read (a symbolic link out of its
    folder is one, unread)."""
    real = within(path.parent.resolve(), path)
    if isinstance(real, str):
        return None, [ContentError(shown, 0, real)]
    try:
        data = real.read_bytes()
    except FileNotFoundError:
        return None, [ContentError(shown, 0, 'missing; it names the book (title = "...")')]
    text, errors = decode(shown, data)
    if text is None:
        return None, errors
    try:
        return (tomllib.loads(text), text), errors
    except tomllib.TOMLDecodeError as error:
        return None, [toml_problem(shown, text, error)]
    except RecursionError:  # tomllib reads nested arrays and inline tables by recursion
        message = "not valid TOML: arrays or inline tables nested too deeply to read (its fields need no nesting)"
        return None, [ContentError(shown, deepest_line(text), message)]


def load_book(path: Path, shown: str) -> tuple[Book | None, list[ContentError]]:
    """Read ``book.toml``: the book, or every problem with it."""
    read, errors = read_toml(path, shown)
    if read is None:
        return None, errors
    settings, text = read
    for key in settings:
        if key not in BOOK_FIELDS:
            message = f"unknown field {key!r}; expected {', '.join(BOOK_FIELDS)}"
            errors.append(ContentError(shown, key_line(text, key), message))
    title = settings.get("title")
    if title is None:
        errors.append(ContentError(shown, 1, "missing 'title', the name of the book (title = \"...\")"))
    elif not isinstance(title, str) or not title.strip():
        errors.append(ContentError(shown, key_line(text, "title"), "'title' must be a non-empty string"))
    labs = all_labs()
    experimental, problems = lab_names(
        "experimental_labs",
        settings.get("experimental_labs", []),
        sorted(name for name, kind in labs.items() if kind.experimental),
        "experimental lab",
    )
    errors.extend(ContentError(shown, key_line(text, "experimental_labs"), problem) for problem in problems)
    hidden, problems = lab_names("hide_python", settings.get("hide_python", []), sorted(labs))
    errors.extend(ContentError(shown, key_line(text, "hide_python"), problem) for problem in problems)
    timeouts: dict[str, float] = {}
    for key, ((default, least, most), meaning) in TIMEOUTS.items():
        timeout = settings.get(key, default)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not least <= timeout <= most:
            message = f"{key!r} must be a number of seconds from {least} to {most} ({meaning}), not {timeout!r}"
            errors.append(ContentError(shown, key_line(text, key), message))
        timeouts[key] = timeout
    planned, problems = planned_chapters(settings.get("planned_chapters", []))
    errors.extend(ContentError(shown, key_line(text, "planned_chapters"), problem) for problem in problems)
    sweep = settings.get("sweep", True)
    if not isinstance(sweep, bool):
        message = f"'sweep' must be true or false (whether the build tries every lab's values), not {sweep!r}"
        errors.append(ContentError(shown, key_line(text, "sweep"), message))
    if errors or not isinstance(title, str):
        return None, errors
    return Book(
        title=title,
        experimental_labs=experimental,
        call_timeout=timeouts["call_timeout"],
        build_timeout=timeouts["build_timeout"],
        sweep=sweep,
        hide_python=hidden,
        planned_chapters=planned,
    ), []


def planned_chapters(value: object) -> tuple[tuple[str, ...], list[str]]:
    """The ``planned_chapters`` of book.toml: slugs of chapters not written yet, which links may name."""
    if not isinstance(value, list) or not all(isinstance(slug, str) for slug in value):
        return (), ["'planned_chapters' must be a list of chapter slugs, such as [\"harness\"]"]
    problems = [
        f"'planned_chapters' names {slug!r}, which is not a slug (lowercase letters, digits and dashes)"
        for slug in value
        if not SLUG.fullmatch(slug)
    ]
    return tuple(value), problems


def lab_names(key: str, value: object, offered: Sequence[str], kind: str = "lab") -> tuple[tuple[str, ...], list[str]]:
    """A book.toml list of lab names (``hide_python``, ``experimental_labs``), each one of ``offered``
    (sorted): the names, and a problem for the list itself or for each name that is not a ``kind``.
    One reader for every such list, so their messages cannot drift apart."""
    article = "an" if kind[0] in "aeiou" else "a"
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        return (), [f"{key!r} must be a list of lab names, such as {json.dumps(list(offered[:1]))}"]
    problems = [
        f"{key!r} names {name!r}, which is not {article} {kind}; {kind}s: {', '.join(offered)}"
        for name in value
        if name not in offered
    ]
    return tuple(value), problems
