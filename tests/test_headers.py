"""Every module's header is at most five lines of why, and a decision it names exists (issue 48).

The detail lives where it is read: in the docstring of the function or class it describes, or in
the decision under docs/decisions/ that the header names. Counted: a Python module's docstring, a
JavaScript file's leading ``//`` comment lines.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

from tests.conftest import ROOT

MAX_LINES = 5
DECISION = re.compile(r"\bdecisions? (\d{4})\b")


def python_header(path: Path) -> list[str]:
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), str(path)), clean=False)
    return (docstring or "").strip("\n").splitlines()


def javascript_header(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0].startswith("#!"):
        lines = lines[1:]
    header = []
    for line in lines:
        if not line.startswith("//"):
            break
        header.append(line)
    return header


def headers(root: Path = ROOT) -> Iterable[tuple[str, list[str]]]:
    python = [*sorted((root / "sitegen").rglob("*.py")), *sorted((root / "kvpage").rglob("*.py")), root / "build.py"]
    javascript = [
        path
        for pattern in ("site_template/static/**/*.js", "sitegen/**/*.js", "sitegen/**/*.mjs")
        for path in sorted(root.glob(pattern))
    ]
    for path in python:
        if path.is_file():
            yield path.relative_to(root).as_posix(), python_header(path)
    for path in javascript:
        yield path.relative_to(root).as_posix(), javascript_header(path)


def offenders(found: Iterable[tuple[str, list[str]]], decisions: set[str]) -> list[str]:
    wrong = []
    for path, header in found:
        if len(header) > MAX_LINES:
            wrong.append(f"{path}:1: header is {len(header)} lines (max {MAX_LINES})")
        for number in DECISION.findall(" ".join(header)):
            if number not in decisions:
                wrong.append(f"{path}:1: header names decision {number}, which docs/decisions/ does not hold")
    return wrong


def decision_numbers(root: Path = ROOT) -> set[str]:
    return {path.name[:4] for path in (root / "docs" / "decisions").glob("[0-9][0-9][0-9][0-9]-*.md")}


def test_every_header_is_short_and_names_a_decision_that_exists() -> None:
    found = offenders(headers(), decision_numbers())
    assert not found, "\n".join(found)


def test_the_check_sees_a_long_header_and_a_missing_decision(tmp_path: Path) -> None:
    """A check on the check: six lines fail, five pass, a decision not in docs/decisions/ fails."""
    (tmp_path / "sitegen").mkdir()
    (tmp_path / "kvpage").mkdir()
    (tmp_path / "docs" / "decisions").mkdir(parents=True)
    (tmp_path / "docs" / "decisions" / "0001-a.md").write_text("# a\n", encoding="utf-8")
    six = "".join(f"line {n}\n" for n in range(MAX_LINES + 1))
    (tmp_path / "sitegen" / "long.py").write_text(f'"""{six}"""\n', encoding="utf-8")
    (tmp_path / "sitegen" / "fits.py").write_text('"""One.\n\nSee decision 0001.\n"""\n', encoding="utf-8")
    (tmp_path / "kvpage" / "gone.py").write_text('"""See decision 0002."""\n', encoding="utf-8")
    (tmp_path / "sitegen" / "long.js").write_text("".join(f"// {line}\n" for line in six.splitlines()) + "x;\n")
    (tmp_path / "build.py").write_text('"""Build."""\n', encoding="utf-8")
    assert offenders(headers(tmp_path), decision_numbers(tmp_path)) == [
        f"sitegen/long.py:1: header is {MAX_LINES + 1} lines (max {MAX_LINES})",
        "kvpage/gone.py:1: header names decision 0002, which docs/decisions/ does not hold",
        f"sitegen/long.js:1: header is {MAX_LINES + 1} lines (max {MAX_LINES})",
    ]
