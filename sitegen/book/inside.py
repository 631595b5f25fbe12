"""The build reads nothing outside the book's folder, after symbolic links (nor outside the
templates', the static files' or the model's folder: :func:`links_out`).

A book is often built from someone's pull request, and a link to a secret would be published
(Jekyll's CVE-2018-17567): every path is checked before it is opened (:func:`within`, :func:`list_files`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sitegen.errors import ContentError

OUTSIDE = (
    "a symbolic link out of the book's folder: the build reads nothing outside it "
    "(a book built from someone else's changes could publish the machine's files); "
    "copy the file into the book instead"
)
OUT_OF = (
    "a symbolic link out of {folder}/: the build reads nothing outside it (a site built from someone "
    "else's changes could publish the machine's files, or run them); copy the file into {folder}/ instead"
)
"""Why a link out of the templates' (``site_template/``), the static files' or the model's (``kvpage/``)
folder is refused: :data:`OUTSIDE` with that folder's name."""
LOOP = "a symbolic link to a folder that holds it: the book would be infinitely deep; remove the link"
CIRCLE = "a symbolic link that leads back to itself, to no file: remove it"


def within(root: Path, path: Path, outside: str = OUTSIDE) -> Path | str:
    """``path`` with every symbolic link followed, if that lies inside ``root`` (itself resolved); else why
    not (``outside`` if it leaves ``root``).

    A book is often built where its author does not control the machine: in CI, from
    someone's pull request. A symbolic link in ``content/`` to ``/etc/passwd``, to the
    repository's ``.git/config`` or to a runner's secrets would otherwise be read like any
    file of the book and published, in ``site/``, the zip and (as a ``data:`` URI) the single
    file: the class of Jekyll's CVE-2018-17567. So every path is resolved (every link in it
    followed) and checked to lie inside the book's folder *before* the file is opened, and
    the file read is the resolved one, the very path that was checked.
    """
    try:
        real = path.resolve()
    except (RuntimeError, OSError):  # links in a circle: Python 3.11 raises RuntimeError, later ones OSError
        return CIRCLE
    return real if real == root or real.is_relative_to(root) else outside


@dataclass
class Listing:
    """The files under a folder, each with the resolved path to read, and the links refused."""

    files: dict[PurePosixPath, Path] = field(default_factory=dict)
    """Path relative to the folder → the real file to read (inside the folder)."""
    refused: dict[PurePosixPath, str] = field(default_factory=dict)
    """Path relative to the folder → why it is not read."""


def list_files(folder: Path, wanted: Callable[[PurePosixPath], bool], outside: str = OUTSIDE) -> Listing:
    """Every file under ``folder`` (relative paths ``wanted`` says yes to), links inside followed, in name order.

    A link that leaves ``folder`` is refused if ``wanted`` takes its path (a folder's always):
    what it points at is not opened, not even to see whether it exists. ``outside`` says why.
    A link that stays inside the book is followed: ``img/logo.svg`` may point at ``art/logo.svg``,
    and a folder may point at another folder of the book. A link that leaves it, to a file or a
    folder, is refused at the link itself, whether or not a chapter uses it (as an SVG holding a
    script is): its target is never read. A folder link that leads back to a folder holding it
    would make the book infinitely deep, and is refused too.
    Only links are resolved: every other entry of a folder already known to be inside is inside
    (one ``lstat`` an entry, where resolving each path would take one a component: serve lists the
    templates and the model on every rebuild).
    """
    root = folder.resolve()
    listing = Listing()

    def visit(here: Path, relative: PurePosixPath, holding: frozenset[Path]) -> None:
        """``here`` is the real folder (links followed) at ``relative``."""
        with os.scandir(here) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
        for entry in entries:
            path = relative / entry.name
            if not wanted(path):
                continue
            link = entry.is_symlink()
            real = within(root, Path(entry.path), outside) if link else here / entry.name
            if isinstance(real, str):
                listing.refused[path] = real
            elif real.is_dir() if link else entry.is_dir(follow_symlinks=False):
                if real in holding:
                    listing.refused[path] = LOOP
                else:
                    visit(real, path, holding | {real})
            elif real.is_file() if link else entry.is_file(follow_symlinks=False):
                listing.files[path] = real

    visit(root, PurePosixPath(), frozenset({root}))
    return listing


def everything(_: PurePosixPath) -> bool:
    return True


def links_out(folder: Path, shown: str, wanted: Callable[[PurePosixPath], bool] = everything) -> list[ContentError]:
    """Every link under ``folder`` that leaves it (or loops), as an error at its path: ``shown/relative``.

    For the folders the build reads besides the book's, whose files it reads by their names (Jinja's
    loader, esbuild, hatchling, Python's import): they are checked whole before any of them is read,
    so what the build then reads is inside. A folder that does not exist has no link.
    """
    if not folder.is_dir():
        return []
    listing = list_files(folder, wanted, OUT_OF.format(folder=shown))
    return [ContentError(f"{shown}/{path}", 0, why) for path, why in listing.refused.items()]
