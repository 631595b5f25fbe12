"""The Python behind a lab, as its "Python" disclosure shows it (decision 0033): the lab's module and
the model modules it imports, read at build time from the very files the wheel is built from, and
highlighted by Pygments like a chapter's code, so it reads without JavaScript, from file:// and
printed. The page's script turns the same text into an editor (``static/kvpage/reader.js``).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

from markupsafe import Markup
from pygments import highlight
from pygments.lexers.python import PythonLexer

from kvpage.lab import LABS_PACKAGE, Lab
from sitegen.labs.model_imports import imports_of, module_file
from sitegen.markdown.plugins.code import FORMATTER

LEXER = PythonLexer(stripnl=False, ensurenl=False)
"""The lexer of a chapter's ``python`` block (``sitegen.markdown.plugins.code.lexer_for``): blank lines
kept as written."""

PROJECT = Path(__file__).resolve().parents[2]
"""The project whose ``kvpage/`` the build packs into the wheel (``sitegen.pipeline.ROOT``)."""

PLUMBING = frozenset({"kvpage.lab", "kvpage.jsonvalue", "kvpage.tree"})
"""Modules every lab imports that carry numbers to the page rather than compute them."""
PICTURES = "kvpage.pictures"
"""The picture vocabulary, a package: what it draws, the lab's module computed."""
OPENS_ON = {"kvpage/costs.py": "paid_cells"}
"""Where Edit puts the cursor, by file: the function a reader changes first, the model's one rule of
which cells a step pays (every readout and drawing of the labs follows it)."""


@dataclass(frozen=True)
class ModelFile:
    """One file of the model as a lab's disclosure shows it."""

    path: str
    """Relative to the project, as in the wheel: ``kvpage/costs.py``."""
    source: str

    @property
    def module(self) -> str:
        """Its module's name: ``kvpage/costs.py`` → ``kvpage.costs`` (what the page's Python imports)."""
        return self.path.removesuffix(".py").replace("/", ".")

    @property
    def opens_at(self) -> int:
        """The line of this file's function in :data:`OPENS_ON`, where the editor opens; 0 for none."""
        name = OPENS_ON.get(self.path)
        return 0 if name is None else _line_of(self.source, name)

    @property
    def html(self) -> Markup:
        """Its text highlighted as a chapter's ``python`` code block is (classes only, no ``style``)."""
        return _highlighted(self.source)


@functools.lru_cache(maxsize=64)
def _highlighted(source: str) -> Markup:
    """``source`` highlighted, once per build process and file (each lab shows its files on every page it is on)."""
    return Markup(highlight(source, LEXER, FORMATTER))


def shown_modules(module: str, project: Path = PROJECT) -> tuple[str, ...]:
    """A lab's ``module``, then the model modules it imports from (sorted), but pictures and plumbing.

    The labs' picture helpers (the picture vocabulary ``kvpage/pictures/`` and the rest of ``kvpage/labs/``)
    and the plumbing every lab shares (the declaration, JSON and tree vocabularies) are left out: they draw
    and carry numbers, they do not compute them, and the reader would scroll past a page of them to reach the
    arithmetic. ``tests/sitegen/labs/test_sources.py`` holds the page's text to the built wheel's.
    """
    path = module_file(module)
    source = (project / path).read_text(encoding="utf-8")
    imported = {found.module for found in imports_of(source, path)}
    model = sorted(
        module
        for module in imported
        if module.startswith("kvpage.")
        and module not in PLUMBING
        and not module.startswith((f"{LABS_PACKAGE}.", f"{PICTURES}."))
        and module != PICTURES
    )
    return (module, *model)


def lab_files(lab: Lab, project: Path = PROJECT) -> tuple[ModelFile, ...]:
    """The files ``lab``'s disclosure shows, in order, read from ``project``'s ``kvpage/``."""
    return _files(lab.module, project)


@functools.cache
def _files(module: str, project: Path) -> tuple[ModelFile, ...]:
    """:func:`lab_files` of the lab in ``module``, read once a build process (a lab shows on many pages)."""
    paths = [module_file(found) for found in shown_modules(module, project)]
    return tuple(ModelFile(path, (project / path).read_text(encoding="utf-8")) for path in paths)


@functools.lru_cache(maxsize=64)
def _line_of(source: str, name: str) -> int:
    """The line of the top-level function ``name`` in ``source``; 0 if it has none."""
    return next(
        (node.lineno for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name == name), 0
    )
