"""The runtime stage, cached: a rebuild of prose reuses the Pyodide files and the wheel.

Building the wheel and checking Pyodide take about a second and depend only on code, never on the
book, so their result is kept in ``.cache/runtime/`` under a key that hashes everything they read
(:func:`runtime_key`): a stale runtime is never reused (the entries: :func:`cached_runtime`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import pickle
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import sitegen
from kvpage.lab import Lab
from sitegen.cli.progress import SILENT, Progress
from sitegen.labs.discovery import other_labs
from sitegen.labs.model_imports import model_tree
from sitegen.runtime import cache_entries
from sitegen.runtime.bundle import Runtime, load_runtime, with_new_wheel
from sitegen.runtime.compiled_stdlib import CACHE_DIR as COMPILED_DIR
from sitegen.runtime.packing import CACHE_DIR as PACKED_DIR

CACHE_DIR = Path(".cache") / "runtime"
"""Relative to the project root."""
KEEP = 6
"""Entries kept: enough to switch back and forth between a few versions of the model, or books."""
LOCK = "build.lock"
"""In the cache folder: held while a build reads or makes an entry (``taking_turns``)."""
BUILDING = "building the in-browser runtime (Pyodide checked, kvpage wheel built)"
REUSED = (
    f"in-browser runtime unchanged (kvpage/, Pyodide, build code, the book's labs): reused from {CACHE_DIR.as_posix()}/"
)
TOOLS = ("build", "hatchling", "pyodide-lock", "packaging", "zstandard")
"""The packages that shape the wheel and its lock entry, and the zstd output."""

_hashes: dict[Path, tuple[int, int, str]] = {}
"""path → (size, mtime_ns, sha256): a file unchanged since it was last hashed is not read again."""
_memory: dict[str, Runtime] = {}
"""The last runtimes this process made or read, by key (a serve worker rebuilds many times)."""
MEMORY = 3
"""Runtimes remembered in ``_memory`` (a test process builds books with different labs in turn)."""


def file_hash(path: Path) -> str:
    stat = path.stat()
    known = _hashes.get(path)
    if known is not None and known[:2] == (stat.st_size, stat.st_mtime_ns):
        return known[2]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    _hashes[path] = (stat.st_size, stat.st_mtime_ns, digest)
    return digest


def files_under(folder: Path) -> Iterable[Path]:
    """Every file under ``folder`` except Python's bytecode caches, in a fixed order."""
    if not folder.exists():
        return []
    return sorted(path for path in folder.rglob("*") if path.is_file() and "__pycache__" not in path.parts)


def tool_versions() -> list[str]:
    versions = [f"python {sys.version}"]
    for name in TOOLS:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} missing")
    return versions


def runtime_key(root: Path, labs: Collection[str]) -> str:
    """The hash of everything the runtime stage reads for the labs ``labs``.

    That is: the names of the labs the book may show (the snapshot holds those and nothing else, so
    two books with different ``experimental_labs`` get different runtimes), every file of
    ``kvpage/`` that the book's wheel is built from (its metadata, ``kvpage/pyproject.toml``, too;
    not the other labs' modules, which the wheel leaves out, so an edit to one of those keeps this
    book's runtime), every file of ``node_modules/pyodide`` (the interpreter), every file of
    ``sitegen/`` (the code that packs them, pins included), and the versions of Python and of the
    tools that build the wheel. Change any of those and the key changes, so a stale runtime can
    never be reused; change only Markdown or templates and the key stays, so the stage costs the
    time to hash (files unchanged since the last hash in this process are not read again).
    """
    code = Path(sitegen.__file__).resolve().parent
    inputs = [
        *((root, path) for path in model_tree(root, other_labs(labs))),
        (root, root / "package.json"),
        *((root, path) for path in files_under(root / "node_modules" / "pyodide")),
        *((root, path) for path in files_under(root / "node_modules" / "zstddec")),
        *((code.parent, path) for path in files_under(code)),
    ]
    digest = hashlib.sha256()
    digest.update(f"labs {json.dumps(sorted(labs))}\n".encode())
    for line in tool_versions():
        digest.update(f"{line}\n".encode())
    for base, path in inputs:
        shown = path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path)
        content = file_hash(path) if path.is_file() else "missing"
        digest.update(f"{shown} {content}\n".encode())
    return digest.hexdigest()


def read_entry(path: Path) -> Runtime | None:
    """The runtime stored at ``path``, or None if there is none or it cannot be read."""
    try:
        with path.open("rb") as handle:
            runtime = pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception:  # noqa: BLE001 - any unreadable entry is simply rebuilt
        return None
    return runtime if isinstance(runtime, Runtime) else None


def write_entry(path: Path, runtime: Runtime) -> None:
    """Store ``runtime`` at ``path`` atomically, then drop all but the newest entries."""
    cache_entries.write_entry(path, lambda handle: pickle.dump(runtime, handle, protocol=pickle.HIGHEST_PROTOCOL), KEEP)


def build_runtime(root: Path, labs: Mapping[str, Lab], compiled_cache: Path | None) -> Runtime:
    """:func:`load_runtime`, keeping its zstd output in ``root``'s ``.cache/packed/`` whenever the
    compiled stdlib is kept: a new snapshot then costs its own packing, never the wasm's again."""
    return load_runtime(root, labs, compiled_cache, None if compiled_cache is None else root / PACKED_DIR)


def cached_runtime(
    root: Path,
    labs: Mapping[str, Lab],
    progress: Progress = SILENT,
    *,
    use_cache: bool = True,
    load: Callable[[Path, Mapping[str, Lab], Path | None], Runtime] = build_runtime,
) -> Runtime:
    """The runtime for the project at ``root`` and the labs ``labs``: from the cache when its
    inputs are unchanged, else built.

    A build keeps the compiled stdlib in ``root``'s ``.cache/stdlib-pyc/`` (``compiled_stdlib.py``);
    without the cache, everything is made afresh.

    The entry is a pickle of :class:`sitegen.runtime.bundle.Runtime`, written atomically and read
    back only from this project's own cache folder. An entry that cannot be read is rebuilt. The
    newest few entries are kept. Builds of one project that run at once (the test suite's workers)
    take turns at the stage, so the second finds what the first built instead of building it again.
    """
    if not use_cache:
        with progress.step(BUILDING):
            return load(root, labs, None)
    key = runtime_key(root, labs)
    if key in _memory:
        progress.note(REUSED)
        _memory[key] = _memory.pop(key)  # the most recently used, the last to be forgotten
        return _memory[key]
    entry = root / CACHE_DIR / f"{key}.pickle"
    with taking_turns(root / CACHE_DIR / LOCK):
        runtime = read_entry(entry)
        if runtime is None:
            with progress.step(BUILDING):
                runtime = load(root, labs, root / COMPILED_DIR)
            write_entry(entry, runtime)
        else:
            cache_entries.mark_newest(entry)  # the newest entries are the ones kept
            progress.note(REUSED)
    _memory[key] = runtime
    for old in list(_memory)[:-MEMORY]:
        del _memory[old]
    return runtime


def hot_runtime(root: Path, base: str, labs: Mapping[str, Lab], progress: Progress = SILENT) -> Runtime | None:
    """``serve`` after a model edit: the runtime ``base`` (a key of this cache) with a wheel of the
    model now in ``root``, its snapshot kept (:func:`sitegen.runtime.bundle.with_new_wheel`); None if there
    is no such entry, it holds other labs, or the new model cannot run on it.

    It is remembered in this process under the model's own key, so the process's next builds (a
    prose edit) reuse it, and it is never written to the cache: the cache holds only runtimes
    whose snapshot is their own model's.
    """
    key = runtime_key(root, labs)
    if key in _memory:
        return _memory[key]
    runtime = _memory.get(base) or read_entry(root / CACHE_DIR / f"{base}.pickle")
    if runtime is None or runtime.labs != tuple(sorted(labs)):
        return None
    with progress.step("building the kvpage wheel for the page's running Python (snapshot kept)"):
        made = with_new_wheel(runtime, root)
    if made is not None:
        made = _memory[key] = replace(made, snapshot_key=runtime.snapshot_key or base)
    return made


@contextlib.contextmanager
def taking_turns(lock: Path) -> Iterator[None]:
    """Hold ``lock`` (an advisory lock on that file) while the block runs: one build at a time."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
