"""The page's Content-Security-Policy: only its own files, plus what wasm needs.

Delivered as a ``<meta>``, as a static site controls no headers and a file:// page has none; inline
code is allowed by hash only, and a worker only from a Blob, as Python's is (decisions 0018, 0047).
Why each source: :func:`policy`.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable


def source_hash(code: str | bytes) -> str:
    """The CSP source expression that allows exactly this inline script or style (as text, or UTF-8)."""
    digest = hashlib.sha256(code.encode("utf-8") if isinstance(code, str) else code).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def policy(inline_scripts: Iterable[str | bytes] = (), inline_styles: Iterable[str] = ()) -> str:
    """The policy for a page whose only inline code is ``inline_scripts`` and ``inline_styles``.

    Delivered as a ``<meta>`` (a static site controls no headers, and a file:// page has none).
    ``'self'`` covers the site's own scripts and styles; ``'wasm-unsafe-eval'`` lets Pyodide compile
    its WebAssembly without allowing JavaScript ``eval``. ``connect-src 'self'`` is for the loader's
    own ``fetch`` of the runtime's binaries over http; the answers to Pyodide's requests are made in
    memory (``new Response(bytes)``), which needs no source. ``worker-src blob:`` is for Python's
    worker, which the page makes from JavaScript it holds (a Blob: file:// and the single file have
    no worker URL); a worker made from a Blob runs under this same policy. Nothing else may be a
    worker, and scripts still come from ``'self'`` alone. Inline code (the single-file page) is
    allowed by hash only.
    """
    scripts = " ".join(["'self'", "'wasm-unsafe-eval'", *map(source_hash, inline_scripts)])
    styles = " ".join(["'self'", *map(source_hash, inline_styles)])
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {scripts}",
            f"style-src {styles}",
            "connect-src 'self'",
            "worker-src blob:",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
