"""The runtime's file names: content-addressed, so that a browser may keep them for a year.

A new Pyodide, wheel or snapshot is a new name, so a file under a name never changes and a second
chapter or visit reads Python's 7 MB from the browser's cache without asking (decision 0027). The
names and the headers a server sends: :func:`content_name`, :func:`cache_control`.
"""

from __future__ import annotations

import hashlib
import re

RUNTIME_DIR = "pyodide"
"""Folder of the site that holds the runtime, also Pyodide's ``indexURL``."""
HASH_LENGTH = 8
"""Hex digits of the sha256 in a content-addressed name: a new version must only differ from the old."""
IMMUTABLE = "public, max-age=31536000, immutable"
"""For a content-addressed file: a year (the most HTTP caches keep anything), never revalidated."""
REVALIDATE = "no-cache"
"""For every other file: the browser may keep it, but asks (with the ETag) before each use."""
CONTENT_ADDRESSED = re.compile(rf"(?:^|/){RUNTIME_DIR}/[^/]+\.[0-9a-f]{{{HASH_LENGTH}}}(?:\.[A-Za-z0-9]+)+$")
"""A URL path or site path of a file ``content_name`` named (``…/pyodide/NAME.HASH.SUFFIX…``)."""


def content_name(name: str, data: bytes, suffix: str = "") -> str:
    """``name`` + ``suffix`` with the hash of ``data`` before ``name``'s last suffix.

    ``content_name("pyodide.asm.wasm", packed, ".bin")`` is ``pyodide.asm.3f2a9c1e.wasm.bin``.

    Every file of ``pyodide/`` that a page loads (Pyodide's two scripts, each packed binary and its
    script) is named so: the first ``HASH_LENGTH`` hex digits of the sha256 of the bytes served, in
    front of the name's last suffix. A new Pyodide, wheel or snapshot is a new name, so a file under
    a name never changes. The page finds the names in its loader config (``sitegen/runtime/bundle.py``,
    ``Runtime.loader``).
    """
    stem, dot, last = name.rpartition(".")
    digest = hashlib.sha256(data).hexdigest()[:HASH_LENGTH]
    return f"{stem}.{digest}.{last}{suffix}" if dot else f"{name}.{digest}{suffix}"


def is_content_addressed(path: str) -> bool:
    """Whether ``path`` (``/REPO/pyodide/pyodide.asm.3f2a9c1e.wasm.bin``, say) is a content-addressed runtime file."""
    return CONTENT_ADDRESSED.search(path) is not None


def cache_control(path: str) -> str:
    """The ``Cache-Control`` a server should send for ``path``: a year for content-addressed files.

    A file under a content-addressed name never changes, and a server may say so: ``Cache-Control:
    public, max-age=31536000, immutable``. A second chapter, or a second visit, then reads Python's
    7 MB from the browser's cache without asking the server at all. Everything else (pages, styles,
    the page's own scripts) is revalidated on every use: ``no-cache`` with an ETag.

    ``sitegen/serve/http_server.py`` and the bench's servers send these headers. GitHub Pages sets its
    own (``Cache-Control: max-age=600`` and an ETag for every file, whatever its name): there a hashed
    name still makes the browser's copy correct forever and its revalidation a cheap 304, and a new
    build can never be mixed with an old file cached under the same name.
    """
    return IMMUTABLE if is_content_addressed(path) else REVALIDATE
