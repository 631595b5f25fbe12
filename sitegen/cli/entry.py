"""The command's entry point: ``kvpage-book`` and ``python build.py`` start here.

A model file that does not import must be said at its line, not as a traceback through the build's
imports, and a link out of the model's folder refused before it runs: so :func:`main` checks and
guards before it imports the command line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sitegen.labs.model_errors import exit_if_model_failed
from sitegen.labs.model_imports import model_links

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Check the model's links, then import the command line under the model-failure guard and run it.

    The command line imports the build, and the build imports the model (``kvpage/lab.py``, say): a
    model file that does not import must be said at its line, as every other mistake is, not as a
    traceback through the build's imports. So the command line is imported here, inside that guard.
    And before it, the model's folder is checked for symbolic links out of it
    (:func:`sitegen.labs.model_imports.model_links`): importing a link ``kvpage/lab.py`` → ``/outside/lab.py``
    would run the outside file in the build's own Python before any stage could refuse it.
    """
    linked = model_links(ROOT)
    if linked:
        for problem in sorted(linked):
            print(f"error: {problem}", file=sys.stderr)
        print(f"build failed: {len(linked)} error(s); nothing was written", file=sys.stderr)
        return 1
    try:
        from sitegen.cli.commands import main as run
    except Exception as failed:  # noqa: BLE001 - only a model failure is caught; anything else is raised again
        exit_if_model_failed(failed, ROOT)
    return run(argv, prog)
