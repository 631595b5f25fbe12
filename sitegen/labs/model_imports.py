"""What the model imports, read from its source: the page's Python is a snapshot holding only the
standard-library modules it imported (docs/performance.md), so the build reads every ``import`` of
``kvpage/``, inside functions too, refuses third-party ones at their line (ContentErrors, decision
0061) and has the snapshot import every standard-library one (:mod:`sitegen.runtime.snapshot`).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sitegen.book.inside import links_out, list_files
from sitegen.errors import ContentError

MODEL = "kvpage"
"""The model's folder in the project."""


@dataclass(frozen=True, order=True)
class Import:
    """One module a model file imports, and where (``path`` relative to the project)."""

    module: str
    path: str
    line: int

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def module_file(module: str) -> str:
    """A model module's source file, relative to the project: ``kvpage.labs.decode`` → ``kvpage/labs/decode.py``."""
    return "/".join(module.split(".")) + ".py"


def model_tree(project: Path, leave_out: Collection[str] = ()) -> list[Path]:
    """Every file of ``project``'s ``kvpage/`` but those of ``leave_out`` (relative to the project:
    ``kvpage/labs/square.py``) and Python's bytecode caches, in a fixed order.

    What a book's wheel is built from, its snapshot imports for and the runtime's cache key hashes:
    ``leave_out`` is the other labs' modules (:func:`sitegen.labs.discovery.other_labs`), so one list of files
    serves all three and none of them can see a module the wheel lacks.
    Only files inside the folder, after symbolic links (:func:`model_links` reports the others).
    """
    folder = project / MODEL
    if not folder.is_dir():
        return []
    found = (folder / relative for relative in list_files(folder, is_model_file).files)
    return sorted(path for path in found if path.relative_to(project).as_posix() not in leave_out)


def is_model_file(relative: PurePosixPath) -> bool:
    """Whether a path of ``kvpage/`` is the model's, not Python's bytecode cache."""
    return "__pycache__" not in relative.parts


def model_links(project: Path) -> list[ContentError]:
    """Every symbolic link out of ``project``'s ``kvpage/``, at its path: checked before the model is read
    or imported, so nothing from outside goes into the wheel, the snapshot, a disclosure or the build's
    own Python (a link ``kvpage/evil.py`` → ``/outside/evil.py`` would go into all of them)."""
    return links_out(project / MODEL, MODEL, is_model_file)


def model_files(project: Path, leave_out: Collection[str] = ()) -> list[Path]:
    """The ``.py`` files of :func:`model_tree`: the modules the browser's wheel holds."""
    return [path for path in model_tree(project, leave_out) if path.suffix == ".py"]


def imports_of(source: str, path: str) -> list[Import]:
    """Every absolute import in ``source`` (``from x.y import z`` imports ``x.y``)."""
    found: list[Import] = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, path, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(Import(node.module, path, node.lineno))
    return sorted(found)


def model_imports(project: Path, leave_out: Collection[str] = ()) -> tuple[list[Import], list[ContentError]]:
    """The standard-library imports of the model (but the files ``leave_out``, as :func:`model_tree`), and
    errors for imports the page can never have."""
    stdlib: list[Import] = []
    errors: list[ContentError] = []
    for file in model_files(project, leave_out):
        shown = file.relative_to(project).as_posix()
        try:
            found = imports_of(file.read_text(encoding="utf-8"), shown)
        except SyntaxError as error:
            errors.append(ContentError(shown, error.lineno or 0, str(error.msg)))
            continue
        for item in found:
            top = item.module.partition(".")[0]
            if top in ("kvpage", "__future__"):
                continue
            if top in sys.stdlib_module_names:
                stdlib.append(item)
            else:
                message = (
                    f"imports {item.module!r}, which is not in the standard library: "
                    "the page's Python has only the standard library and kvpage"
                )
                errors.append(ContentError(item.path, item.line, message))
    return stdlib, errors
