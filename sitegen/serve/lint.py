"""serve's lint: ruff's findings on the model (``kvpage/``, a lab file among them), as warnings at ``path:line``.

A lab that built and served cleanly still failed ``make check`` minutes into the suite (issue 46), so
serve shows ruff's findings while the author writes; as warnings, since lint is the author's to fix
when they choose (:func:`model_lint`).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

FINDING = re.compile(r"(?P<path>[^:\n]+\.pyi?):(?P<line>\d+):\d+: (?P<what>.+)")
"""One line of ``ruff check --output-format=concise``: ``path:line:column: CODE message``."""
HUNK = re.compile(r"@@ -(?P<line>\d+)")
ADVICE = "make check fails on it; make fix mends what ruff marks [*]"
FORMAT = "not as ruff format writes it from here on (make check fails on it; make fix formats it)"
TIMEOUT = 20
"""Seconds ruff may take; past that serve goes on without its findings."""

_kept: dict[Path, tuple[tuple[tuple[str, int, int], ...], list[str]]] = {}


def model_lint(root: Path) -> list[str]:
    """ruff's findings on ``root/kvpage``, as ``path:line: message`` relative to ``root``; [] if none or no ruff.

    ``make check`` (and so ``make test``) runs ``ruff check`` and ``ruff format --check`` over the
    model; a lab that built and served cleanly still failed there, minutes into the suite (issue 46).
    serve shows the same findings while the author writes, as warnings: lint is the author's to fix
    when they choose (``make fix`` mends most of it), so a finding never fails a build or stops
    serve, and without ruff, or if it cannot run, there are simply none. The findings are kept while
    no model file changes, so a prose edit's rebuild pays one walk of the model's file dates, not ruff.
    """
    model = root / "kvpage"
    if not model.is_dir() or importlib.util.find_spec("ruff") is None:
        return []
    files = tuple(
        (path.relative_to(root).as_posix(), stat.st_mtime_ns, stat.st_size)
        for path in sorted(model.rglob("*.py"))
        for stat in (path.stat(),)
    )
    kept = _kept.get(root)
    if kept is not None and kept[0] == files:
        return kept[1]
    found = checked(root) + formatted(root)
    _kept[root] = (files, found)
    return found


def ruff(root: Path, *args: str) -> str:
    """ruff's standard output over the model, run from ``root`` so the project's own settings apply."""
    try:
        result = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "kvpage"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return result.stdout


def checked(root: Path) -> list[str]:
    """``ruff check``'s findings, each at its line."""
    output = ruff(root, "check", "--output-format=concise", "--no-fix", "--quiet")
    found = (FINDING.fullmatch(line) for line in output.splitlines())
    return [f"{m['path']}:{m['line']}: ruff {m['what']} ({ADVICE})" for m in found if m is not None]


def formatted(root: Path) -> list[str]:
    """Each file ``ruff format`` would change, at the first line it would change."""
    path = ""
    found: list[str] = []
    line = 0
    for text in ruff(root, "format", "--diff", "--quiet").splitlines():
        hunk = HUNK.match(text)
        if text.startswith("--- "):
            path = text[4:].strip()
        elif text.startswith("+++ "):
            continue
        elif hunk is not None:
            line = int(hunk["line"])
        elif text.startswith(("-", "+")) and path:
            found.append(f"{path}:{line}: {FORMAT}")
            path = ""  # one finding a file: the first line to change
        elif text.startswith(" "):
            line += 1
    return found
