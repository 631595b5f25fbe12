"""docs/authoring.md shows real code: the lab's is in the files it names, the Markdown's in the kitchen-sink book."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from tests.conftest import ROOT

GUIDE = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
NAMES_A_FILE = re.compile(r"^(?:### \d\. .*|.*uses it )\(`([^`]+)`\):?$")
"""A step's heading ("### 1. The model function (`kvpage/labs/square.py`)") or the example's lead-in."""


def shown_code() -> list[tuple[str, str]]:
    """(file, the first code block after the line that names it) for each line that names one."""
    lines = GUIDE.splitlines(keepends=True)
    found: list[tuple[str, str]] = []
    for number, line in enumerate(lines):
        named = NAMES_A_FILE.match(line.rstrip("\n"))
        if not named:
            continue
        start = next(i for i in range(number + 1, len(lines)) if lines[i].startswith("```")) + 1
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("```"))
        found.append((named.group(1), "".join(lines[start:end])))
    return found


def test_every_step_of_adding_a_lab_is_found() -> None:
    assert [path for path, _ in shown_code()] == [
        "tests/books/two-chapters/content/02-second.md",
        "kvpage/labs/square.py",
        "site_template/labs/square.html",
        "kvpage/labs/softmax.py",
    ]


@pytest.mark.parametrize(("path", "code"), shown_code(), ids=[path for path, _ in shown_code()])
def test_the_code_shown_is_the_code_in_the_file(path: str, code: str) -> None:
    assert code in (ROOT / path).read_text(encoding="utf-8")


KITCHEN_SINK_CHAPTER = ROOT / "tests" / "books" / "kitchen-sink" / "content" / "01-kitchen-sink.md"
MARKDOWN_SECTIONS = ("Markdown", "The book's files")
"""The guide's sections whose ```markdown examples are pieces of the kitchen-sink book."""


def markdown_examples() -> list[tuple[int, str]]:
    """(line, text) of each ```markdown example in the guide's sections on the Markdown and the book's files,
    found by markdown-it itself (an example that holds a fence is fenced with four backticks)."""
    tokens = MarkdownIt("commonmark").parse(GUIDE)
    found: list[tuple[int, str]] = []
    inside = False
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            inside = tokens[index + 1].content in MARKDOWN_SECTIONS
        elif inside and token.type == "fence" and token.info.strip() == "markdown" and token.map:
            found.append((token.map[0] + 1, token.content))
    return found


def test_the_guide_shows_each_construct() -> None:
    shown = "".join(text for _, text in markdown_examples())
    for construct in ("-:|", "Table:", "```python", "![", '![""]', "$$", "$n^2$", "[^", "\n: ", "- [x]", "~~"):
        assert construct in shown, f"docs/authoring.md shows no example of {construct!r}"


@pytest.mark.parametrize(("line", "example"), markdown_examples(), ids=[str(line) for line, _ in markdown_examples()])
def test_each_example_is_built_as_part_of_the_kitchen_sink(line: int, example: str) -> None:
    """The kitchen-sink book is built strictly and read in three browsers (tests/test_kitchen_sink.py,
    tests/e2e/test_kitchen_sink.py, tests/browsers/), so an example found in it word for word is built too."""
    assert example in KITCHEN_SINK_CHAPTER.read_text(encoding="utf-8"), f"docs/authoring.md:{line}"


README_LINES = 150
"""A README a newcomer reads on one screen or two; the rest is in docs/ (issue 19)."""


def test_the_readme_is_short_and_sets_up_with_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LINES
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    tokens = MarkdownIt("commonmark").parse(setup)
    commands = [line.split("#")[0].strip() for t in tokens if t.type == "fence" for line in t.content.splitlines()]
    assert [command for command in commands if command] == ["make site", "make test", "make serve"]
    for linked in ("docs/authoring.md", "docs/architecture.md", "docs/performance.md"):
        assert f"]({linked})" in readme, linked
