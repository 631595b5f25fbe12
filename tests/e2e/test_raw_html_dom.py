"""What a browser builds from a chapter's raw HTML holds nothing the allow-list refuses (issue 43).

The build checks raw HTML with the HTML standard's tokenizer and gives the page what it checked
(sitegen/markdown/html_rules.py); this asks Chromium what it made of it. Fragments of hostile
raw HTML (tests/raw_html_fuzz.py: comments the standard ends early or never, CDATA, processing
instructions, ``<svg>``/``<math>`` nested, text elements, odd casing), half on lines of their own
and half inside paragraphs, each followed by a sentinel paragraph, are checked as the build
checks them; the ones it passes, with the benign comment forms an author writes, make one
chapter, built once and opened once. Its DOM must hold only allowed elements and attributes, and
every sentinel must be there, in order: no comment or element of text swallowed what followed.

One build and one page for a few hundred fragments, rather than a build per fragment: the suite
must not grow slower for it. The fragments come from a seeded ``random.Random`` (hypothesis's
first example is its simplest, so one example would be a dull one); the in-process property of
tests/sitegen/markdown/test_html_rules.py draws the same generator through hypothesis.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page

from sitegen.errors import BuildError, ContentError
from sitegen.markdown.html_rules import ATTRIBUTES, ELEMENTS, GLOBAL_ATTRIBUTES, attribute_problem
from sitegen.markdown.pages import make_markdown
from sitegen.markdown.plugins.env import new_env
from tests.conftest import Built, build_book
from tests.e2e.conftest import opened_book
from tests.raw_html_fuzz import fragment

pytestmark = pytest.mark.e2e

SEED = 43
DRAWN = 1200
"""Fragments drawn; about one in nine passes the build's check."""
FRONT = "---\nnumber: 1\npart: Tests\ntitle: Fuzz\nslug: fuzz\n---\n\n"
BENIGN = [
    "<!-- a note -->",
    "<!---->",
    "<!-- a -- b --->",
    "<!-- two\nlines -->",
    "Inline <!-- a note --> text and <kbd>Ctrl</kbd>.",
    '<div class="note"><!-- inside --><p>Kept.</p></div>',
    "> <!-- in a quote -->\n> Quoted.",
    "- <!-- in a list -->\n- Listed.",
]
"""The comment forms an author writes: they must build, and hide nothing."""
XHTML = "http://www.w3.org/1999/xhtml"


def sentinel(index: int) -> str:
    return f"Fuzz sentinel {index}."


def placed(index: int, raw: str) -> str:
    """A fragment on lines of its own (Markdown's HTML block) or inside a paragraph (inline HTML)."""
    return raw if index % 2 else f"Inline {index}: {raw} done."


def chapter(pieces: list[tuple[int, str]]) -> tuple[str, dict[int, int]]:
    """The chapter holding ``pieces`` (index, Markdown), each followed by its sentinel; the first line of each."""
    text, starts = FRONT, {}
    for index, piece in pieces:
        starts[index] = text.count("\n") + 1
        text += f"{piece}\n\n{sentinel(index)}\n\n"
    return text, starts


def passing(drawn: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The pieces the chapter stage passes, each alone before its sentinel."""
    md = make_markdown({})
    kept = []
    for index, piece in drawn:
        env = new_env("content/fuzz.md")
        md.parse(chapter([(index, piece)])[0], env)
        if not env.errors:
            kept.append((index, piece))
    return kept


def built_together(pieces: list[tuple[int, str]], content: Path, out: Path) -> tuple[list[tuple[int, str]], Built]:
    """The book of ``pieces``, built; what only the whole build refuses (a link to a file the book
    lacks) left out until it builds (so far, nothing has been)."""
    for _ in range(5):
        text, starts = chapter(pieces)
        (content / "fuzz.md").write_text(text, encoding="utf-8")
        try:
            return pieces, build_book(out, content)
        except BuildError as failure:
            lines = {error.line for error in failure.errors if isinstance(error, ContentError)}
            refused = {max(i for i, start in starts.items() if start <= line) for line in lines}
            pieces = [(index, piece) for index, piece in pieces if index not in refused]
    raise AssertionError("the chapter of passing fragments never built")


DOM = """() => {
  const skip = new Set([
    document.querySelector("body > header.site-header"),
    document.querySelector("article.chapter > header.chapter-header"),
  ]);
  const found = [];
  const walk = (parent) => {
    for (const element of parent.children) {
      if (skip.has(element)) continue;
      const attributes = [...element.attributes].map((a) => [a.name, a.value]);
      found.push([element.localName, element.namespaceURI, attributes]);
      walk(element);
    }
  };
  walk(document.body);
  return found;
}"""
TEMPLATE = {("main", ()), ("article", (("class", "chapter"),))}
"""The chapter template's own elements around the chapter (its headers are skipped whole)."""


def test_the_dom_chromium_builds_from_raw_html_holds_only_what_the_allow_list_allows(
    page: Page, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    drawn = [(index, placed(index, fragment(rng))) for index in range(DRAWN)]
    benign = [(DRAWN + index, piece) for index, piece in enumerate(BENIGN)]
    assert passing(benign) == benign, "a benign comment form was refused"
    content = tmp_path / "content"
    content.mkdir()
    (content / "book.toml").write_text('title = "Fuzz"\n', encoding="utf-8")
    pieces, book = built_together([*passing(drawn), *benign], content, tmp_path / "out")
    assert set(benign) <= set(pieces) and len(pieces) > len(benign) + 50
    with opened_book("http", book, "fuzz.html", page, tmp_path) as (opened, url):
        opened.goto(url)
        assert refused_in(opened.evaluate(DOM)) == []  # before the audit, which fails on what they load
        paragraphs = opened.locator("p").all_inner_texts()
    shown = [text for text in paragraphs if re.fullmatch(r"Fuzz sentinel \d+\.", text)]
    assert shown == [sentinel(index) for index, _ in pieces]


def refused_in(elements: list[tuple[str, str, list[list[str]]]]) -> list[str]:
    """Each element of the DOM, or attribute, that the allow-list refuses (the template's own aside)."""
    refused = []
    for name, namespace, attributes in elements:
        if (name, tuple(map(tuple, attributes))) in TEMPLATE:
            continue
        if namespace != XHTML or name not in ELEMENTS:
            refused.append(f"<{name}> ({namespace})")
            continue
        allowed = GLOBAL_ATTRIBUTES | ATTRIBUTES.get(name, set())
        refused += [
            f"<{name} {attribute}={value!r}>: {problem}"
            for attribute, value in attributes
            if (problem := attribute_problem(name, attribute, value, allowed)) is not None
        ]
    return refused
