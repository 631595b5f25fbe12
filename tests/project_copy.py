"""A copy of a kvpage project that builds as the original does: for tests and benchmarks that edit one.

The copy holds what a build reads (``PROJECT``; hatchling reads ``.gitignore`` for the wheel's
files), with fresh file times; Pyodide (``node_modules``) is linked, not copied. The build caches
asked for are copied too: they are keyed by content (``sitegen/runtime/cache.py``,
``compiled_stdlib.py``, ``packing.py``), so they serve the copy exactly as they serve the original,
and a build of the copy pays only for what was changed in it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sitegen.runtime import cache as runtime_cache
from sitegen.runtime import compiled_stdlib, packing

PROJECT = ("build.py", "pyproject.toml", "package.json", ".gitignore", "content", "kvpage", "sitegen", "site_template")
"""What a build reads from the project, besides ``node_modules`` (``package.json`` declares its versions)."""
RUNTIME_CACHE = runtime_cache.CACHE_DIR
"""Built runtimes, by the hash of everything they are made from."""
COMPILED_CACHE = compiled_stdlib.CACHE_DIR
"""Pyodide's compiled stdlib, by the hash of Pyodide and the compile script."""
PACKED_CACHE = packing.CACHE_DIR
"""The wasm and snapshots packed with zstd, by the hash of their bytes and the packing."""


def project_copy(
    root: Path, target: Path, *, caches: tuple[Path, ...] = (RUNTIME_CACHE, COMPILED_CACHE, PACKED_CACHE)
) -> Path:
    """A copy at ``target`` of the project at ``root``, with those of its ``caches`` that exist."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    target.mkdir(parents=True, exist_ok=True)
    for name in PROJECT:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore, copy_function=shutil.copy)
        else:
            shutil.copy(source, target / name)
    (target / "node_modules").symlink_to(root / "node_modules", target_is_directory=True)
    for cache in caches:
        if (root / cache).is_dir():
            shutil.copytree(root / cache, target / cache)
    return target
