"""A tool the build runs (Node for Temml and the snapshot, esbuild) under a time limit, or keeps alive a
line at a time (serve's). One place turns a tool that will not start, or a run that does not finish,
into the ``BuildError`` that stops the build (decision 0061); the model's own calls have theirs in
:mod:`sitegen.labs.calls`.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from sitegen.errors import BuildError


def run_limited(
    command: Sequence[str],
    seconds: float,
    doing: str,
    missing: str,
    *,
    text_in: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end with ``text_in`` on its stdin, its output captured; BuildError saying
    ``missing`` (with the system's reason) if it cannot start, or that ``doing`` did not finish in
    ``seconds`` (it is killed). Its exit status is the caller's to read."""
    try:
        return subprocess.run(
            list(command), input=text_in, env=env, cwd=cwd, capture_output=True, text=True, check=False, timeout=seconds
        )
    except OSError as error:
        reason = "not found" if isinstance(error, FileNotFoundError) else str(error)
        raise BuildError([f"{command[0]}: {reason}; {missing}"]) from None
    except subprocess.TimeoutExpired:
        raise BuildError([f"{doing} did not finish in {seconds:g} s and was stopped"]) from None


def line_child(command: Sequence[str]) -> subprocess.Popen[str]:
    """A child kept alive and spoken to a line at a time (serve's builder, the search indexer): its
    stdin, stdout and stderr piped as UTF-8 text, line-buffered, so a request's line goes out whole."""
    return subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        bufsize=1,
    )
