"""Each fact is written once: a second copy of any of these anywhere in the tree fails here.

A fact typed twice drifts: Pyodide's version was in four files, the zip epoch in four (two
languages), the decode lab's mode labels in two modules. Each now has one home, and everything
else reads it from there. Searched are the strings of the code (Python's string constants without
docstrings; JavaScript and other files without their comments) — prose may explain a fact, code
may not restate it — and for versions every tracked file but the measurement records.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

from bench.figures_blocks import DOCUMENTS, blocks_in
from kvpage.costs import MODE_NAMES
from kvpage.lab import LABS_PACKAGE
from sitegen.book.reproducible import SOURCE_DATE_EPOCH, ZIP_DATE
from sitegen.labs.declarations import LAB_SCRIPTS
from sitegen.runtime.npm import declared_version
from tests.conftest import ROOT

CODE = (".py", ".mjs", ".js", ".html", ".json", ".toml")
LINE_COMMENT = re.compile(r"(^|\s)//.*$", re.MULTILINE)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
HASH_COMMENT = re.compile(r"(^|\s)#.*$", re.MULTILINE)
TEMPLATE_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in listed.splitlines() if (ROOT / name).is_file()]


def docstring_starts(tree: ast.AST) -> set[tuple[int, int]]:
    """Where each docstring starts (a module's, a class's, a function's, an attribute's)."""
    found: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add((statement.lineno, statement.col_offset))
    return found


def python_code(text: str) -> str:
    """The source without its comments and docstrings, a token a line."""
    skipped = docstring_starts(ast.parse(text))
    kept = [
        token.string
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type != tokenize.COMMENT and not (token.type == tokenize.STRING and token.start in skipped)
    ]
    return " ".join(kept)


def code_of(name: str, root: Path = ROOT) -> str:
    """What the file ``name`` under ``root`` says as code: its text without comments (nor docstrings, in Python)."""
    text = (root / name).read_text(encoding="utf-8", errors="replace")
    if name.endswith(".py"):
        return python_code(text)
    if name.endswith((".js", ".mjs")):
        return LINE_COMMENT.sub("", BLOCK_COMMENT.sub("", text))
    if name.endswith(".html"):
        return TEMPLATE_COMMENT.sub("", text)
    if name.endswith(".toml") or name == "Makefile":
        return HASH_COMMENT.sub("", text)
    return text


def holders(pattern: str, names: list[str], root: Path = ROOT) -> list[str]:
    return [name for name in names if pattern in code_of(name, root)]


def code_files(*roots: str) -> list[str]:
    return [
        name
        for name in tracked()
        if name.endswith(CODE) and name.startswith(roots) and not name.startswith("tests/invalid/")
    ]


def without_measurements(name: str) -> str:
    """A tracked file's text, the generated figure blocks of the docs left out (they record the machine)."""
    text = (ROOT / name).read_text(encoding="utf-8", errors="replace")
    if name in DOCUMENTS:
        for _, start, end in reversed(blocks_in(text, name)):
            text = text[:start] + text[end:]
    return text


@pytest.mark.parametrize("package", ["pyodide", "minisearch", "temml"])
def test_an_npm_packages_version_is_only_in_package_json(package: str) -> None:
    version = declared_version(ROOT, package)
    records = {"package.json", "package-lock.json", "docs/figures.json"}
    found = [
        name
        for name in tracked()
        if name not in records and not name.startswith("tests/invalid/") and version in without_measurements(name)
    ]
    assert found == [], f"{package} {version} is written in {found}: read it from package.json (sitegen/runtime/npm.py)"


def test_the_build_date_is_only_in_sitegen_reproducible() -> None:
    everywhere = code_files("")
    assert holders(str(ZIP_DATE[0]), everywhere) == ["sitegen/book/reproducible.py"]
    assert holders(str(SOURCE_DATE_EPOCH), everywhere) == []  # derived from ZIP_DATE, written nowhere


def test_the_mode_labels_are_only_in_kvpage_costs() -> None:
    model_and_site = code_files("kvpage/", "sitegen/", "site_template/", "bench/", "build.py")
    for label in MODE_NAMES.values():
        assert holders(f'"{label}"', model_and_site) == ["kvpage/costs.py"], label


def test_where_the_labs_are_is_said_once() -> None:
    model_and_site = code_files("kvpage/", "sitegen/", "site_template/", "bench/", "build.py")
    assert holders(f'"{LABS_PACKAGE}', model_and_site) == ["kvpage/lab.py"]
    assert holders(f'"{LAB_SCRIPTS}', model_and_site) == ["sitegen/labs/declarations.py"]


def test_the_search_finds_a_second_copy(tmp_path: Path) -> None:
    """The searches above can fail: a copy in code is found, one in a docstring or comment is not.
    The copy is written under a folder of its own, never into the checkout (other test workers read
    and hash kvpage/ while this runs)."""
    name = "kvpage/_copy_for_test.py"
    (tmp_path / "kvpage").mkdir()
    (tmp_path / name).write_text(
        f'"""{LAB_SCRIPTS} in a docstring."""\n\nWHERE = "{LAB_SCRIPTS}/x.js"  # {LAB_SCRIPTS}\n'
    )
    assert code_of(name, tmp_path).count(LAB_SCRIPTS) == 1
    assert holders(f'"{LAB_SCRIPTS}', [name], tmp_path) == [name]
