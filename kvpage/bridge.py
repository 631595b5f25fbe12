"""The one door between the page and the model: a JSON string in, a JSON string out.

The browser sends ``{"lab": ..., "action": ..., "args": {...}}`` and gets back
``{"ok": true, "result": {...}}`` or ``{"ok": false, "error": "..."}`` (with
``"traceback"`` when the model itself failed, for the console). Nothing is
thrown across the boundary, so a bad input becomes a message in the lab
instead of an exception in JavaScript, and no Python object outlives a call.

The lab is found from its name alone (``next-request`` → the ``LAB`` of
``kvpage.labs.next_request``): the bridge has no list of labs to keep in step.
"""

from __future__ import annotations

import importlib
import json
import traceback
from collections.abc import Callable
from typing import cast

from kvpage.jsonvalue import JSONObject, LabInputError, field
from kvpage.lab import NAME, Action, Lab, module_of


def lab_named(name: str) -> Lab:
    """The lab called ``name``; LabInputError if there is none."""
    module = module_of(name)
    if not NAME.match(name):
        raise LabInputError(f"no lab {name!r}")
    try:
        found = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != module:
            raise  # the lab exists, but something it imports does not: a model failure
        raise LabInputError(f"no lab {name!r}") from None
    lab = getattr(found, "LAB", None)
    if not isinstance(lab, Lab) or lab.name != name:
        raise LabInputError(f"no lab {name!r}")
    return lab


FAILED = "the model failed: "
"""How the error of a model failure (not a refusal) begins; its reply also carries the traceback."""

Finder = Callable[[str], Lab]


def action(lab: str, name: str, find: Finder = lab_named) -> Action:
    """The model function ``name`` of ``lab``."""
    handler = find(lab).actions.get(name)
    if handler is None:
        raise LabInputError(f"no action {name!r} in lab {lab!r}")
    return handler


def call(message: JSONObject, find: Finder = lab_named) -> JSONObject:
    """Run one lab action; raises LabInputError for anything malformed."""
    lab = cast(str, field(message, "lab", str))
    name = cast(str, field(message, "action", str))
    args = cast(JSONObject, field(message, "args", dict))
    return action(lab, name, find)(args)


def handle(request: str, find: Finder = lab_named) -> str:
    """``call`` on JSON text; every failure comes back as ``{"ok": false}``.

    The page's Python worker calls this with the request's text and sends back the text it
    returns; the build computes every lab's starting view through it too (``sitegen/labs.py``),
    so both take the same path. ``find`` is for tests that bring labs of their own.
    """
    try:
        message = json.loads(request)
        if not isinstance(message, dict):
            raise LabInputError("a request must be a JSON object")
        return json.dumps({"ok": True, "result": call(message, find)})
    except (LabInputError, json.JSONDecodeError) as error:
        return json.dumps({"ok": False, "error": str(error)})
    except Exception as error:  # noqa: BLE001 - the page must get a message, never a throw
        message = f"{FAILED}{type(error).__name__}: {error}"
        return json.dumps({"ok": False, "error": message, "traceback": traceback.format_exc()})
