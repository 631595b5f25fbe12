"""A model that cannot be imported, said as every other mistake is: at its ``path:line``
(``kvpage/labs/x.py:37:31: SyntaxError: ...``, its source line and a caret), not as thirty lines of the
build's traceback; a ContentError like every problem (decision 0061). Standard library only, and no
import of kvpage: ``build.py`` uses it when importing kvpage fails.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import NoReturn

from sitegen.errors import ContentError


def import_failure(error: BaseException, home: Path) -> ContentError | None:
    """``error``, raised while importing the model under ``home/kvpage``, at the model's line; None if it
    did not come from the model's files (a bug of the build itself keeps its traceback)."""
    model = (home / "kvpage").resolve()
    if isinstance(error, SyntaxError) and error.filename and in_folder(error.filename, model):
        shown = Path(error.filename).resolve().relative_to(home.resolve()).as_posix()
        # Python's own rendering: "  File …, line N", the source line, the caret, then "SyntaxError: msg".
        lines = traceback.format_exception_only(type(error), error)
        source = "".join(line for line in lines[1:-1] if not line.lstrip().startswith("File ")).rstrip("\n")
        message = f"{type(error).__name__}: {error.msg}" + (f"\n{source}" if source.strip() else "")
        return ContentError(shown, error.lineno or 0, message, error.offset or 0)
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if in_folder(frame.filename, model)]
    if not frames:
        return None
    frame = frames[-1]
    shown = Path(frame.filename).resolve().relative_to(home.resolve()).as_posix()
    what = "".join(traceback.format_exception_only(type(error), error)).strip()
    source = f"\n    {frame.line.strip()}" if frame.line else ""
    column = (frame.colno or 0) + 1 if frame.colno is not None else 0
    caret = ""
    if source and frame.colno is not None and frame.end_colno is not None and frame.line:
        indent = len(frame.line) - len(frame.line.lstrip())
        width = max(1, frame.end_colno - frame.colno) if frame.end_lineno == frame.lineno else 1
        caret = "\n    " + " " * (frame.colno - indent) + "^" * width
    return ContentError(shown, frame.lineno or 0, f"{what}{source}{caret}", column)


def exit_if_model_failed(error: BaseException, home: Path) -> NoReturn:
    """Print ``error`` as the build prints errors and exit with status 1, if it is the model's; else raise it.

    For ``build.py`` itself, whose imports import kvpage: there is no build to report it yet.
    """
    found = import_failure(error, home)
    if found is None:
        raise error
    print(f"error: {found}", file=sys.stderr)
    print("build failed: 1 error(s); nothing was written", file=sys.stderr)
    sys.exit(1)


def in_folder(file: str, folder: Path) -> bool:
    try:
        return Path(file).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False
