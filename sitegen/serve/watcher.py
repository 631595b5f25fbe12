"""serve's watcher: which files of the book or its code changed, and how the open page takes that.

It polls the sizes and modification times of the watched files (serve looks ten times a second);
a book has a few dozen files, so that costs nothing and needs no platform-specific notification API.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

IGNORED_SUFFIXES = (".swp", ".swx", ".tmp", "~", ".pyc")
NAMED_CHANGES = 3
"""How many changed paths serve's terminal line names before it writes "…"."""


def ignored(path: Path) -> bool:
    """Editor droppings and bytecode: changes there are not changes to the book."""
    return "__pycache__" in path.parts or path.name.startswith((".", "#")) or path.name.endswith(IGNORED_SUFFIXES)


def snapshot(paths: Iterable[Path]) -> dict[Path, tuple[int, int]]:
    """Size and modification time of every file under ``paths``."""
    seen: dict[Path, tuple[int, int]] = {}
    for top in paths:
        files = [top] if top.is_file() else (top.rglob("*") if top.is_dir() else [])
        for path in files:
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            if path.is_file() and not ignored(path):
                seen[path] = (stat.st_size, stat.st_mtime_ns)
    return seen


class Watcher:
    """Which watched files were added, removed or changed since the last look."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.paths = list(paths)
        self.last = snapshot(self.paths)

    def changes(self) -> list[Path]:
        now = snapshot(self.paths)
        changed = sorted(path for path in now.keys() | self.last.keys() if now.get(path) != self.last.get(path))
        self.last = now
        return changed


def project_relative(path: Path, root: Path) -> str:
    """``path`` as the terminal names it: relative to the project when it is inside it."""
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def changed_names(changed: Sequence[Path], root: Path) -> str:
    """The first few changed paths, for serve's line about the build they start."""
    names = ", ".join(project_relative(path, root) for path in changed[:NAMED_CHANGES])
    return names + (" …" if len(changed) > NAMED_CHANGES else "")


def touches_code(changed: Iterable[Path], code: Iterable[Path]) -> bool:
    """Whether a change is to Python code, which the builder process has imported (so it restarts)."""
    tops = list(code)
    return any(path.is_relative_to(top) or path == top for path in changed for top in tops)


def change_kind(changed: Iterable[Path], model: Path | None) -> str:
    """How the open page takes these changes (``Status.kind``): "model", "css" or "page"."""
    paths = list(changed)
    if model is not None and paths and all(path.is_relative_to(model) for path in paths):
        return "model"
    if paths and all(path.suffix == ".css" for path in paths):
        return "css"
    return "page"
