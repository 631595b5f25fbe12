"""The snapshot's warm-up failures (every action called in the page's own Pyodide before its memory
is saved, ``python_snapshot.mjs``) and the modules it could not import, as ContentErrors at the lab's
``LAB =`` line or the import's (decision 0061): what fails there would fail in the reader's browser.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from kvpage.lab import Lab
from sitegen.errors import ContentError
from sitegen.labs.model_imports import Import
from sitegen.labs.model_lines import declared_at, raised_at, shown_args


def warm_up_errors(
    failures: Sequence[Mapping[str, object]], labs: Mapping[str, Lab], project: Path
) -> list[ContentError]:
    """One message per failed warm-up call, at the lab's declaration."""
    errors = []
    for failure in failures:
        name = str(failure["lab"])
        where = declared_at(project, labs[name]) if name in labs else ("kvpage/labs", 0)
        args = shown_args(failure["args"])
        raised = raised_at(str(failure.get("traceback", "")))
        message = (
            f"lab {name!r} action {failure['action']!r} failed in the page's Python "
            f"(build-time warm-up, args {args}): {failure['error']}" + (f" (raised at {raised})" if raised else "")
        )
        errors.append(ContentError(*where, message))
    return errors


def missing_errors(missing: Sequence[Mapping[str, str]], imports: Sequence[Import], version: str) -> list[ContentError]:
    """One message per import site of each module the page's Python could not import."""
    errors = []
    for problem in missing:
        for site in (item for item in imports if item.module == problem["module"]):
            message = f"imports {site.module!r}, which the page's Python (Pyodide {version}) does not have"
            errors.append(ContentError(site.path, site.line, f"{message}: {problem['error']}"))
    return errors
