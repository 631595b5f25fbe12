"""The bench's web server: a folder on 127.0.0.1, at a free port, sent the way GitHub Pages sends it.

Every bench that opens a page over http (``run.py``, ``lighthouse.py``, ``webkit.py --http``) serves
it with this, so what they measure is what a reader of the published site gets:

- **text types gzipped** (``Content-Encoding: gzip``, level 6 like most servers) when the browser
  accepts it: the suffixes of ``PAGES_GZIPS``. Binary types are sent as they are (our packed
  ``.bin`` files are gzip already; stock Pyodide's wasm and zip are not compressed by such a host).
  What GitHub Pages compresses is an assumption (nothing here reaches GitHub), stated once, here.
- **caching** as ``sitegen/serve/http_server.py`` does it: the runtime's content-addressed files
  (``sitegen/runtime/names.py``) for a year, ``immutable``; everything else ``no-cache`` with an
  ETag, answered 304 when it matches. (GitHub Pages itself sends ``max-age=600`` for every file.)
- **quiet**: no request log, and a browser that leaves while a file is sent is not an error.

Bodies are kept in memory by file (path, size, time, encoding), so each is read and compressed once.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import gzip
import hashlib
import http.server
import io
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitegen.runtime.names import cache_control  # noqa: E402

PAGES_GZIPS = frozenset({".html", ".css", ".js", ".mjs", ".json", ".svg", ".txt", ".xml", ".map"})
"""What GitHub Pages sends gzipped (it compresses by content type): text types, scripts, JSON, SVG.

An assumption, not a measurement (nothing here reaches GitHub): binary types are sent as they
are, which we take to include application/wasm and application/zip as well as
application/octet-stream (``.bin`` and any unknown suffix)."""
GZIP_LEVEL = 6
"""zlib's default, and what common servers use on the fly."""

_bodies: dict[tuple[str, int, int, bool], tuple[bytes, str]] = {}
"""(path, size, mtime_ns, gzipped) → (body, ETag): each file is read and compressed once per process."""
_lock = threading.Lock()


def representation(path: Path, gzipped: bool) -> tuple[bytes, str]:
    """The body sent for ``path`` (gzipped or as it is) and its ETag, from memory once made."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns, gzipped)
    with _lock:
        found = _bodies.get(key)
    if found is None:
        data = path.read_bytes()
        body = gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0) if gzipped else data
        found = (body, f'"{hashlib.sha256(body).hexdigest()[:32]}{"-gzip" if gzipped else ""}"')
        with _lock:
            _bodies[key] = found
    return found


class Handler(http.server.SimpleHTTPRequestHandler):
    """A folder, sent like GitHub Pages: text gzipped, runtime files cached for a year, ETags."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", cache_control(self.path.split("?", 1)[0]))
        super().end_headers()

    def send_head(self) -> Any:
        """The headers of a file, and the file (or its gzipped bytes) for do_GET to copy."""
        path = Path(self.translate_path(self.path))
        if path.is_dir() or not path.is_file():
            return super().send_head()  # directory listings, redirects and 404s as http.server does them
        compress = "gzip" in self.headers.get("Accept-Encoding", "") and path.suffix.lower() in PAGES_GZIPS
        body, etag = representation(path, compress)
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        if compress:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", email.utils.formatdate(path.stat().st_mtime, usegmt=True))
        self.end_headers()
        return io.BytesIO(body)


class Server(http.server.ThreadingHTTPServer):
    """Silent when a browser leaves while a file is still being sent: that is a reader leaving."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    """``root`` served on 127.0.0.1 at a free port; yields its base URL (``http://127.0.0.1:PORT/``)."""
    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
