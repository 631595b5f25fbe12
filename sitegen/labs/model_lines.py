"""Where in the model a lab's failure is: its ``LAB =`` line, the frame that raised, its call's
arguments. Below both callers (the labs stage, :mod:`sitegen.labs.stage`, and the snapshot's warm-up,
:mod:`sitegen.labs.warm_up`), so imports go one way; how failures are reported: decision 0061.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

from kvpage.lab import Lab
from sitegen.labs.model_imports import module_file

LAB_LINE = re.compile(r"^LAB\b", re.MULTILINE)
FRAME = re.compile(r'File "([^"]+\.py)", line (\d+)')
"""A traceback's frame of a ``.py`` file: its path and line."""


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


CONTROL_PROBLEM = re.compile(r"control '([a-z][a-z0-9_]*)':")
"""How ``Lab.problems`` starts a problem of one control's declaration (its name in quotes)."""


def problem_at(project: Path, lab: Lab, problem: str) -> tuple[str, int]:
    """Where to fix ``problem`` of ``lab``'s declaration: the line that declares the control it names
    (``Slider("temperature", ... low=0.1 ...)``), else the ``LAB =`` line (:func:`declared_at`)."""
    shown, line = declared_at(project, lab)
    named = CONTROL_PROBLEM.match(problem)
    if named is None:
        return shown, line
    try:
        text = (project / shown).read_text(encoding="utf-8")
    except OSError:
        return shown, line
    call = re.compile(rf"""\(\s*(?:name\s*=\s*)?["']{re.escape(named.group(1))}["']""")
    found = call.search(text)
    return (shown, text.count("\n", 0, found.start()) + 1) if found else (shown, line)


VOCABULARY = ("kvpage/pictures/", "kvpage/tree.py")
"""What a lab calls but its author does not write: the picture vocabulary and the element trees. A
picture refused (``PictureError``: a negative bar) is the author's call's doing, so it is reported at
the call in the lab's file, not at the line of kvpage/pictures/ that raised."""


def raised_at(traceback: str) -> str:
    """The innermost model frame of a traceback from the wheel, as ``kvpage/…py:LINE`` ("" if none):
    the innermost outside :data:`VOCABULARY`, if any is."""
    frames = [
        (path[path.rindex("/kvpage/") + 1 :], line) for path, line in FRAME.findall(traceback) if "/kvpage/" in path
    ]
    if not frames:
        return ""
    own = [(path, line) for path, line in frames if not path.startswith(VOCABULARY)]
    path, line = (own or frames)[-1]
    return f"{path}:{line}"


def shown_args(args: object) -> str:
    """A call's arguments as JSON for a message, cut to 120 characters."""
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def raised_note(traceback: str) -> str:
    """`` (raised at kvpage/labs/x.py:12)`` for a message about a failed call, from its traceback.

    "" when no model frame raised, or only the bridge's own: then the model failed in code
    outside kvpage's files (the standard library), and the bridge's line says nothing.
    """
    raised = raised_at(traceback)
    return f" (raised at {raised})" if raised and not raised.startswith("kvpage/bridge.py:") else ""


def action_at(lab: Lab, action: str) -> tuple[str, int] | None:
    """(``kvpage/labs/x.py``, LINE): where the action ``action`` of ``lab`` is defined, for a view it
    returned that the page cannot show (NaN in it, an output missing); None if its source is not a file."""
    function = lab.actions.get(action)
    module = inspect.getmodule(function) if function is not None else None
    if function is None or module is None or not module.__name__.startswith("kvpage."):
        return None
    try:
        _, line = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return None
    return module_file(module.__name__), line
