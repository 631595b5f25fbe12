"""No function of the generator or the page over 60 lines, unless it says why.

Every function (Python: each ``def``, methods and nested ones included; JavaScript: declarations,
expressions, methods and arrows with a block body, read by Acorn through
``tests/function_lengths.mjs``) in ``sitegen/`` and ``site_template/static/`` is counted from its
first line to its last. One longer than ``MAX_LINES`` passes only with ``Long because:`` and a
reason in its docstring (Python) or in the comment right above it (JavaScript).
"""

from __future__ import annotations

import ast
import json
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

MAX_LINES = 60
MARKER = "Long because:"
LENGTHS = ROOT / "tests" / "function_lengths.mjs"


@dataclass(frozen=True)
class Function:
    path: str
    line: int
    name: str
    lines: int
    comment: str
    """Its docstring (Python) or the comment right above it (JavaScript)."""


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


def javascript_functions(paths: Iterable[Path], root: Path = ROOT) -> list[Function]:
    names = [path.relative_to(root).as_posix() for path in paths]
    done = subprocess.run(["node", str(LENGTHS), *names], cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return [Function(**found) for found in json.loads(done.stdout)]


def reason(comment: str) -> str:
    """What follows the marker, if anything does."""
    _, marker, text = comment.partition(MARKER)
    return text.strip() if marker else ""


def offenders(functions: Iterable[Function]) -> list[str]:
    return [
        f"{function.path}:{function.line}: {function.name} is {function.lines} lines (max {MAX_LINES})"
        for function in functions
        if function.lines > MAX_LINES and not reason(function.comment)
    ]


def project_functions() -> list[Function]:
    python = sorted((ROOT / "sitegen").rglob("*.py"))
    scripts = sorted(
        [*(ROOT / "sitegen").rglob("*.js"), *(ROOT / "sitegen").rglob("*.mjs"), *(ROOT / "site_template").rglob("*.js")]
    )
    return [function for path in python for function in python_functions(path)] + javascript_functions(scripts)


def test_every_function_is_short_or_says_why() -> None:
    found = offenders(project_functions())
    assert not found, "\n".join(found)


def test_the_check_sees_a_long_function_in_each_language(tmp_path: Path) -> None:
    """A check on the check: one long function of each kind fails, one that says why passes, and a
    brace in a string, a template or a regular expression does not end a JavaScript function."""
    body = "".join(f"    x = {n}\n" for n in range(MAX_LINES))
    python = (
        f"def long():\n{body}\n\ndef explained():\n    '''Long because: a table.'''\n{body}\n\n"
        f"def vague():\n    '''Long because:'''\n{body}\n\ndef short():\n    return 1\n"
    )
    js = "".join(f'  const s{n} = "}}" + `}}${{"{{"}}` + /}}/.source;\n' for n in range(MAX_LINES))
    script = (
        f"function braces() {{\n{js}}}\n"
        f"// Long because: one declarative table.\nconst table = () => {{\n{js}}};\n"
        f"class Lab {{\n  method() {{\n{js}  }}\n}}\n"
        "const short = () => 1;\n"
    )
    (tmp_path / "long.py").write_text(python, encoding="utf-8")
    (tmp_path / "long.js").write_text(script, encoding="utf-8")
    functions = python_functions(tmp_path / "long.py", tmp_path) + javascript_functions(
        [tmp_path / "long.js"], tmp_path
    )

    def line_of(text: str, start: str) -> int:
        return text[: text.index(start)].count("\n") + 1

    most = MAX_LINES
    assert offenders(functions) == [
        f"long.py:1: long is {most + 1} lines (max {most})",
        f"long.py:{line_of(python, 'def vague')}: vague is {most + 2} lines (max {most})",
        f"long.js:1: braces is {most + 2} lines (max {most})",
        f"long.js:{line_of(script, '  method')}: method is {most + 2} lines (max {most})",
    ]
