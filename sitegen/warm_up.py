"""The labs' warm-up in the build-time Python, reported as ``path:line`` errors.

The snapshot (``python_snapshot.mjs``) imports what the model imports and calls
every action of every lab (``kvpage.catalog.warm_up``) in the same Pyodide the
page runs, before it saves Python's memory; the check restores that memory the
way the page does and calls them all again. What fails there would fail in the
reader's browser, so it fails the build, at the lab's declaration (``LAB = ...``
in its module) or at the import's line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from kvpage.lab import Lab
from sitegen.model_imports import Import, module_file

LAB_LINE = re.compile(r"^LAB\b", re.MULTILINE)
FRAME = re.compile(r'File "([^"]+\.py)", line (\d+)')


def declared_at(project: Path, lab: Lab) -> tuple[str, int]:
    """(``kvpage/labs/decode.py``, 110): where ``lab``'s ``LAB`` is assigned (line 1 if it cannot be found)."""
    shown = module_file(lab.module)
    path = project / shown
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return shown, 1
    match = LAB_LINE.search(text)
    return shown, text.count("\n", 0, match.start()) + 1 if match else 1


def raised_at(traceback: str) -> str:
    """The innermost model frame of a traceback from the wheel, as ``kvpage/…py:LINE`` ("" if none)."""
    frames = [(path, line) for path, line in FRAME.findall(traceback) if "/kvpage/" in path]
    if not frames:
        return ""
    path, line = frames[-1]
    return f"{path[path.rindex('/kvpage/') + 1 :]}:{line}"


def shown_args(args: object) -> str:
    """A call's arguments as JSON for a message, cut to 120 characters."""
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def warm_up_errors(failures: Sequence[Mapping[str, object]], labs: Mapping[str, Lab], project: Path) -> list[str]:
    """One message per failed warm-up call, at the lab's declaration."""
    errors = []
    for failure in failures:
        name = str(failure["lab"])
        where = ":".join(map(str, declared_at(project, labs[name]))) if name in labs else "kvpage/labs"
        args = shown_args(failure["args"])
        raised = raised_at(str(failure.get("traceback", "")))
        errors.append(
            f"{where}: lab {name!r} action {failure['action']!r} failed in the page's Python "
            f"(build-time warm-up, args {args}): {failure['error']}" + (f" (raised at {raised})" if raised else "")
        )
    return errors


def missing_errors(missing: Sequence[Mapping[str, str]], imports: Sequence[Import], version: str) -> list[str]:
    """One message per import site of each module the page's Python could not import."""
    errors = []
    for problem in missing:
        for site in (item for item in imports if item.module == problem["module"]):
            errors.append(
                f"{site.where}: imports {site.module!r}, which the page's Python (Pyodide {version}) "
                f"does not have: {problem['error']}"
            )
    return errors
