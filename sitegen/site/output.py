"""Stage "files": put the in-memory site, its zip and the single file on disk, whole or not at all.

Each output is staged beside its target, then swapped in under a journal, so a reader finds the
outputs of one build and a kill at any point is completed or undone by the next build (issue 34,
decision 0051). How: :func:`publish`; after a kill: :func:`recover`.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, cast

from sitegen.book.reproducible import ZIP_DATE
from sitegen.site.assemble import Site

RENAME_EXCHANGE = 2
"""``renameat2``'s flag that swaps two paths in one step (linux/fs.h)."""
AT_FDCWD = -100
Output = bytes | Callable[[IO[bytes]], None]
"""A file to publish: its bytes, or what writes them into the staged file (the zip and the single file
of a large book are never held whole, issue 49)."""
MANIFEST = ".kvpage-build.json"
"""The file in the site's folder that lists what the build wrote there (``{"files": [...]}``), and only that."""


def manifest(files: Collection[str]) -> bytes:
    """The manifest of a site of ``files``: sorted, so two builds of one book write the same bytes."""
    return (json.dumps({"files": sorted(files)}, indent=0) + "\n").encode("utf-8")


def manifest_files(folder: Path) -> list[str] | None:
    """The files a build wrote into ``folder``, by the manifest there; None if it has no readable one."""
    try:
        entry = json.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    listed = entry.get("files") if isinstance(entry, dict) else None
    if not isinstance(listed, list) or not all(isinstance(name, str) for name in listed):
        return None
    return listed


def write_tree(files: dict[str, bytes], folder: Path) -> None:
    for name, data in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def stage_folder(files: dict[str, bytes], out: Path) -> Path:
    """``files`` and their manifest written into a new hidden sibling of ``out`` (removed again on failure)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    try:
        fresh.chmod(0o755)
        write_tree({**files, MANIFEST: manifest(files)}, fresh)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return fresh


def stage_file(data: Output, target: Path) -> Path:
    """``data`` (or what it writes) written into a new hidden sibling of ``target`` (removed again on failure)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}-", delete=False) as handle:
        staged = Path(handle.name)
        try:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                data(handle)
        except BaseException:
            handle.close()
            staged.unlink(missing_ok=True)
            raise
    staged.chmod(0o644)
    return staged


def rename(source: Path, target: Path) -> None:
    """One rename that replaces ``target`` (every rename of the swap goes through here or :func:`exchange`)."""
    os.replace(source, target)


def _renameat2() -> Callable[[int, bytes, int, bytes, int], int] | None:
    """The C library's ``renameat2`` (glibc 2.28 and later), or None."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return cast(Callable[[int, bytes, int, bytes, int], int], function)


def exchange(first: Path, second: Path) -> None:
    """Swap two existing paths in one step (``renameat2(RENAME_EXCHANGE)``), or in three renames where not."""
    function = _renameat2()
    if function is not None:
        if function(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) == 0:
            return
        number = ctypes.get_errno()
        if number not in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
            raise OSError(number, os.strerror(number), str(first), None, str(second))
    aside = Path(tempfile.mkdtemp(prefix=f".{second.name}-old-", dir=second.parent)) / "old"
    rename(second, aside)
    rename(first, second)
    rename(aside, first)
    aside.parent.rmdir()


def journal_path(out: Path) -> Path:
    """Where a committed swap into ``out`` is written down until it is complete."""
    return out.with_name(f".{out.name}-publish.json")


@contextmanager
def locked(out: Path) -> Iterator[None]:
    """An exclusive lock on ``out``'s parent folder, so one build at a time stages and swaps there."""
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(out.parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)


def write_journal(out: Path, fresh: Path, staged: Mapping[Path, Path], removed: Collection[Path] = ()) -> None:
    """Commit the swap: the journal, written beside and renamed into place (the swap's first rename)."""
    journal = journal_path(out)
    entry = {
        "folder": [os.path.relpath(fresh, out.parent), os.path.relpath(out, out.parent)],
        "inode": [fresh.stat().st_dev, fresh.stat().st_ino],
        "files": [
            [os.path.relpath(path, out.parent), os.path.relpath(target, out.parent)] for target, path in staged.items()
        ],
        "removed": [os.path.relpath(target, out.parent) for target in removed],
    }
    with tempfile.NamedTemporaryFile("w", dir=out.parent, prefix=f"{journal.name}-", delete=False) as handle:
        json.dump(entry, handle)
        handle.flush()
        os.fsync(handle.fileno())
    rename(Path(handle.name), journal)


def roll_forward(out: Path) -> None:
    """Finish the swap the journal beside ``out`` names, whichever of its renames were done, then drop it."""
    journal = journal_path(out)
    try:
        entry = json.loads(journal.read_text())
    except FileNotFoundError:
        return
    fresh, target = (out.parent / name for name in entry["folder"])
    if fresh.is_dir() and [fresh.stat().st_dev, fresh.stat().st_ino] == entry["inode"]:
        if target.exists():
            exchange(fresh, target)  # the old site is now at ``fresh``'s name, removed with the leftovers
        else:
            rename(fresh, target)
    for staged, file_target in entry["files"]:
        if (out.parent / staged).exists():
            rename(out.parent / staged, out.parent / file_target)
    for gone in entry.get("removed", ()):  # a journal of an older build has none
        (out.parent / gone).unlink(missing_ok=True)
    journal.unlink()


def leftovers(out: Path, targets: Collection[Path]) -> list[Path]:
    """What killed builds leave beside ``out`` and ``targets``: staged folders and files, old sites."""
    found = [*out.parent.glob(f".{out.name}-new-*"), *out.parent.glob(f".{out.name}-old*")]
    found += out.parent.glob(f"{journal_path(out).name}-*")
    for target in targets:
        found += target.parent.glob(f".{target.name}-*")
    return found


def recover(out: Path, targets: Collection[Path]) -> None:
    """Finish a swap a killed build committed, then remove every leftover of killed builds.

    Every build runs this before anything else (``build()``, serve's builds, and :func:`publish`): it
    rolls forward a journal a killed build left (the folder swap is recognised as done by the new
    folder's inode being at ``site/``) and then removes every leftover of killed builds (staged
    folders and files, the old site). So after any kill the next build completes what was committed
    or leaves everything as it was.
    Where ``out``'s parent folder does not exist there is nothing to finish, and it is not made:
    a build that then fails writes nothing at all.
    """
    if not out.parent.is_dir():
        return
    with locked(out):
        _recover(out, targets)


def _recover(out: Path, targets: Collection[Path]) -> None:
    roll_forward(out)
    for path in leftovers(out, targets):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def publish(site: Site, out: Path, files: Mapping[Path, Output | None]) -> None:
    """Replace the folder ``out`` with ``site`` and each of ``files`` (the zip, the single file); a file
    given as None is removed (an output this build does not make). A file given as a function is written
    by it, straight into its staged file.

    Each is first written in full next to its target (a hidden sibling folder ``.site-new-*``, hidden
    sibling files ``.kvpage-site.zip-*`` and ``.kvpage.html-*``); a build that fails while writing
    removes them and leaves the previous ``site/`` and ``dist/`` exactly as they were. The site's folder
    holds one file more than the site: its **manifest** (:data:`MANIFEST`), the list of the files the build
    wrote there, by which the next build knows the folder for one it may replace
    (:mod:`sitegen.site.targets`). An output this build does not make (the single file of an earlier
    ``--single-file`` build) is removed in the same swap, so no output of an older build stays beside it.

    Then the swap, which takes several renames and so could be cut by a kill between two of them
    (issue 34). Before the first, a **journal** (``.site-publish.json`` beside ``site/``) names every
    staged path and its target, and is put in place by a rename of its own: from that rename on the
    build is committed. The folder is swapped by one ``renameat2(RENAME_EXCHANGE)`` (Linux, through
    ctypes: there is no moment without ``site/``, and ``site/`` stays a real folder, as GitHub Pages'
    ``upload-pages-artifact`` needs), then each file by one ``os.replace`` (or removed, if this build
    makes none), then the journal is removed. Every build first finishes a journal a killed build left
    (:func:`recover`). So a reader of the output folders finds the site, the zip and the single file
    of one build whenever there is no journal beside ``site/``. All of it runs under an exclusive
    ``flock`` of ``site/``'s parent folder, so two builds (``serve``'s and a command line's) never
    remove each other's staged files. Where ``renameat2`` is missing, the exchange is three renames
    (``site/`` absent for an instant); the journal still rolls it forward.
    """
    with locked(out):
        _recover(out, files)
        fresh = stage_folder(site.files, out)
        staged: dict[Path, Path] = {}
        try:
            for target, data in files.items():
                if data is not None:
                    staged[target] = stage_file(data, target)
            write_journal(out, fresh, staged, [target for target, data in files.items() if data is None])
        except BaseException:
            shutil.rmtree(fresh, ignore_errors=True)
            for path in staged.values():
                path.unlink(missing_ok=True)
            raise
        roll_forward(out)
        shutil.rmtree(fresh, ignore_errors=True)  # the old site, exchanged to the staged name


def refresh(site: Site, out: Path, last: Site | None) -> None:
    """serve's publish: after its first build, only the files whose bytes changed since ``last``, the
    site it published there before (its manifest says so), each staged beside itself and renamed over
    it, so a page is never read half written; files gone are removed, and the manifest follows. Else,
    or whatever is unlike ``last``, the whole site is published (:func:`publish`)."""
    if last is None or manifest_files(out) != sorted(last.files):
        publish(site, out, {})
        return
    with locked(out):
        roll_forward(out)
        for name, data in site.files.items():
            if last.files.get(name) != data:
                rename(stage_file(data, out / name), out / name)
        for name in last.files.keys() - site.files.keys():
            (out / name).unlink(missing_ok=True)
            for folder in (out / name).parents:
                if folder == out or any(folder.iterdir()):
                    break
                folder.rmdir()
        if site.files.keys() != last.files.keys():
            rename(stage_file(manifest(site.files), out / MANIFEST), out / MANIFEST)


def write_zip(site: Site, top: str, handle: IO[bytes]) -> None:
    """The site as a zip with one top folder, sorted entries and fixed dates (reproducible), written
    into ``handle`` (a staged file) as it is made."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in sorted(site.files.items()):
            info = zipfile.ZipInfo(f"{top}/{name}", date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
