"""The checks of the labs' declarations themselves, at their ``LAB =`` line, and the labs' own
scripts (``static/labs/NAME.js``): what would otherwise build and fail only in the reader's browser.
Problems are returned as ``ContentError`` values (decision 0061).
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from kvpage.catalog import misnamed
from sitegen.errors import ContentError
from sitegen.labs.discovery import all_labs
from sitegen.labs.model_imports import module_file
from sitegen.labs.model_lines import problem_at

LAB_SCRIPTS = "static/labs"
"""The site's folder of the labs' own scripts (``site_template/static/labs/``)."""


def lab_script(name: str) -> str:
    """A lab's own script, if it has one: ``LAB_SCRIPTS/NAME.js`` registers itself by that name."""
    return f"{LAB_SCRIPTS}/{name}.js"


def declaration_errors(project: Path, static: Collection[str], templates: str = "site_template") -> list[ContentError]:
    """What is wrong with the labs' declarations themselves, at their ``LAB =`` line.

    A lab whose button calls no action, whose name is not its module's, or a
    lab script (``static/labs/NAME.js``) for no lab would otherwise build and
    fail only in the reader's browser.
    """
    errors = [
        ContentError(*problem_at(project, lab, problem), f"lab {lab.name!r}: {problem}")
        for lab in all_labs().values()
        for problem in lab.problems
    ]
    for module, name in misnamed():
        errors.append(
            ContentError(
                module_file(module), 0, f"its LAB is named {name!r}; a lab's name is its module's, with '-' for '_'"
            )
        )
    for script in sorted(static):
        folder, _, file = script.rpartition("/")
        if folder == LAB_SCRIPTS and file.endswith(".js") and file.removesuffix(".js") not in all_labs():
            errors.append(ContentError(f"{templates}/{script}", 0, f"there is no lab {file.removesuffix('.js')!r}"))
    return errors
