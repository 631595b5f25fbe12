"""Pyodide's standard library compiled to ``.pyc``, kept between builds.

Compiling is about half of a runtime build yet reads nothing of ours, so its result is kept under a
hash of exactly what it reads (:func:`compiled_key`) and a model edit does not pay for it again
(decision 0002; the entries: :func:`compiled_stdlib`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

from sitegen.runtime.cache_entries import mark_newest, write_entry

CACHE_DIR = Path(".cache") / "stdlib-pyc"
"""Relative to the project root."""
KEEP = 2
"""Entries kept: the current Pyodide and the one before it."""


def compiled_key(pinned: Mapping[str, bytes], script: bytes, env: Mapping[str, str], node: str) -> str:
    """The hash of everything the compile step reads: Pyodide's files, the script, its environment, Node.

    Step 1 of the snapshot (``python_snapshot.mjs compile-stdlib``) compiles every module of the
    standard library with the page's own Python. That is about half of a runtime build (9 of 17 s
    here), yet it reads nothing of ours: only the pinned Pyodide files, the script that compiles and
    the environment it runs in. So its result is stored in ``.cache/stdlib-pyc/`` under a hash of
    exactly those, and a model edit (a new wheel, a new snapshot) does not pay for it again. Change
    Pyodide, the script or the environment and the key changes.
    """
    digest = hashlib.sha256()
    for name, data in sorted(pinned.items()):
        digest.update(f"{name} {hashlib.sha256(data).hexdigest()}\n".encode())
    digest.update(f"script {hashlib.sha256(script).hexdigest()}\n".encode())
    digest.update(f"env {json.dumps(dict(env), sort_keys=True)}\nnode {node}\n".encode())
    return digest.hexdigest()


def readable(path: Path) -> bool:
    """Whether ``path`` is a zip whose every member reads back with its CRC intact."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.testzip() is None
    except (OSError, zipfile.BadZipFile):
        return False


def compiled_stdlib(out: Path, key: str, cache: Path | None, compile_to: Callable[[Path], object]) -> bool:
    """Write the compiled stdlib to ``out``: copied from ``cache`` when its entry for ``key`` is
    sound, else made by ``compile_to(out)`` and stored there. True when it was reused.

    ``cache`` is None for ``--no-cache``: always compile, store nothing, like every other stage. An
    entry that is not a readable zip is compiled again. Entries are written atomically and the newest
    few are kept (``cache_entries.py``).
    """
    entry = cache / f"{key}.zip" if cache is not None else None
    if entry is not None and readable(entry):
        shutil.copyfile(entry, out)
        mark_newest(entry)
        return True
    compile_to(out)
    if entry is not None:
        with out.open("rb") as made:
            write_entry(entry, lambda handle: shutil.copyfileobj(made, handle), KEEP)
    return False
