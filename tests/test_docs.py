"""The docs show real code and read in one sitting.

docs/authoring.md's lab code is in the files it names and its Markdown in the kitchen-sink book;
docs/architecture.md's JSON is what the bridge answers and its table of worker messages is
protocol.js's; the architecture, performance.md and the README keep their lengths (issue 38), and
every decision of docs/decisions/ says what was tried, the numbers and why."""

from __future__ import annotations

import functools
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from kvpage import bridge
from sitegen.book.source import load_source
from sitegen.markdown.pages import parse_chapters
from sitegen.markdown.plugins.chapter_links import COMING
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
    """The quick start's lab is the guide's example (tests/test_quick_start.py builds it); square's
    template is the one file of the repository the guide shows whole."""
    assert [path for path, _ in shown_code()] == ["site_template/labs/square.html"]


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


README_LINES = 100
"""A README a newcomer reads on one screen or two; the rest is in docs/ (issues 19 and 38)."""


def test_the_readme_is_short_and_sets_up_with_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_LINES
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    tokens = MarkdownIt("commonmark").parse(setup)
    commands = [line.split("#")[0].strip() for t in tokens if t.type == "fence" for line in t.content.splitlines()]
    assert [command for command in commands if command] == ["make site", "make test", "make serve"]
    for linked in ("docs/authoring.md", "docs/architecture.md", "docs/performance.md", "tests/README.md"):
        assert f"]({linked})" in readme, linked


ARCHITECTURE = ROOT / "docs" / "architecture.md"
ARCHITECTURE_WORDS = 1_500
PERFORMANCE_LINES = 355  # 300, the phone block of issue 44, the book-size block of issue 49
"""Read in one sitting (issue 38): detail goes to docs/decisions/ and tests/README.md."""


def tokens_of(path: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


GUIDE_LINES = 600
"""The guide an author reads, its refusals and what a reader gets on pages of their own (issue 46)."""


def test_the_docs_keep_their_lengths() -> None:
    assert len(GUIDE.splitlines()) <= GUIDE_LINES
    assert len(ARCHITECTURE.read_text(encoding="utf-8").split()) <= ARCHITECTURE_WORDS
    assert len((ROOT / "docs" / "performance.md").read_text(encoding="utf-8").splitlines()) <= PERFORMANCE_LINES


def test_the_architecture_is_led_by_the_table_of_stages() -> None:
    tokens = tokens_of(ARCHITECTURE)
    first_h2 = next(i for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2")
    assert tokens[first_h2 + 1].content == "The pipeline"
    table = next(i for i in range(first_h2, len(tokens)) if tokens[i].type == "table_open")
    assert not any(t.type == "heading_open" for t in tokens[first_h2 + 1 : table])
    header = [t.content for t in tokens[table : table + 12] if t.type == "inline"][:3]
    assert header == ["stage", "module", "input → output"]


def shown_json() -> list[dict[str, object]]:
    return [json.loads(t.content) for t in tokens_of(ARCHITECTURE) if t.type == "fence" and t.info == "json"]


def test_the_json_shown_is_the_chapters_request_and_the_bridges_view() -> None:
    """The request is the decode lab's at the chapter's own values; each field the view shows is the model's."""
    request, view = shown_json()
    placement = next(p for p in parse_chapters(load_source(ROOT / "content")).placements if p.kind.name == "decode")
    assert request == json.loads(placement.request())
    real = json.loads(bridge.handle(placement.request()))
    assert view["ok"] is True and real["ok"] is True
    shown, result = view["result"], real["result"]
    assert isinstance(shown, dict)
    assert shown["state"] == result["state"]
    assert {key: shown["text"][key] for key in shown["text"] if key != "…"} == {
        key: result["text"][key] for key in shown["text"] if key != "…"
    }
    assert set(shown["parts"]) == set(result["parts"])
    grid_shown, grid = shown["parts"]["grid_kv"][0], result["parts"]["grid_kv"][0]
    assert grid_shown[0] == grid[0]
    assert {k: v for k, v in grid_shown[1].items() if k != "…"}.items() <= grid[1].items()


def test_the_table_of_worker_messages_is_the_protocols() -> None:
    protocol = (ROOT / "site_template" / "static" / "kvpage" / "protocol.js").read_text(encoding="utf-8")
    declared = set(re.findall(r'@typedef \{\{type: "(\w+)"', protocol))
    text = ARCHITECTURE.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(\w+)` \| (?:page|worker|unpacker) → ", text, re.MULTILINE))
    assert declared and listed == declared


DECISIONS = sorted((ROOT / "docs" / "decisions").glob("[0-9][0-9][0-9][0-9]-*.md"))
PARTS = ["Context", "What was tried", "Numbers", "Decision"]


def test_the_decisions_are_numbered_in_order_and_listed() -> None:
    assert [int(path.name[:4]) for path in DECISIONS] == list(range(1, len(DECISIONS) + 1))
    index = (ROOT / "docs" / "decisions" / "README.md").read_text(encoding="utf-8")
    assert all(f"]({path.name})" in index for path in DECISIONS)


@pytest.mark.parametrize("path", DECISIONS, ids=[path.name[:4] for path in DECISIONS])
def test_each_decision_says_what_was_tried_the_numbers_and_why(path: Path) -> None:
    tokens = tokens_of(path)
    title = tokens[1].content
    assert title.startswith(f"{path.name[:4]}. "), path.name
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert headings == PARTS, path.name
    assert "**Status:**" in path.read_text(encoding="utf-8")


def make_recipe(target: str) -> list[str]:
    """The commands of a target of the Makefile, its variables as written."""
    lines = (ROOT / "Makefile").read_text(encoding="utf-8").split(f"\n{target}:", 1)[1].splitlines()[1:]
    return [line.strip() for line in itertools.takewhile(lambda line: line.startswith("\t"), lines)]


def test_make_fix_formats_a_line_ruff_check_cannot_fix(tmp_path: Path) -> None:
    """A lab with a line too long (E501, which ``ruff check --fix`` cannot mend) stopped ``make fix`` at its
    first command, so the format that mends it never ran (issue 46). Its commands, run in order on such a
    file with the project's settings, leave nothing for ``make check``'s ruff to refuse."""
    (tmp_path / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    lab = tmp_path / "kvpage" / "labs" / "long.py"
    lab.parent.mkdir(parents=True)
    options = ", ".join(f'("option{n}", "Option number {n}")' for n in range(4))
    lab.write_text(f'CHOICE = dict(prefix="x", options=({options}), default="option0")\n', encoding="utf-8")
    venv = {"$(VENV)": str(Path(sys.executable).parent.parent), "$(LINTED)": "kvpage"}
    for line in make_recipe("fix"):
        command = functools.reduce(lambda text, pair: text.replace(*pair), venv.items(), line)
        assert subprocess.run(command.split(), cwd=tmp_path, check=False).returncode == 0, command
    for line in make_recipe("check"):
        if "/bin/ruff " in line:
            command = functools.reduce(lambda text, pair: text.replace(*pair), venv.items(), line)
            assert subprocess.run(command.split(), cwd=tmp_path, check=False).returncode == 0, command


def test_make_fix_mends_what_make_check_lints_and_the_readme_says_so() -> None:
    """An author who writes a lab learns of ruff before ``make test`` does (issue 46): ``make fix`` runs
    ruff's fixes and its format over the very paths ``make check`` lints."""
    check = [line for line in make_recipe("check") if "/bin/ruff " in line]
    fix = make_recipe("fix")
    assert [line.replace(" --fix --exit-zero", "") for line in fix] == [line.replace(" --check", "") for line in check]
    assert any(" --fix " in line for line in fix)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`make fix`" in readme.split("## Write", 1)[1].split("\n## ", 1)[0]


def test_the_books_toml_says_what_a_link_to_a_planned_chapter_shows() -> None:
    """content/book.toml's comment said such a link was marked "(coming)" after the text changed (issue 46)."""
    toml = (ROOT / "content" / "book.toml").read_text(encoding="utf-8")
    comment = " ".join(line.lstrip("# ") for line in toml.splitlines() if line.startswith("#"))
    assert f'"{COMING}"' in comment
    assert "(coming)" not in toml


def test_the_guide_starts_with_a_quick_start_and_its_refusals_are_a_page_of_their_own() -> None:
    """Issue 46: the first section is the quick start (a lab file and a chapter), and what the build refuses
    is on refusals.md, which the guide links, with every rule the guide's reference used to hold."""
    tokens = MarkdownIt("commonmark").parse(GUIDE)
    sections = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]
    assert sections[0] == "Quick start"
    quick = GUIDE.split("## Quick start", 1)[1].split("\n## Preview", 1)[0]
    fences = [t.info.strip() for t in MarkdownIt("commonmark").parse(quick) if t.type == "fence"]
    assert fences == ["python", "markdown"]
    assert "What the build refuses" not in sections
    assert "](refusals.md)" in GUIDE
    refusals = tokens_of(ROOT / "docs" / "refusals.md")
    headings = [refusals[i + 1].content for i, t in enumerate(refusals) if t.type == "heading_open"]
    for rule in ("Files from outside the book", "Raw HTML", "Labs, at the line to fix", "serve's addresses"):
        assert rule in headings
