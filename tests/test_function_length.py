"""No function of the generator over 60 lines, unless it says why.

Every Python function (each ``def``, methods and nested ones included) in ``sitegen/`` is counted
from its first line to its last. One longer than ``MAX_LINES`` passes only with ``Long because:``
and a reason in its docstring. The JavaScript is held to the same limit by ESLint
(``max-lines-per-function`` in ``eslint.config.mjs``, run by ``make check``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

MAX_LINES = 60
MARKER = "Long because:"


@dataclass(frozen=True)
class Function:
    path: str
    line: int
    name: str
    lines: int
    docstring: str


def python_functions(path: Path, root: Path = ROOT) -> list[Function]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        Function(
            path.relative_to(root).as_posix(),
            node.lineno,
            node.name,
            (node.end_lineno or node.lineno) - node.lineno + 1,
            ast.get_docstring(node) or "",
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def reason(docstring: str) -> str:
    """What follows the marker, if anything does."""
    _, marker, text = docstring.partition(MARKER)
    return text.strip() if marker else ""


def offenders(functions: Iterable[Function]) -> list[str]:
    return [
        f"{function.path}:{function.line}: {function.name} is {function.lines} lines (max {MAX_LINES})"
        for function in functions
        if function.lines > MAX_LINES and not reason(function.docstring)
    ]


def test_every_function_is_short_or_says_why() -> None:
    found = offenders(
        function for path in sorted((ROOT / "sitegen").rglob("*.py")) for function in python_functions(path)
    )
    assert not found, "\n".join(found)


def test_the_check_sees_a_long_function(tmp_path: Path) -> None:
    """A check on the check: a long function fails, one that says why passes, one with the bare marker fails."""
    body = "".join(f"    x = {n}\n" for n in range(MAX_LINES))
    python = (
        f"def long():\n{body}\n\ndef explained():\n    '''Long because: a table.'''\n{body}\n\n"
        f"def vague():\n    '''Long because:'''\n{body}\n\ndef short():\n    return 1\n"
    )
    (tmp_path / "long.py").write_text(python, encoding="utf-8")
    vague = python[: python.index("def vague")].count("\n") + 1
    assert offenders(python_functions(tmp_path / "long.py", tmp_path)) == [
        f"long.py:1: long is {MAX_LINES + 1} lines (max {MAX_LINES})",
        f"long.py:{vague}: vague is {MAX_LINES + 2} lines (max {MAX_LINES})",
    ]
