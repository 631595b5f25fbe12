"""serve's HTTP server: the builder's folder on 127.0.0.1, with live reload added to its pages.

Nothing of live reload is in the built site or the zip, so it is added here, as each page is sent
(:func:`inject`). It is the author's tool, so every request gets a status rather than a traceback
(:class:`SiteHandler`), and no other web site may read what it serves (:func:`host_allowed`).
"""

from __future__ import annotations

import contextlib
import hashlib
import html
import http.server
import json
import mimetypes
import posixpath
import re
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote

from sitegen.runtime.names import cache_control

HOST = "127.0.0.1"
BACKLOG = 4096
"""Connections the kernel holds until serve accepts them (Linux caps it at ``net.core.somaxconn``,
4096 by default): a page's burst of requests, or many pages at once, is queued, not dropped."""
REQUEST_SECONDS = 10.0
"""How long serve waits for a request to begin on a connection, then for each next piece of its head;
a browser sends a whole head at once. The idle connection is closed, the half-sent request gets 408."""
SEND_SECONDS = 60.0
"""How long an answer (a file, an event) may wait for the browser to take it before the connection
is dropped: a tab that stopped reading must not hold a thread forever."""
CORP = "same-origin"
"""Every answer's ``Cross-Origin-Resource-Policy``: no page of another origin may load it."""
KEEPALIVE_SECONDS = 15.0
PREFIX = "/__kvpage/"
CLIENT = Path(__file__).with_name("livereload.js")
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
}
PLAIN = "text/plain; charset=utf-8"
NOT_FOUND = b"not found\n"
LOOPBACK_HOST = re.compile(r"(127\.0\.0\.1|localhost|\[::1\])(?::([0-9]{1,5}))?", re.IGNORECASE)
"""The ``Host`` headers serve answers: a loopback name, and the port (checked against the bound one)."""
BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class BadRequest(ValueError):
    """Why a request target cannot name a file (answered with 400)."""


def request_path(target: str) -> str:
    """The decoded path of a request target; BadRequest if it is not a well-formed one."""
    if not target.startswith("/"):
        raise BadRequest("the request target is not a path")
    path = target.partition("?")[0].partition("#")[0]  # not urlsplit: "//x/y" would lose "x" as a host
    if BAD_PERCENT.search(path):
        raise BadRequest("bad percent-encoding")
    try:
        path = unquote(path, errors="strict")
    except UnicodeDecodeError:
        raise BadRequest("the path is not UTF-8") from None
    if CONTROL.search(path):
        raise BadRequest("the path holds a control character")
    return path


def host_allowed(host: str | None, port: int) -> bool:
    """Whether a request's ``Host`` names this server on the loopback interface (no DNS rebinding).

    Allowed: ``127.0.0.1``, ``localhost`` or ``[::1]`` with the bound port (without a port only on
    port 80, where a browser omits it); serve answers any other with 403. Listening on 127.0.0.1 is
    not enough, because of DNS rebinding: a web page the author visits can point its own name at
    127.0.0.1 and then read the preview as same-origin; its requests carry its own name as ``Host``
    (the class of webpack-dev-server's CVE-2018-14732, and why Vite checks the host). A page of
    another origin that sends the right ``Host`` is kept out by ``CORP`` (:meth:`SiteHandler.end_headers`).
    """
    found = LOOPBACK_HOST.fullmatch((host or "").strip())
    if found is None:
        return False
    return int(found[2]) == port if found[2] else port == 80


def host_refusal(host: str | None, port: int) -> bytes:
    """Why serve answered 403: the addresses it does answer."""
    shown = "no Host header" if host is None else f"the Host {host[:100]!r}"
    return (
        f"kvpage serve refused {shown}: it answers only http://127.0.0.1:{port}/, http://localhost:{port}/ "
        f"and http://[::1]:{port}/, so that no other web site can read the preview (DNS rebinding).\n"
    ).encode()


@dataclass(frozen=True)
class Status:
    """What the open pages need to know: the build being served, and whether the last one failed."""

    build: str
    """The id of the site being served ("" before the first good build); a page reloads when it changes."""
    ok: bool
    errors: tuple[str, ...] = ()
    kind: str = "page"
    """What changed since ``previous``: "model" (only kvpage/: the open page swaps in the new wheel and
    recomputes its labs), "css" (only stylesheets: it reloads them), or "page" (it reloads)."""
    previous: str = ""
    """The build this one follows: a page showing another (it missed one) reloads, whatever ``kind``."""

    def event(self) -> bytes:
        data = json.dumps(
            {
                "build": self.build,
                "ok": self.ok,
                "errors": list(self.errors),
                "kind": self.kind,
                "previous": self.previous,
            }
        )
        return f"event: status\ndata: {data}\n\n".encode()


class Hub:
    """The current status, and a way for event streams to wait for the next one."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.status = Status("", False, ("building…",))
        self.version = 0
        self.closed = False

    def publish(self, status: Status) -> None:
        with self.changed:
            self.status = status
            self.version += 1
            self.changed.notify_all()

    def wait(self, seen: int, timeout: float) -> tuple[int, Status]:
        """The status once its version differs from ``seen`` (or after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: self.version != seen or self.closed, timeout)
            return self.version, self.status

    def close(self) -> None:
        with self.changed:
            self.closed = True
            self.changed.notify_all()


def reload_tag(build: str) -> bytes:
    return f'<script src="{PREFIX}reload.js" data-build="{html.escape(build)}" defer></script>\n'.encode()


def inject(page: bytes, build: str) -> bytes:
    """``page`` with the reload script added at the end of its head (or at its end, if it has none).

    The tag is ``<script src="/__kvpage/reload.js" data-build=ID defer>``. That script
    (``sitegen/serve/livereload.js``) listens to ``/__kvpage/events`` (Server-Sent Events, fed by the
    :class:`Hub`) and reloads the page when a newer build is ready, or shows the errors of a failed
    one over the page. The page's Content-Security-Policy allows both (a script and a connection to
    'self'), and nothing of this is in the built site or the zip.
    """
    tag = reload_tag(build)
    at = page.lower().find(b"</head>")
    return page + tag if at < 0 else page[:at] + tag + page[at:]


def error_page(status: Status) -> bytes:
    """What serve shows before the first build succeeds: the errors, and the reload script."""
    errors = html.escape("\n".join(status.errors) or "building…")
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>kvpage serve: no site yet</title>\n'
        f"{reload_tag(status.build).decode()}</head>\n<body>\n<h1>The book has not built yet</h1>\n"
        f"<pre>{errors}</pre>\n<p>Fix the files named above; this page reloads when the build succeeds.</p>\n"
        "</body>\n</html>\n"
    ).encode()


def not_found_page(name: str, status: Status) -> bytes:
    """A page the book no longer has (a slug changed, say): a way back, and the reload script."""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>kvpage serve: no such page</title>\n'
        f"{reload_tag(status.build).decode()}</head>\n<body>\n<h1>This build has no page {html.escape(name)}</h1>\n"
        '<p>Go to <a href="/">the list of chapters</a>. This page reloads with every build.</p>\n</body>\n</html>\n'
    ).encode()


def site_name(path: str) -> str | None:
    """The file of the site a URL path names (``index.html`` for a folder), or None if it leaves the site."""
    name = posixpath.normpath(path).lstrip("/") if path != "/" else ""
    if path.endswith("/"):
        name = posixpath.join(name, "index.html") if name else "index.html"
    return None if name.startswith("..") or "\\" in name else name


class ETags:
    """Entity tags of served files, recomputed only when a file's size or time changes."""

    def __init__(self) -> None:
        self.known: dict[Path, tuple[int, int, str]] = {}
        self.lock = threading.Lock()

    def of(self, path: Path, data: bytes) -> str:
        stat = path.stat()
        with self.lock:
            known = self.known.get(path)
            if known is None or known[:2] != (stat.st_size, stat.st_mtime_ns):
                known = (stat.st_size, stat.st_mtime_ns, hashlib.sha256(data).hexdigest()[:32])
                self.known[path] = known
        return f'"{known[2]}"'


class SiteHandler(http.server.BaseHTTPRequestHandler):
    """Serves ``folder`` with the reload script and event stream added (:func:`make_handler` sets them).

    Files are sent with ``Cache-Control: no-cache`` and an ETag, so a reload fetches only what
    changed, and never a stale page; the runtime's content-addressed files (``sitegen/runtime/names.py``)
    are kept for a year, as a new build of the model is a new name.

    Every request gets an HTTP status, never a dropped connection or a traceback: a request line that
    is not HTTP is the standard library's 400 (or 414, 431, 501, 505), a blank one 400 (where the
    library closes without a word), one that says HTTP/0.9 is answered with a status line all the
    same (the library leaves it out), a request whose head stops coming for ``REQUEST_SECONDS`` 408,
    two ``Host`` headers 400, a target that is not a path, has bad percent-encoding, is not UTF-8 or
    holds a control character (``%00``) is 400, and a path no file has (too long for the file
    system, say) is 404. A connection that never begins a request (a browser's preconnect, an idle
    socket) is closed after ``REQUEST_SECONDS`` without one.
    """

    server_version = "kvpage-serve"
    default_request_version = "HTTP/1.0"
    """So that the answer to a request line that is not HTTP starts with a status line (0.9 has none)."""
    timeout = REQUEST_SECONDS
    """The connection's timeout while a request is awaited (socketserver sets it); SEND_SECONDS after."""
    folder: ClassVar[Path]
    hub: ClassVar[Hub]
    etags: ClassVar[ETags]
    client: ClassVar[bytes]
    """The reload script, read once."""

    def log_message(self, format: str, *args: Any) -> None:
        pass  # serve's terminal shows builds and errors, not every request

    def handle_one_request(self) -> None:
        """The standard library's, except that a request that began always gets a status.

        The library closes the connection without a word on a blank request line, or when the head
        stops coming (a timeout); here those are 400 and 408. A connection on which no request
        begins in time is closed quietly (it asked nothing), and a browser that goes away while it
        is being answered is no error, so the answer stops without a traceback.
        """
        self.close_connection = True  # serve answers one request a connection (HTTP/1.0)
        if not self.began():
            return
        try:
            answering = self.read_head()
        except TimeoutError:
            with contextlib.suppress(OSError):  # the client may be gone by now
                self.send_error(408, "The request's head did not arrive in time")
            return
        except ConnectionError:
            return
        if not answering:
            return
        self.connection.settimeout(SEND_SECONDS)
        try:
            getattr(self, f"do_{self.command}")()
            self.wfile.flush()
        except (TimeoutError, ConnectionError):
            return

    def began(self) -> bool:
        """Whether a request begins on the connection within ``timeout`` (its first byte is left there:
        this is the connection's only request, so nothing of it is in ``rfile``'s buffer yet)."""
        try:
            return bool(self.connection.recv(1, socket.MSG_PEEK))
        except OSError:  # timed out, or reset: the connection asked nothing
            return False

    def read_head(self) -> bool:
        """The request line and headers read and parsed; False once an error status was sent."""
        self.command, self.request_version, self.requestline = "", self.default_request_version, ""
        self.raw_requestline = self.rfile.readline(65537)
        if len(self.raw_requestline) > 65536:
            self.send_error(414)
            return False
        if not self.parse_request():
            return False
        if not hasattr(self, f"do_{self.command}"):
            self.send_error(501, f"Unsupported method ({self.command!r})")
            return False
        return True

    def parse_request(self) -> bool:
        """The standard library's, with a status for the one request line it answers with none."""
        if super().parse_request():
            return True
        if not self.requestline.split():  # blank (its words as the library splits them): no answer sent
            self.send_error(400, "Empty request line")
        return False

    def send_response_only(self, code: int, message: str | None = None) -> None:
        """The standard library's, never as HTTP/0.9: a request line that ends in ``HTTP/0.9`` (and,
        with it, any error the library finds in it) would be answered without a status line."""
        if self.request_version == "HTTP/0.9":
            self.request_version = self.default_request_version
        super().send_response_only(code, message)

    def end_headers(self) -> None:
        """Every answer, errors and 304 included, for serve's own pages only.

        A page of another origin (a file:// page, or another server on 127.0.0.1) sends the right
        ``Host``, and may still embed what serve sends, as a script, say, which runs in that page
        (``search/index.js`` would hand it the book's text): ``Cross-Origin-Resource-Policy:
        same-origin`` has the browser give it to serve's own pages only. Reading one with ``fetch``
        is already refused, as serve sends no CORS header.
        """
        self.send_header("Cross-Origin-Resource-Policy", CORP)
        super().end_headers()

    def do_HEAD(self) -> None:
        self.respond(head=True)

    def do_GET(self) -> None:
        self.respond(head=False)

    def send(self, code: int, body: bytes, content_type: str, head: bool, **headers: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def respond(self, head: bool) -> None:
        """serve's own two URLs, else a file of the site (or why there is none)."""
        host, port = self.headers.get("Host"), int(self.connection.getsockname()[1])
        if len(self.headers.get_all("Host", ())) > 1:
            self.send(400, b"bad request: more than one Host header\n", PLAIN, head)
            return
        if not host_allowed(host, port):
            self.send(403, host_refusal(host, port), PLAIN, head)
            return
        try:
            path = request_path(self.path)
        except BadRequest as problem:
            self.send(400, f"bad request: {problem}\n".encode(), PLAIN, head)
            return
        status = self.hub.status
        if path == f"{PREFIX}reload.js":
            self.send(200, self.client, TYPES[".js"], head, Cache_Control="no-store")
        elif path == f"{PREFIX}events":
            self.stream_events()
        elif (name := site_name(path)) is None:
            self.send(404, NOT_FOUND, PLAIN, head)
        elif not status.build:
            self.send(503, error_page(status), TYPES[".html"], head, Cache_Control="no-store")
        else:
            self.send_file(name, status, head)

    def send_file(self, name: str, status: Status, head: bool) -> None:
        """A file of the built site: a page with the reload script, any other file with its ETag."""
        file = self.folder / name
        try:
            data = file.read_bytes()
        except OSError:  # none, a folder, or a name too long for the file system
            self.send_missing(name, status, head)
            return
        content_type = TYPES.get(file.suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
        if file.suffix == ".html":
            self.send(200, inject(data, status.build), content_type, head, Cache_Control="no-store")
        else:
            self.send_revalidated(file, name, data, content_type, head)

    def send_missing(self, name: str, status: Status, head: bool) -> None:
        """404: for a page, one that links the index and reloads with the next build."""
        if name.endswith(".html"):
            self.send(404, not_found_page(name, status), TYPES[".html"], head, Cache_Control="no-store")
        else:
            self.send(404, NOT_FOUND, PLAIN, head)

    def send_revalidated(self, file: Path, name: str, data: bytes, content_type: str, head: bool) -> None:
        """A file with its ETag and caching, or 304 when the browser already has it."""
        etag = self.etags.of(file, data)
        caching = cache_control(name)
        if self.headers.get("If-None-Match") != etag:
            self.send(200, data, content_type, head, Cache_Control=caching, ETag=etag)
            return
        self.send_response(304)
        self.send_header("ETag", etag)
        self.send_header("Cache-Control", caching)
        self.end_headers()

    def stream_events(self) -> None:
        """Server-Sent Events: the status now, then every new one, with a keep-alive comment in between."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        seen = -1
        try:
            while not self.hub.closed:
                version, status = self.hub.wait(seen, KEEPALIVE_SECONDS)
                if self.hub.closed:
                    return
                self.wfile.write(status.event() if version != seen else b": keep-alive\n\n")
                self.wfile.flush()
                seen = version
        except OSError:  # the page went away, or stopped reading for SEND_SECONDS
            return


def make_handler(folder: Path, hub: Hub) -> type[SiteHandler]:
    """A request handler serving ``folder`` with the reload script and event stream added."""
    attributes = {"folder": folder, "hub": hub, "etags": ETags(), "client": CLIENT.read_bytes()}
    return type("Handler", (SiteHandler,), attributes)


class Server(http.server.ThreadingHTTPServer):
    """A thread for each connection, and a backlog for bursts.

    Many connections at once are all answered: each has a thread of its own (so a slow or idle one
    holds up no other, and the timeouts free its thread), and the listening socket's backlog is
    ``BACKLOG``, not the standard library's 5, which made the kernel drop most of 500 simultaneous
    connections' first packets: they were reset, or waited 30 s and more for retransmissions.
    """

    daemon_threads = True
    request_queue_size = BACKLOG


def make_server(port: int, folder: Path, hub: Hub) -> Server:
    return Server((HOST, port), make_handler(folder, hub))
