"""``build.py serve``: the book on 127.0.0.1, rebuilt as it changes, the open page reloaded.

Three parts, standard library only, each in its own module, so that each reads on its own: a warm
builder, a watcher and a server; this one glues them (:func:`serve` says what each does).
"""

from __future__ import annotations

import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from sitegen.serve.builder import Builder
from sitegen.serve.http_server import HOST, Hub, Server, Status, make_server
from sitegen.serve.watcher import Watcher, change_kind, changed_names, touches_code

POLL_SECONDS = 0.1


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


class Rebuilds:
    """Builds on request, each outcome told to the open pages (the hub) and to serve's terminal."""

    def __init__(self, builder: Builder, hub: Hub) -> None:
        self.builder = builder
        self.hub = hub
        self.session = secrets.token_hex(4)
        """Tells this serve's build ids from an earlier one's, which a page left open may show."""
        self.builds = 0
        self.runtime = ""
        """The snapshot the last good build holds."""
        self.pending = ""
        """The kind of the changes since the last good build (a failed one's too)."""
        self.warned: frozenset[str] = frozenset()
        """The warnings the last build printed: the next prints only new ones, and counts the rest."""

    def rebuild(self, reason: str, kind: str = "page") -> None:
        started = time.perf_counter()
        self.pending = kind if self.pending in ("", kind) else "page"
        kind = self.pending
        report = self.builder.build(self.runtime if kind == "model" else "")
        self.tell_warnings(report.warnings)
        if report.ok:
            self.builds += 1
            self.runtime, self.pending = report.runtime, ""
            build = f"{self.session}-{self.builds}"
            self.hub.publish(Status(build, True, kind=kind, previous=self.hub.status.build))
            print(f"{reason}: built in {time.perf_counter() - started:.2f} s", file=sys.stderr, flush=True)
        else:
            self.hub.publish(Status(self.hub.status.build, False, tuple(report.errors)))
            for problem in report.errors:
                print(f"error: {problem}", file=sys.stderr)
            print(f"{reason}: build failed; still serving the last good build", file=sys.stderr, flush=True)

    def tell_warnings(self, warnings: list[str]) -> None:
        """Each warning once, as it first appears: one every build repeats (a link to a chapter not
        written yet) would bury a new one under it, so those an earlier build printed are counted."""
        new = [warning for warning in warnings if warning not in self.warned]
        for warning in new:
            print(f"warning: {warning}", file=sys.stderr)
        kept = len(warnings) - len(new)
        if kept:
            print(f"{kept} warning{'s' if kept > 1 else ''} as in the last build, not repeated", file=sys.stderr)
        self.warned = frozenset(warnings)


def watch(config: Config, watcher: Watcher, rebuilds: Rebuilds) -> None:
    """Build on every change, restarting the builder first when its code changed; never returns."""
    while True:
        time.sleep(POLL_SECONDS)
        changed = watcher.changes()
        if not changed:
            continue
        if touches_code(changed, config.code):
            rebuilds.builder.stop()
        rebuilds.rebuild(f"{changed_names(changed, config.root)} changed", change_kind(changed, config.model))


def stop_on_sigterm(_signal: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def serve(config: Config) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM); returns the exit status.

    Three parts, standard library only, each in its own module; this glues them:

    - **A warm builder** (:mod:`sitegen.serve.builder`): a child process (``build.py worker``) that
      renders the site into a private folder on each request, and stays alive so a prose edit rebuilds
      in a fraction of a second; a change to Python code restarts it.
    - **A watcher** (:mod:`sitegen.serve.watcher`): it polls the sizes and modification times of the
      watched files ten times a second, and says how the open page takes a change.
    - **A server** (:mod:`sitegen.serve.http_server`): it serves the builder's folder, adds the live-reload
      script (``sitegen/serve/livereload.js``) to each page, and tells the open pages of each build over
      Server-Sent Events.
    """
    folder = Path(tempfile.mkdtemp(prefix="kvpage-serve-"))
    out = folder / "site"
    hub = Hub()
    builder = Builder([*config.worker, "--out", str(out)], config.preload)
    watcher = Watcher([*config.book, *config.code])  # before the first build: an edit during it counts
    try:
        server: Server = make_server(config.port, out, hub)
    except OSError as error:
        print(f"serve: cannot listen on {HOST}:{config.port}: {error.strerror}", file=sys.stderr)
        shutil.rmtree(folder, ignore_errors=True)
        return 1
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        rebuilds = Rebuilds(builder, hub)
        rebuilds.rebuild("first build")  # the page is ready before its address is printed
        print(f"serving http://{HOST}:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
        watch(config, watcher, rebuilds)
    except KeyboardInterrupt:
        print("serve: stopped", file=sys.stderr)
    finally:
        hub.close()
        server.shutdown()
        server.server_close()
        builder.stop(standby=True)
        shutil.rmtree(folder, ignore_errors=True)
    return 0
