"""docs/authoring.md shows the example lab's real code: each step's first code block is in the file it names."""

from __future__ import annotations

import re

import pytest

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
    ]


@pytest.mark.parametrize(("path", "code"), shown_code(), ids=[path for path, _ in shown_code()])
def test_the_code_shown_is_the_code_in_the_file(path: str, code: str) -> None:
    assert code in (ROOT / path).read_text(encoding="utf-8")
