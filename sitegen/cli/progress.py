"""Progress lines for the build's long steps, so a slow step never looks like a hang.

The long steps are the in-browser runtime (Pyodide checked against its pins, our wheel built), the zip and
the single file. Each prints what it is doing when it starts and how long it took when it ends. Library
callers (the tests) get :data:`SILENT`; the command line passes a Progress on stderr.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class Progress:
    """Writes ``step… 0.9 s`` lines to ``stream``; with no stream, writes nothing."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream

    def note(self, text: str) -> None:
        """A line of its own, such as "runtime: reused from the cache"."""
        if self.stream is not None:
            print(text, file=self.stream, flush=True)

    @contextmanager
    def step(self, what: str) -> Iterator[None]:
        """Announce ``what``, run the block, then say how long it took (or that it failed)."""
        if self.stream is None:
            yield
            return
        print(f"{what}…", end="", file=self.stream, flush=True)
        started = time.perf_counter()
        try:
            yield
        except BaseException:
            print(" failed", file=self.stream, flush=True)
            raise
        print(f" {time.perf_counter() - started:.1f} s", file=self.stream, flush=True)


SILENT = Progress()
