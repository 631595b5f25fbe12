"""A bounded fuzz test of the build: whatever an author's chapter holds, the build succeeds or says where.

Issue 34 built 300 fuzzed chapters by hand and found tracebacks (a NUL in front matter, lists and
mappings nested past Python's stack, a slug too long for a file name) and text dropped without a word.
Here hypothesis mutates the kitchen-sink chapter (every construct, a lab, images, a formula, a file):
a front matter field given a value at the edges of YAML, lines deleted, repeated or swapped,
characters replaced, the parsers' edge cases inserted anywhere. The property: the build either
writes the site or raises ``BuildError`` whose errors are all ``ContentError`` (``path:line:
message``); never another exception, never a hang (each build is stopped after ``HANG`` seconds by
an alarm).

Hypothesis rather than a seeded generator of our own: it draws the mutations, shrinks a failing
chapter to the fewest mutations that still fail and prints them. ``derandomize`` makes every run
draw the same examples, so ``make test`` is deterministic and a failure repeats from the commit
alone; no example database is written (hypothesis keeps only a cache in ``.hypothesis/``, which git
ignores). It runs in-process: the runtime stage (Pyodide, the wheel) is the one stage left out (its
inputs are the model's, not the chapter's), so each build takes about 0.2 s; the templates, which no
example changes, are compiled once for all of them (``make_templates`` kept per folder: Jinja's compile
was a fifth of a build's CPU), so each example renders the same templates a build of its own would.
"""

from __future__ import annotations

import functools
import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen import pipeline
from sitegen.errors import ContentError
from sitegen.site.templates import make_templates
from tests.conftest import ROOT
from tests.sitegen.test_invalid_content import search_only_project

BOOK = ROOT / "tests" / "books" / "kitchen-sink" / "content"
CHAPTER = "01-kitchen-sink.md"
EXAMPLES = 100
"""Builds a run: 19 s on this machine's two cores with other work running (load 5), within the issue's 60 s."""
HANG = 30
"""Seconds one build may take before it counts as a hang (a clean one takes under one)."""

EDGES = [
    ":::",
    "::: english",
    "::: warning",
    "::: lab decode prompt=8",
    "::: lab decode prompt=0 tokens=",
    '::: lab next-request request1="open',
    "::: lab square",
    "[[paid]]",
    "[[nothing]]",
    "$\\frac{1}{$",
    "$$",
    "```",
    "~~~ python",
    "<!--",
    "<div>",
    "[^note]",
    "[^note]: The note.",
    "![](img/none.png)",
    "![A file](files/costs.csv)",
    "[a link](chapter:nowhere#here)",
    "[a link](#nowhere)",
    "[a link](/index.html)",
    "[a link](../outside.md)",
    "## A heading",
    "Term\n: Its definition",
    "| a | b |\n|---|---|\n| 1 |",
    "- [x] done",
    "---",
    "...",
    "> " * 120 + "Quoted too deep.",
    "".join(f"{'  ' * level}- level {level}\n" for level in range(60)),
    "[" * 3000,
    "*" * 400 + "x" + "*" * 400,
    "\\",
    "&#0; &#x110000; &nbsp",
    "<textarea>",
    "\t\t\tindented",
]
"""Lines that sit at the edges of the parsers (markdown-it, PyYAML, the plugins, Temml, the link checker)."""
FIELDS = ("number", "part", "title", "slug")
VALUES = [
    "s" * 300,
    "[" * 600,
    "{a: " * 300,
    "- " * 300 + "x",
    "Bro\x00ken",
    "'open",
    '"\\x"',
    "",
    "99999999999999999999",
    "3.5",
    "index",
    "Two Words",
    "&anchor *anchor",
    "!!python/object:os.system",
    "[a, b]",
]
"""Front matter values at the edges of PyYAML and of the fields' checks."""
CHARACTERS = st.sampled_from([*"\x00\x07\x1b\ufeff\u202e\u2028\r\t\n\\`$[]():{}<>#|*_~!-=\"' \x85", "😀", "\U0010ffff"])


@st.composite
def mutation(draw: st.DrawFn) -> tuple[str, int, str]:
    """One change of the chapter: its kind, where (any non-negative number, taken modulo the text's
    lines or characters) and what."""
    kind = draw(st.sampled_from(["insert", "delete", "repeat", "swap", "character", "cut"]))
    where = draw(st.integers(min_value=0, max_value=10_000))
    return kind, where, draw(st.sampled_from(EDGES) if kind == "insert" else CHARACTERS)


CHANGES = st.tuples(
    st.one_of(st.none(), st.tuples(st.sampled_from(FIELDS), st.sampled_from(VALUES))),
    st.lists(mutation(), max_size=4),
)
"""A front matter field's new value (or none), then up to four changes anywhere."""


def mutated(text: str, field: tuple[str, str] | None, changes: list[tuple[str, int, str]]) -> str:
    """``text`` with ``field`` set, then each change applied in turn."""
    if field is not None:
        name, value = field
        lines = text.split("\n")
        text = "\n".join(f"{name}: {value}" if line.startswith(f"{name}: ") else line for line in lines)
    for kind, where, what in changes:
        lines = text.split("\n")
        line = where % len(lines)
        if kind == "insert":
            lines.insert(line, what)
        elif kind == "delete":
            del lines[line]
        elif kind == "repeat":
            lines.insert(line, lines[line])
        elif kind == "swap":
            other = (line + 1) % len(lines)
            lines[line], lines[other] = lines[other], lines[line]
        elif kind == "character" and text:
            position = where % len(text)
            lines = (text[:position] + what + text[position + 1 :]).split("\n")
        elif kind == "cut":
            lines = text[: where % (len(text) + 1)].split("\n")
        text = "\n".join(lines)
    return text


class Hang(Exception):
    """A build took longer than ``HANG`` seconds."""


@contextmanager
def alarm(seconds: int) -> Iterator[None]:
    """Raise Hang in the main thread if the block runs longer than ``seconds``."""

    def ring(_signal: int, _frame: FrameType | None) -> None:
        raise Hang(f"the build took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_a_mutated_chapter_builds_or_fails_with_content_errors_only(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(BOOK, content)
    original = (BOOK / CHAPTER).read_text(encoding="utf-8")
    options = pipeline.Options(
        root=search_only_project(),
        content=content,
        out=tmp_path / "out" / "site",
        dist=tmp_path / "out" / "dist",
        single_file=True,
    )

    compiled_once = functools.cache(make_templates)

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(CHANGES)
    def builds_or_says_where(changes: tuple[tuple[str, str] | None, list[tuple[str, int, str]]]) -> None:
        (content / CHAPTER).write_text(mutated(original, *changes), encoding="utf-8", newline="")
        try:
            with (
                alarm(HANG),
                mock.patch.object(pipeline, "cached_runtime", return_value=None),
                mock.patch.object(pipeline, "make_templates", compiled_once),
            ):
                pipeline.build(options)
        except pipeline.BuildError as failure:
            assert failure.errors
            for error in failure.errors:
                assert isinstance(error, ContentError), error
                assert error.path and error.line >= 0 and error.message, error

    builds_or_says_where()
