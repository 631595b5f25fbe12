"""The labs a chapter may use, as the build sees them: ``::: lab NAME key=value ...``.

Every lab is declared once, in its model's module (``kvpage/labs/NAME.py``
exports ``LAB``; see :mod:`kvpage.lab`). This module only reads those
declarations: a chapter's ``key=value`` words are parsed by the lab's own
controls (so the build and the page share ranges), and the starting view is
computed by the lab's own ``update`` action, with a model failure reported at
the chapter line that placed the lab.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import cast

from kvpage.catalog import find_labs, misnamed
from kvpage.jsonvalue import JSONObject, JSONValue, LabInputError
from kvpage.lab import Lab
from sitegen.errors import ContentError
from sitegen.model_imports import module_file
from sitegen.warm_up import declared_at

Value = JSONValue
SHLEX_MESSAGES = {
    "No closing quotation": "a quote is not closed",
    "No escaped character": "it ends with a lone backslash",
}


@dataclass(frozen=True)
class LabUse:
    """One lab placed in a chapter: the lab, its starting values and the view they give."""

    kind: Lab
    params: Mapping[str, Value]
    view: JSONObject
    heading_id: str

    @property
    def text(self) -> Mapping[str, str]:
        """The initial view's formatted numbers, by field name."""
        return cast(Mapping[str, str], self.view["text"])

    @property
    def template(self) -> str:
        """The template of its controls and readouts: ``labs/NAME.html``."""
        return f"labs/{self.kind.name}.html"


def parse_params(lab: Lab, words: list[str]) -> tuple[dict[str, Value], list[str]]:
    """Read ``key=value`` words with ``lab``'s controls; unknown, repeated or bad ones are errors."""
    values: dict[str, Value] = {}
    given: set[str] = set()
    errors: list[str] = []
    controls = {control.name: control for control in lab.controls}
    for word in words:
        key, equals, text = word.partition("=")
        if not equals:
            errors.append(f"lab parameter {word!r} is not key=value")
        elif key not in controls:
            expected = ", ".join(sorted(controls)) or "none"
            errors.append(f"lab {lab.name!r} has no parameter {key!r}; expected {expected}")
        elif key in given:
            errors.append(f"lab parameter {key!r} is given twice")
        else:
            given.add(key)
            try:
                values[key] = controls[key].parse(text)
            except ValueError as error:
                errors.append(str(error))
    for key, control in controls.items():
        if key not in given:
            if control.default is None:
                errors.append(f"lab {lab.name!r} needs parameter {key!r}")
            else:
                values[key] = control.default
    return values, errors


def starting_view(lab: Lab, params: Mapping[str, Value]) -> tuple[JSONObject | None, str | None]:
    """The view of ``lab`` at ``params`` by its update action, or what went wrong, as a sentence.

    A refusal (LabInputError) and a failure of the model are both build errors
    at the lab's line: a page must never ship a lab that fails where it starts.
    """
    try:
        view = lab.actions[lab.update](dict(params))
    except LabInputError as error:
        return None, f"lab {lab.name!r} refuses its starting values: {error}"
    except Exception as error:  # noqa: BLE001 - any model failure becomes the author's message
        return None, f"lab {lab.name!r} failed at its starting values: {type(error).__name__}: {error}"
    text = view.get("text")
    if not isinstance(text, dict):
        return None, f"lab {lab.name!r}: its {lab.update!r} action returned no 'text' for the page"
    missing = sorted(lab.fields - set(text))
    if missing:
        return None, f"lab {lab.name!r}: its view has no text for output(s) {', '.join(missing)}"
    return view, None


def split_info(info: str) -> list[str]:
    """The words of a container's info string, quotes honoured.

    Raises ValueError with a message for authors (shlex's own is terse).
    """
    try:
        return shlex.split(info, posix=True)
    except ValueError as error:
        raise ValueError(SHLEX_MESSAGES.get(str(error), str(error))) from None


@functools.cache
def all_labs() -> Mapping[str, Lab]:
    """Every lab kvpage has (experimental ones too), by name.

    Looked up once per process: a change to the model restarts ``serve``'s build process.
    """
    return MappingProxyType(find_labs())


def enabled_labs(experimental: Iterable[str] = (), labs: Mapping[str, Lab] | None = None) -> Mapping[str, Lab]:
    """The labs a book may use: every lab that is not experimental, and those of ``experimental`` it enables."""
    allowed = set(experimental)
    every = all_labs() if labs is None else labs
    return {name: lab for name, lab in every.items() if not lab.experimental or name in allowed}


def declaration_errors(project: Path, static: Collection[str], templates: str = "site_template") -> list[ContentError]:
    """What is wrong with the labs' declarations themselves, at their ``LAB =`` line.

    A lab whose button calls no action, whose name is not its module's, or a
    lab script (``static/labs/NAME.js``) for no lab would otherwise build and
    fail only in the reader's browser.
    """
    errors = [
        ContentError(*declared_at(project, lab), f"lab {lab.name!r}: {problem}")
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
        if folder == "static/labs" and file.endswith(".js") and file.removesuffix(".js") not in all_labs():
            errors.append(ContentError(f"{templates}/{script}", 0, f"there is no lab {file.removesuffix('.js')!r}"))
    return errors
