"""Where a build may write: ``--out`` and ``--dist`` checked before anything is written.

A build replaces its ``--out`` folder whole and replaces or removes its files in ``--dist``, so
pointed at the wrong folder (``--out content``, ``--out .``) it would delete what that holds. Both
are checked first and a refusal says why (decision 0051; what is refused: :func:`refusals`).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from sitegen.search.index import SCRIPT as SEARCH_INDEX
from sitegen.site.output import MANIFEST, journal_path, manifest_files

INDEX = "index.html"
EARLIER_INDEX = b"globalThis.kvpageSearchData = JSON.parse("
"""What the search index of every build before manifests holds (``sitegen.search.index.SearchIndex.script``):
with ``index.html`` beside it, how such a build's site is known."""
MOST_READ = 64 * 2**20
"""Bytes of a search index read to know it (the chapter's is 0.1 MB; a folder's stranger file is not read whole)."""
SHOWN = 3
"""Foreign files named in a refusal (the rest are counted)."""
REPLACED = "a build replaces the site's folder whole, and would delete it"
OWN = "the zip's folder holds the build's outputs only, so that none of them is mistaken for another's"


@dataclass(frozen=True)
class Read:
    """A folder the build reads, and what to call it in a refusal."""

    folder: Path
    what: str


def refusals(out: Path, dist: Path, dist_files: Collection[Path], read: Collection[Read], project: Path) -> list[str]:
    """Why a build may not write its site into ``out`` and ``dist_files`` into ``dist`` (none if it may).

    ``read`` are the folders the build reads (the book, templates, model); ``project`` is the project's
    folder, which holds them and ``out``'s default.

    A build replaces its ``--out`` folder whole (:mod:`sitegen.site.output` swaps a new folder in and
    removes the old one) and replaces or removes its two files in ``--dist``. Pointed at the wrong
    folder, that deletes what it holds: ``--out content`` would replace the book with the site, ``--out .``
    the whole project. So before a build writes anything (before it even finishes a killed build's
    swap) both folders are checked, and a build refused says why, in the build's usual errors.

    Refused, for ``--out`` and ``--dist`` alike:

    - the project itself, or a folder holding it (``--out .``, ``--out ..``);
    - a folder the build reads (the book, the templates, the model), a folder inside one, or one
      holding one (``--out content``, ``--out content/site``, ``--dist tests/books``);
    - something that is not a folder;
    - a folder that holds anything the build did not write. The site's folder says what the build wrote
      there in its manifest (:data:`sitegen.site.output.MANIFEST`); a folder with no manifest is the
      site of a build from before manifests if it holds that build's ``index.html`` and
      ``search/index.js`` (every build since search, 2a8804e, writes both, the index with
      :data:`EARLIER_INDEX` in it), and else only if it is empty. ``--dist`` holds the
      zip, the single file and their staged copies (``.kvpage-site.zip-*``), and, when the site's folder
      is in it, that folder and what its swap leaves beside it.

    And ``--dist`` inside ``--out`` (the site's swap would take the zip with it), or ``--out`` deeper
    inside ``--dist`` than one level (the folder between would hold something no build wrote).
    """
    out, dist, project = out.resolve(), dist.resolve(), project.resolve()
    problems: list[str] = []
    for option, folder in (("--out", out), ("--dist", dist)):
        problems += [f"{option} {folder}: {why}" for why in overlaps(folder, read, project)]
    if problems:
        return problems
    if dist == out or dist.is_relative_to(out):
        return [f"--dist {dist}: inside --out {out}, which each build replaces whole: the zip would go with it"]
    if out.is_relative_to(dist) and out.parent != dist:
        return [f"--out {out}: inside --dist {dist}, below a folder no build writes: put it in --dist itself"]
    problems += [f"--out {out}: {why}" for why in foreign_in_site(out)]
    problems += [f"--dist {dist}: {why}" for why in foreign_in_dist(dist, {path.name for path in dist_files}, out)]
    return problems


def overlaps(folder: Path, read: Collection[Read], project: Path) -> Iterator[str]:
    """Why ``folder`` is refused for where it lies: the project, or a folder the build reads."""
    if project.is_relative_to(folder):
        where = "the project's folder" if folder == project else "a folder holding the project"
        yield f"{where}: a build writes only a folder of its own (the default: site/ and dist/)"
        return
    for reading in read:
        source = reading.folder.resolve()
        if folder == source:
            yield f"the folder of {reading.what} ({source}), which the build reads: a build would replace or litter it"
        elif folder.is_relative_to(source):
            yield f"inside {reading.what} ({source}), which the build reads: its output would become part of it"
        elif source.is_relative_to(folder):
            yield f"holds {reading.what} ({source}), which the build reads: a build would replace it"


def foreign_in_site(out: Path) -> list[str]:
    """Why the site's folder ``out`` may not be replaced: it is no folder, or holds what no build wrote."""
    if not out.exists() and not out.is_symlink():
        return []
    if out.is_symlink() or not out.is_dir():
        return ["not a folder: a build writes the site into a folder of its own"]
    present = tree(out)
    listed = manifest_files(out)
    if listed is None:
        if not present or earlier_site(out):
            return []
        return [nobody_wrote(present, "and no build's manifest", REPLACED)]
    written = {MANIFEST, *listed}
    written |= {parent.as_posix() for name in listed for parent in Path(name).parents if parent != Path(".")}
    foreign = [name for name in present if name not in written]
    return [nobody_wrote(foreign, "", REPLACED)] if foreign else []


def earlier_site(out: Path) -> bool:
    """Whether ``out``, with no manifest, is the site of a build from before manifests."""
    index = out / SEARCH_INDEX
    if not (out / INDEX).is_file() or index.is_symlink() or not index.is_file():
        return False
    with index.open("rb") as script:
        return EARLIER_INDEX in script.read(MOST_READ)


def foreign_in_dist(dist: Path, names: Collection[str], out: Path) -> list[str]:
    """Why ``dist`` may not take the zip and the single file (``names``): it holds what no build wrote."""
    if not dist.exists() and not dist.is_symlink():
        return []
    if dist.is_symlink() or not dist.is_dir():
        return ["not a folder: a build writes the zip into a folder"]
    patterns = [*names] + [f".{name}-*" for name in names]
    if out.parent == dist:  # the site's folder, and what its swap leaves beside it (sitegen/site/output.py)
        journal = journal_path(out).name
        patterns += [out.name, f".{out.name}-new-*", f".{out.name}-old*", journal, f"{journal}-*"]
    foreign = [
        entry.name
        for entry in sorted(dist.iterdir())
        if not any(fnmatch.fnmatchcase(entry.name, pattern) for pattern in patterns)
        or (entry.name in names and entry.is_dir() and not entry.is_symlink())
    ]
    return [nobody_wrote(foreign, "", OWN)] if foreign else []


def tree(folder: Path) -> list[str]:
    """Every file and folder under ``folder`` (relative, sorted); links are not followed."""
    found: list[str] = []
    for here, folders, files in os.walk(folder):
        base = Path(here).relative_to(folder)
        found += [(base / name).as_posix() for name in [*folders, *files]]
    return sorted(found)


def nobody_wrote(foreign: list[str], besides: str, because: str) -> str:
    """The refusal of a folder holding ``foreign`` files."""
    named = ", ".join(foreign[:SHOWN]) + (f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else "")
    besides = f" {besides}" if besides else ""
    return f"holds what no build wrote ({named}){besides}: {because}; move it away, or choose an empty or new folder"
