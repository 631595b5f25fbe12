"""serve's warm builder: a child process (``build.py worker``) that renders the site on request.

Staying alive keeps imports, templates and the runtime stage warm, so a prose edit rebuilds in a
fraction of a second; a change to Python code restarts it. :class:`Builder` is serve's side of the
protocol, :func:`worker_loop` the child's.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import asdict, dataclass, field
from typing import IO

from sitegen.limited_run import line_child


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

    Each ``build`` line on its stdin renders the site into serve's private folder and answers one
    JSON line (a :class:`Report`). Staying alive keeps its imports, templates and the runtime stage
    (see :mod:`sitegen.runtime.cache`) warm, so a prose edit rebuilds in a fraction of a second. A
    change to Python code (``kvpage/``, ``sitegen/``, ``build.py``, ``pyproject.toml``) restarts it
    instead: the new process imports the new model, whose numbers the build prints into the page, and
    builds the new wheel, which the page then loads. This class is serve's side of that protocol,
    :func:`worker_loop` the child's.

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
        return line_child(command)

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
