"""The added-chapter book (tests/books/added-chapter/) uses everything docs/authoring.md and its pages document.

The book's own tests that read the whole book run on content/ with that book added too
(tests/conftest.py's BOOKS), so what the book holds is what those tests are known to pass on. An
author writes from the guide; whatever the guide documents must be in that book, or a correct
chapter using it may fail the suite as the three of issue 46 did. What the guide documents is read
from the guide's own structure, never listed here:

- its Markdown constructs: every ```markdown example, parsed by the build's own Markdown (every
  plugin), as the kinds of tokens it makes;
- the lab controls it names in code (`Slider`…) that kvpage.lab's ``Control`` has, and the words of
  the picture vocabulary it names in code (`bar_chart(…)`…): functions of kvpage.pictures that draw
  a part. One lab of the book must use every one of them.
"""

from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Iterable, Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

import kvpage.pictures
from kvpage.lab import Control, Lab
from sitegen.book.source import load_book, load_source
from sitegen.labs.discovery import all_labs
from sitegen.markdown.pages import make_markdown, parse_chapters
from sitegen.markdown.plugins.env import new_env
from tests.conftest import ROOT

ADDED = ROOT / "tests" / "books" / "added-chapter" / "content"
GUIDE_PAGES = ("authoring.md", "refusals.md", "reader.md")
"""The guide and the pages it sends an author to (issue 46): what any of them documents, the book uses."""
GUIDE = [
    token
    for page in GUIDE_PAGES
    for token in MarkdownIt("commonmark").parse((ROOT / "docs" / page).read_text(encoding="utf-8"))
]


def every_token(tokens: Iterable[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        yield from every_token(token.children or ())


def kinds(tokens: Iterable[Token]) -> set[str]:
    """The constructs ``tokens`` hold: each token's type, a heading's with its level, an image's with
    whether it only decorates (no alt text)."""
    found = set()
    for token in every_token(tokens):
        if token.type == "heading_open":
            found.add(f"heading {token.tag}")
        elif token.type == "image":
            found.add("image, decorative" if not token.content.strip('"') else "image")
        elif not token.type.endswith("_close"):
            found.add(token.type)
    return found


def documented_constructs() -> dict[str, int]:
    """Each construct of the guide's ```markdown examples, at the line of the first example that shows it."""
    md = make_markdown({}, all_labs())
    found: dict[str, int] = {}
    for token in GUIDE:
        if token.type == "fence" and token.info.strip() == "markdown" and token.map:
            for kind in kinds(md.parse(token.content, new_env("docs/authoring.md"))):
                found.setdefault(kind, token.map[0] + 1)
    return found


def code_in_guide() -> set[str]:
    """The name each code span of the guide opens with (`bar_chart(bars, …)` is bar_chart)."""
    spans = (child.content for token in every_token(GUIDE) if token.type == "code_inline" for child in [token])
    return {span.split("(", 1)[0].strip() for span in spans}


def documented_controls() -> set[str]:
    return code_in_guide() & {kind.__name__ for kind in typing.get_args(Control)}


def documented_picture_words() -> set[str]:
    """The picture vocabulary's words the guide names: kvpage.pictures' functions that draw a part."""
    words = {name for name in kvpage.pictures.__all__ if inspect.isfunction(getattr(kvpage.pictures, name))}
    drawing = {name for name in words if "list[JSONValue]" in str(inspect.signature(getattr(kvpage.pictures, name)))}
    return code_in_guide() & drawing


def added_labs() -> list[Lab]:
    """The labs the added book's chapters place, as the build's own Markdown finds them."""
    book, errors = load_book(ADDED / "book.toml", "book.toml")
    assert book is not None, errors
    chapters = parse_chapters(load_source(ADDED), book.experimental_labs, book.planned_chapters)
    return [placement.kind for placement in chapters.placements]


def called(lab: Lab) -> set[str]:
    """The names a lab's module calls."""
    source = inspect.getsource(inspect.getmodule(lab.actions[lab.update]) or lab.__class__)
    calls = (node.func for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call))
    return {func.id if isinstance(func, ast.Name) else getattr(func, "attr", "") for func in calls}


def test_the_guide_documents_what_this_test_reads() -> None:
    """The guide's structure still gives what the tests below compare: not an empty list that any
    book would pass."""
    assert {"math_block", "math_inline", "table_open", "caption_open", "fence", "footnote_ref"} <= set(
        documented_constructs()
    )
    assert {"container_lab_open", "lab_field", "container_figure_open", "figure_open"} <= set(documented_constructs())
    assert {"Slider", "Text"} <= documented_controls()
    assert {"bar_chart", "grouped_table"} <= documented_picture_words()


def test_the_added_book_holds_every_markdown_construct_the_guide_documents() -> None:
    tokens = [token for chapter in parse_chapters(load_source(ADDED), all_labs()).listed for token in chapter.tokens]
    held = kinds(tokens)
    missing = {kind: line for kind, line in documented_constructs().items() if kind not in held}
    assert not missing, (
        f"the guide (docs/authoring.md and its pages) documents what tests/books/added-chapter/ lacks: {missing}"
    )


def test_one_lab_of_the_added_book_uses_every_control_kind_and_picture_word_the_guide_documents() -> None:
    controls, words = documented_controls(), documented_picture_words()
    gaps = {
        lab.name: (controls - {type(control).__name__ for control in lab.controls}) | (words - called(lab))
        for lab in added_labs()
    }
    assert any(not gap for gap in gaps.values()), f"what each lab of the added book leaves out: {gaps}"
