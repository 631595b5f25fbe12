"""``build.py serve``: the book on 127.0.0.1, rebuilt as it changes, the open page reloaded.

Three parts, standard library only:

- **A warm builder.** A child process (``build.py worker``) runs the pipeline:
  each ``build`` line on its stdin renders the site into a private folder and
  answers one JSON line. Staying alive keeps its imports, templates and the
  runtime stage (see :mod:`sitegen.runtime_cache`) warm, so a prose edit
  rebuilds in a fraction of a second. A change to Python code (``kvpage/``,
  ``sitegen/``, ``build.py``, ``pyproject.toml``) restarts it instead: the new
  process imports the new model, whose numbers the build prints into the page,
  and builds the new wheel, which the page then loads.
- **A watcher.** It polls the sizes and modification times of the watched
  files ten times a second; a book has a few dozen files, so that costs nothing
  and needs no platform-specific notification API.
- **A server.** It serves the builder's folder and adds one tag to each HTML
  page it sends: ``<script src="/__kvpage/reload.js" data-build=ID defer>``.
  That script (``sitegen/livereload.js``) listens to ``/__kvpage/events``
  (Server-Sent Events) and reloads the page when a newer build is ready, or
  shows the errors of a failed one over the page. The page's
  Content-Security-Policy allows both (a script and a connection to 'self'),
  and nothing of this is in the built site or the zip. Files are sent with
  ``Cache-Control: no-cache`` and an ETag, so a reload fetches only what changed,
  and never a stale page; the runtime's content-addressed files
  (``sitegen/runtime_names.py``) are kept for a year, as a new build of the model
  is a new name.
"""

from __future__ import annotations

import hashlib
import html
import http.server
import json
import mimetypes
import posixpath
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import redirect_stdout
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from sitegen.runtime_names import cache_control

HOST = "127.0.0.1"
POLL_SECONDS = 0.1
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
IGNORED_SUFFIXES = (".swp", ".swx", ".tmp", "~", ".pyc")


@dataclass(frozen=True)
class Config:
    """What to serve and watch, and how to start the builder."""

    port: int
    worker: list[str]
    """The builder's command line, without ``--out`` (serve adds its private folder)."""
    book: list[Path]
    """Folders whose changes need a rebuild: the content and the templates."""
    code: list[Path]
    """Python code whose changes need a fresh builder process: the model, the build."""
    root: Path
    """The project, to show changed paths relative to it."""
    model: Path | None = None
    """The model (``kvpage/``): an edit of it alone builds only the wheel, which the open page swaps in."""
    preload: tuple[str, ...] = ()
    """Modules the build imports that no edit changes (third-party ones): a standby builder imports
    them ahead of time, so a code edit's fresh builder starts warm (``Builder``)."""


@dataclass
class Report:
    """One build's outcome, as the builder sends it to serve."""

    ok: bool
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    runtime: str = ""
    """The cache key of the runtime whose snapshot the site holds ("" if it has none): serve passes it
    back with the next build after a model edit, which then builds only the wheel."""


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
    """``page`` with the reload script added at the end of its head (or at its end, if it has none)."""
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


def make_handler(folder: Path, hub: Hub) -> type[http.server.BaseHTTPRequestHandler]:
    """A request handler serving ``folder`` with the reload script and event stream added."""
    etags = ETags()
    client = CLIENT.read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "kvpage-serve"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # serve's terminal shows builds and errors, not every request

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
            path = unquote(urlsplit(self.path).path)
            if path == f"{PREFIX}reload.js":
                self.send(200, client, TYPES[".js"], head, Cache_Control="no-store")
                return
            if path == f"{PREFIX}events":
                self.stream_events()
                return
            status = hub.status
            name = posixpath.normpath(path).lstrip("/") if path != "/" else ""
            if path.endswith("/"):
                name = posixpath.join(name, "index.html") if name else "index.html"
            if name.startswith("..") or "\\" in name:
                self.send(404, b"not found\n", "text/plain; charset=utf-8", head)
                return
            if not status.build:
                self.send(503, error_page(status), TYPES[".html"], head, Cache_Control="no-store")
                return
            file = folder / name
            try:
                data = file.read_bytes()
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                if name.endswith(".html"):
                    self.send(404, not_found_page(name, status), TYPES[".html"], head, Cache_Control="no-store")
                else:
                    self.send(404, b"not found\n", "text/plain; charset=utf-8", head)
                return
            suffix = file.suffix
            content_type = TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
            if suffix == ".html":
                self.send(200, inject(data, status.build), content_type, head, Cache_Control="no-store")
                return
            etag = etags.of(file, data)
            caching = cache_control(name)
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.send_header("Cache-Control", caching)
                self.end_headers()
                return
            self.send(200, data, content_type, head, Cache_Control=caching, ETag=etag)

        def stream_events(self) -> None:
            """Server-Sent Events: the status now, then every new one, with a keep-alive comment in between."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            seen = -1
            try:
                while not hub.closed:
                    version, status = hub.wait(seen, KEEPALIVE_SECONDS)
                    if hub.closed:
                        return
                    self.wfile.write(status.event() if version != seen else b": keep-alive\n\n")
                    self.wfile.flush()
                    seen = version
            except (BrokenPipeError, ConnectionResetError):
                return

    return Handler


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


def make_server(port: int, folder: Path, hub: Hub) -> Server:
    return Server((HOST, port), make_handler(folder, hub))


STANDBY = """\
import itertools, os, runpy, sys
sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[2]))  # as "python build.py" has it
for name in sys.argv[1].split(","):
    try:
        __import__(name)
    except ImportError:
        pass
first = sys.stdin.readline()
if first:
    sys.stdin = itertools.chain([first], sys.stdin)
    sys.argv = sys.argv[2:]
    runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""A standby builder: the modules no edit changes imported, then, at its first request, the build
itself (``build.py worker``), so that it imports the code as it is at that request, not as it was."""


class Builder:
    """The child process that builds: started on demand, restarted when the code changes.

    With ``preload``, a standby waits beside it (``STANDBY``: those modules imported, the code not
    yet), and takes over at a restart; a new standby is started behind it. So a model edit's build
    does not wait for Python to import Jinja2, markdown-it, NumPy, pydantic, ... again.
    """

    def __init__(self, command: list[str], preload: tuple[str, ...] = ()) -> None:
        self.command = command
        self.preload = preload
        self.process: subprocess.Popen[str] | None = None
        self.standby: subprocess.Popen[str] | None = None
        self.reader = threading.Thread()
        self.tail: deque[str] = deque(maxlen=40)
        """The last lines the child wrote to stderr, for the overlay when it dies."""

    def launch(self) -> subprocess.Popen[str]:
        command = self.command
        if self.preload:
            command = [command[0], "-c", STANDBY, ",".join(self.preload), *command[1:]]
        return subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def start(self) -> subprocess.Popen[str]:
        standby, self.standby = self.standby, None
        process = standby if standby is not None and standby.poll() is None else self.launch()
        if self.preload:
            self.standby = self.launch()
        self.tail.clear()
        self.reader = threading.Thread(target=self.forward, args=(process.stderr,), daemon=True)
        self.reader.start()
        self.process = process
        return process

    def forward(self, stream: IO[str] | None) -> None:
        """Copy the child's stderr (its progress lines) to ours, keeping the last lines."""
        for line in stream or ():
            self.tail.append(line.rstrip("\n"))
            sys.stderr.write(line)
            sys.stderr.flush()

    def build(self, hot_base: str = "") -> Report:
        """One build; ``hot_base`` says only the model changed since the build of that runtime."""
        process = self.process if self.process is not None and self.process.poll() is None else self.start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(f"build {hot_base}".rstrip() + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if line:
            return Report(**json.loads(line))
        code = process.wait()
        self.reader.join(timeout=5)  # its last words, before they are quoted
        self.process = None
        return Report(ok=False, errors=[f"the build process stopped (exit status {code}):", *self.tail])

    def stop(self, standby: bool = False) -> None:
        """End the builder (its build under way answers first); with ``standby``, the standby too."""
        if standby and self.standby is not None:
            spare, self.standby = self.standby, None
            spare.kill()
            spare.wait()
        process, self.process = self.process, None
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def run_worker(rebuild: Callable[[str], Report]) -> int:
    """The builder process's main: Ctrl-C in serve's terminal reaches it too, but serve stops it
    by closing its stdin, after the build under way has answered."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return worker_loop(rebuild)


def worker_loop(
    rebuild: Callable[[str], Report], requests: IO[str] | None = None, replies: IO[str] | None = None
) -> int:
    """The builder's side: one JSON report on ``replies`` per line on ``requests``, until it closes.

    A line is ``build``, or ``build KEY`` after a model edit (``Builder.build``'s ``hot_base``).
    Anything the build prints goes to stderr, so that stdout carries only the reports.
    """
    requests = requests or sys.stdin
    replies = replies or sys.stdout
    for line in requests:
        with redirect_stdout(sys.stderr):
            try:
                report = rebuild(line.removeprefix("build").strip())
            except Exception:  # noqa: BLE001 - a bug in the build must reach the page, not kill serve
                report = Report(ok=False, errors=[traceback.format_exc()])
        replies.write(json.dumps(asdict(report)) + "\n")
        replies.flush()
    return 0


def ignored(path: Path) -> bool:
    """Editor droppings and bytecode: changes there are not changes to the book."""
    return "__pycache__" in path.parts or path.name.startswith((".", "#")) or path.name.endswith(IGNORED_SUFFIXES)


def snapshot(paths: Iterable[Path]) -> dict[Path, tuple[int, int]]:
    """Size and modification time of every file under ``paths``."""
    seen: dict[Path, tuple[int, int]] = {}
    for top in paths:
        files = [top] if top.is_file() else (top.rglob("*") if top.is_dir() else [])
        for path in files:
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            if path.is_file() and not ignored(path):
                seen[path] = (stat.st_size, stat.st_mtime_ns)
    return seen


class Watcher:
    """Which watched files were added, removed or changed since the last look."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.paths = list(paths)
        self.last = snapshot(self.paths)

    def changes(self) -> list[Path]:
        now = snapshot(self.paths)
        changed = sorted(path for path in now.keys() | self.last.keys() if now.get(path) != self.last.get(path))
        self.last = now
        return changed


def shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def change_kind(changed: Iterable[Path], model: Path | None) -> str:
    """How the open page takes these changes (``Status.kind``): "model", "css" or "page"."""
    paths = list(changed)
    if model is not None and paths and all(path.is_relative_to(model) for path in paths):
        return "model"
    if paths and all(path.suffix == ".css" for path in paths):
        return "css"
    return "page"


def serve(config: Config) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM); returns the exit status."""
    folder = Path(tempfile.mkdtemp(prefix="kvpage-serve-"))
    out = folder / "site"
    hub = Hub()
    session = secrets.token_hex(4)
    builds = 0
    builder = Builder([*config.worker, "--out", str(out)], config.preload)
    watcher = Watcher([*config.book, *config.code])
    try:
        server = make_server(config.port, out, hub)
    except OSError as error:
        print(f"serve: cannot listen on {HOST}:{config.port}: {error.strerror}", file=sys.stderr)
        shutil.rmtree(folder, ignore_errors=True)
        return 1
    url = f"http://{HOST}:{server.server_address[1]}/"

    def stop(_signal: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)

    runtime = ""  # the snapshot the last good build holds
    pending = ""  # the kind of the changes since the last good build (a failed one's too)

    def rebuild(reason: str, kind: str = "page") -> None:
        nonlocal builds, runtime, pending
        started = time.perf_counter()
        pending = kind if pending in ("", kind) else "page"
        kind = pending
        report = builder.build(runtime if kind == "model" else "")
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if report.ok:
            builds += 1
            runtime, pending = report.runtime, ""
            hub.publish(Status(f"{session}-{builds}", True, kind=kind, previous=hub.status.build))
            print(f"{reason}: built in {time.perf_counter() - started:.2f} s", file=sys.stderr, flush=True)
        else:
            hub.publish(Status(hub.status.build, False, tuple(report.errors)))
            for problem in report.errors:
                print(f"error: {problem}", file=sys.stderr)
            print(f"{reason}: build failed; still serving the last good build", file=sys.stderr, flush=True)

    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        rebuild("first build")  # the page is ready before its address is printed
        print(f"serving {url} (Ctrl-C stops)", flush=True)
        while True:
            time.sleep(POLL_SECONDS)
            changed = watcher.changes()
            if not changed:
                continue
            if any(path.is_relative_to(code) or path == code for path in changed for code in config.code):
                builder.stop()
            names = ", ".join(shown(path, config.root) for path in changed[:3]) + (" …" if len(changed) > 3 else "")
            rebuild(f"{names} changed", change_kind(changed, config.model))
    except KeyboardInterrupt:
        print("serve: stopped", file=sys.stderr)
    finally:
        hub.close()
        server.shutdown()
        server.server_close()
        builder.stop(standby=True)
        shutil.rmtree(folder, ignore_errors=True)
    return 0
