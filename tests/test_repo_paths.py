"""Every repository path the docs and the code's own explanations name exists.

A path written in prose rots silently when a file moves: the model's old command line named the command
line's test at the top of tests/ long after it went to ``tests/sitegen/cli/test_arguments.py``. So every path-like token
of README.md, tests/README.md and docs/ (its decisions too), and of the docstrings and comments of the
project's Python (kvpage/, sitegen/, tests/, bench/, build.py) and the comments of the test books' TOML, must
name a file or folder that exists: in the repository, under ``site_template/`` (where ``static/…`` and
``labs/….html`` live), or in a built site (``static/kvpage.js``, ``search/index.js``, the
runtime's files), which the build makes; the few examples of what an author writes are listed
(``EXAMPLES``). Generated folders (``site/``, ``dist/``, ``.cache/``,
``node_modules/``, ``.venv/``) and placeholders (``NAME``, ``SLUG``, ``HASH``, ``USER``, ``REPO``,
``…``, ``*``) are not checked.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT, Built

PATH = re.compile(r"(?<![\w./:@-])((?:\.github|[\w-]+)(?:/[\w.-]+)+/?|[\w-]+\.(?:py|md|toml|json|mjs|txt))(?![\w/-])")
"""A token that looks like a path: two or more segments, or a file of the project's own kinds."""
ROOTS = ("kvpage", "sitegen", "tests", "bench", "docs", "content", "site_template", ".github", "static", "labs")
"""Where a checked path starts (``static/`` and ``labs/`` are relative to site_template/ or the site)."""
TOP_FILES = ("build.py", "Makefile", "pyproject.toml", "package.json", "package-lock.json", "constraints.txt")
GENERATED = ("site/", "dist/", ".cache/", "node_modules/", ".venv/")
PLACEHOLDERS = re.compile(r"NAME|SLUG|HASH|USER|REPO|…|\*|\{|<|\bx\b|04-x")
"""Paths that stand for any file of a kind (``kvpage/labs/NAME.py``), or an example a reader would add."""
EXAMPLES = {
    "content/broken.md": "docs/authoring.md: the chapter of an error message shown as an example",
    "content/img/": "docs/authoring.md: a folder an author may make for the book's files",
    "content/fake.png": "docs/authoring.md: the file of an error message shown as an example "
    "(tests/invalid/image-not-png)",
    "content/files/": "docs/authoring.md: the same",
    "content/passwd.txt": "docs/refusals.md: a symbolic link out of the book, in an error message shown as an example",
    "content/files/evil.js": "docs/refusals.md: a book's script, in an error message shown as an example",
    "kvpage/labs/share.py": "docs/authoring.md: the model of an error message shown as an example "
    "(tests/invalid/lab-sweep)",
    "kvpage/labs/slow.py": "docs/refusals.md: the model of an error message shown as an example "
    "(tests/invalid/lab-import-slow)",
    "kvpage/labs/heat.py": "docs/refusals.md: the model of an error message shown as an example "
    "(tests/invalid/lab-control-decimal)",
    "kvpage/labs/pages.py": "docs/refusals.md: the file of an error message shown as an example "
    "(tests/invalid/lab-syntax-error)",
    "kvpage/labs/budget.py": "docs/authoring.md: the quick start's lab, which an author saves there "
    "(tests/test_quick_start.py builds it in a copy of the project)",
    "content/05-budget.md": "docs/authoring.md: the quick start's chapter, saved there by an author",
    "site_template/labs/budget.html": "docs/authoring.md: the template the quick start's lab does without",
    "kvpage/evil.py": "issue 43's link out of the model, which tests/sitegen/labs/test_model_imports.py makes",
    "site_template/static/h.txt": "issue 43's link out of the static files, which tests/sitegen/book/test_inside.py "
    "makes",
    "content/site": "sitegen/site/targets.py: an --out inside the book, which the build refuses",
}
"""Paths the docs name as examples of what an author writes, not files of this repository."""
PROSE = [ROOT / "README.md", ROOT / "tests" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
"""The README, the test catalogue, and docs/ with its decisions (docs/decisions/)."""
CODE = [
    ROOT / "build.py",
    *(
        path
        for folder in ("kvpage", "sitegen", "tests", "bench")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if not path.is_relative_to(ROOT / "tests" / "invalid")  # broken books on purpose (a syntax error)
    ),
]
BOOK_TOML = sorted((ROOT / "tests" / "books").rglob("*.toml")) + sorted((ROOT / "content").glob("*.toml"))


def checked(token: str) -> bool:
    """Whether ``token`` is a path of this repository (not a generated one, not a placeholder)."""
    if PLACEHOLDERS.search(token) or token.startswith(GENERATED) or token in EXAMPLES:
        return False
    first = token.split("/", 1)[0]
    return first in ROOTS or token in TOP_FILES or ("/" not in token and token.endswith((".py", ".md")))


def string_of(statement: ast.stmt) -> str | None:
    """The text of a statement that is a string on its own (a docstring), else None."""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return statement.value.value if isinstance(statement.value.value, str) else None
    return None


def explanations(path: Path) -> Iterator[tuple[int, str]]:
    """The docstrings and comments of a Python file, each with its first line."""
    text = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        statements: list[ast.stmt] = body if isinstance(body, list) else []
        documented = isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        if documented and statements and (docstring := string_of(statements[0])) is not None:
            yield statements[0].lineno, docstring
        # An attribute's docstring: a string right after an assignment (this project's convention).
        for before, after in itertools.pairwise(statements):
            if isinstance(before, ast.Assign | ast.AnnAssign) and (docstring := string_of(after)) is not None:
                yield after.lineno, docstring
    for found in tokenize.generate_tokens(io.StringIO(text).readline):
        if found.type == tokenize.COMMENT:
            yield found.start[0], found.string


def toml_comments(path: Path) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("#"):
            yield number, line


def named_paths() -> list[tuple[str, str]]:
    """(where, path) for every checked path token of the prose, the code's explanations and the books' TOML."""
    found: list[tuple[str, str]] = []
    sources: list[tuple[Path, Iterator[tuple[int, str]]]] = [
        (path, enumerate(path.read_text(encoding="utf-8").splitlines(), 1)) for path in PROSE
    ]
    sources += [(path, explanations(path)) for path in CODE]
    sources += [(path, toml_comments(path)) for path in BOOK_TOML]
    for path, texts in sources:
        for line, text in texts:
            for token in PATH.findall(text):
                token = token.rstrip(".")
                if checked(token):
                    found.append((f"{path.relative_to(ROOT)}:{line}", token))
    return found


def exists(token: str, sites: list[Path]) -> bool:
    bare = token.rstrip("/")
    if "/" not in bare:  # a file named on its own: anywhere in the project's own folders
        return (ROOT / bare).exists() or any(
            (ROOT / folder).rglob(bare) for folder in ("kvpage", "sitegen", "tests", "bench", "docs")
        )
    return any((base / bare).exists() for base in (ROOT, ROOT / "site_template", *sites))


def test_the_scan_finds_the_paths_it_should() -> None:
    """A check on the check: the scan sees paths of each kind of source, and would see a rotten one."""
    found = named_paths()
    tokens = {token for _, token in found}
    assert {"sitegen/serve/http_server.py", "docs/authoring.md", "static/kvpage.js"} <= tokens
    places = {where.split(":", 1)[0] for where, _ in found}
    assert {"tests/README.md", "docs/decisions/0003-python-restored-from-a-memory-snapshot.md"} <= places
    assert "tests/test_cli.py" in PATH.findall("see ``tests/test_cli.py`` for the wheel")
    assert not checked("kvpage/labs/NAME.py") and not checked("site/cache.html")


@pytest.fixture(scope="module")
def sites(built: Built, kitchen_sink: Built) -> list[Path]:
    """The chapter's site and the kitchen-sink book's, which has what only some books get (formulas.css)."""
    return [built.site, kitchen_sink.site]


def test_every_named_path_exists(sites: list[Path]) -> None:
    missing = sorted({f"{where}: {token}" for where, token in named_paths() if not exists(token, sites)})
    assert not missing, "paths named that do not exist:\n" + "\n".join(missing)
