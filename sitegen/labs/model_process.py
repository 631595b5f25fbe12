"""The model's calls the build makes, in a child Python killed when one does not finish in time: in the
build's own process a model that loops would hang the build, and ``serve``, for good (Python cannot
stop a spinning thread). One child serves every call of a build (one start, about 50 ms); a killed
child's replacement takes the next call. A stopped call is worded once, in :mod:`sitegen.labs.calls`.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import IO

import kvpage
from kvpage.lab import LABS_PACKAGE

CHILD = """\
import os, sys
replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
from kvpage import bridge
for request in sys.stdin:
    replies.write(bridge.handle(request) + "\\n")
    replies.flush()
"""
"""The child's program: one reply line to each request line, until its stdin closes. It imports the same
``kvpage`` the build imported (its folder goes on ``PYTHONPATH``), and writes its replies to a copy of its stdout
taken before anything else runs: a ``print`` in the model goes to stderr, never into the replies."""
MODEL_HOME = Path(kvpage.__file__).resolve().parent.parent
"""The folder the build's ``kvpage`` was imported from: the child imports the same one."""


class CallTimedOut(Exception):
    """A call that did not answer within the time limit (its process was killed)."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"did not finish in {seconds:g} s")
        self.seconds = seconds


class ModelStopped(Exception):
    """The child ended without answering (it could not import the model, say)."""


class ModelProcess:
    """``kvpage.bridge.handle`` in a child Python, each call under ``timeout`` seconds; a context manager."""

    def __init__(self, timeout: float, home: Path = MODEL_HOME) -> None:
        self.timeout = timeout
        self.home = home
        self.process: subprocess.Popen[str] | None = None
        self.replies: queue.Queue[str | None] = queue.Queue()

    def __enter__(self) -> ModelProcess:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def start(self) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": str(self.home), "PYTHONDONTWRITEBYTECODE": "1"}
        process = subprocess.Popen(
            [sys.executable, "-c", CHILD],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=self.home,
            env=env,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self.replies = queue.Queue()
        threading.Thread(target=read_lines, args=(process.stdout, self.replies), daemon=True).start()
        self.process = process
        return process

    def handle(self, request: str) -> str:
        """The bridge's reply to ``request``; CallTimedOut past the limit, ModelStopped if the child died."""
        process = self.process if self.process is not None and self.process.poll() is None else self.start()
        assert process.stdin is not None
        started = time.monotonic()
        try:
            process.stdin.write(request.replace("\n", " ") + "\n")
            process.stdin.flush()
            reply = self.replies.get(timeout=self.timeout)
        except queue.Empty:
            self.kill()
            raise CallTimedOut(self.timeout) from None
        except OSError:
            reply = None
        if reply is None:
            self.kill()
            raise ModelStopped(f"the model's process stopped after {time.monotonic() - started:.1f} s")
        return reply

    def kill(self) -> None:
        """End the child at once. What is still buffered for its stdin is for nobody: closing that
        stream may raise BrokenPipeError (a child that died while a request was being written)."""
        process, self.process = self.process, None
        if process is not None:
            process.kill()
            process.wait()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()

    def close(self) -> None:
        """End the child: its stdin closed, so it returns; killed if it does not at once."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def read_lines(stream: IO[str] | None, into: queue.Queue[str | None]) -> None:
    """Every line of ``stream`` onto ``into``, then None when it ends."""
    try:
        for line in stream or ():
            into.put(line.rstrip("\n"))
    except (OSError, ValueError):
        pass
    into.put(None)


IMPORTER = """\
import faulthandler, importlib, os, pkgutil, signal, sys
replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr
faulthandler.register(signal.SIGUSR1, file=replies)
replies.write(sys.argv[1] + "\\n")
replies.flush()
package = importlib.import_module(sys.argv[1])
for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
    replies.write(sys.argv[1] + "." + info.name + "\\n")
    replies.flush()
    try:
        importlib.import_module(sys.argv[1] + "." + info.name)
    except BaseException:
        pass
replies.write("\\n")
replies.flush()
"""
"""Names the package its first argument names once it is up, then imports every lab's module of it,
naming each first, then writes an empty line. Sent SIGUSR1 (the limit is up), ``faulthandler`` writes
where the import is: its frames, innermost first. A module that fails to import is left to
:func:`sitegen.labs.discovery.model_failure`, which names its line."""
IMPORT_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
STARTUP_WAIT = 60.0
"""How long the child's Python may take to start before the model's import is limited (a guard, not a limit)."""
FRAMES_WAIT = 2.0
"""How long, past the limit, the child's frames may take to arrive before it is killed anyway."""


def slow_import(timeout: float, home: Path = MODEL_HOME) -> tuple[str, int] | None:
    """Where the model's import is when it has not finished in ``timeout`` seconds: (``kvpage/…py``, line),
    from the frames the child writes when told the limit is up, or the module it was importing at
    line 1. None if it finished (or failed: that is :func:`sitegen.labs.discovery.model_failure`'s to report)."""
    env = {**os.environ, "PYTHONPATH": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
    process = subprocess.Popen(
        [sys.executable, "-c", IMPORTER, LABS_PACKAGE],
        stdout=subprocess.PIPE,
        cwd=home,
        env=env,
        text=True,
        encoding="utf-8",
    )
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=read_lines, args=(process.stdout, lines), daemon=True).start()
    module, frames = LABS_PACKAGE, list[tuple[str, int]]()
    try:
        # The limit starts once the child is up and about to import the model (its first line): Python's
        # own start is not the model's, and on a busy machine it alone can take a second or more.
        if lines.get(timeout=STARTUP_WAIT) is None:
            return None  # the child ended before it began: not the model's import to blame
        deadline = time.monotonic() + timeout
        while (line := lines.get(timeout=max(deadline - time.monotonic(), 0.01))) is not None:
            if line == "":
                return None
            module = line
        return None  # the child ended without finishing: an import that failed, for model_failure
    except queue.Empty:
        process.send_signal(signal.SIGUSR1)
        with contextlib.suppress(queue.Empty):
            while (line := lines.get(timeout=FRAMES_WAIT)) is not None:
                found = IMPORT_FRAME.search(line)
                if found:
                    frames.append((found.group(1), int(found.group(2))))
                elif frames:
                    break  # the frames are written together: the first line after them ends them
        model = [(path, at) for path, at in frames if Path(path).resolve().is_relative_to(home / "kvpage")]
        if model:
            path, at = model[0]
            return Path(path).resolve().relative_to(home).as_posix(), at
        return "/".join(module.split(".")) + ".py", 1
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()
