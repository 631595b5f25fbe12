"""The one door between the page and the model: a JSON string in, a JSON string out.

The browser sends ``{"lab": ..., "action": ..., "args": {...}}`` and gets back
``{"ok": true, "result": {...}}`` or ``{"ok": false, "error": "..."}``. Nothing
is thrown across the boundary, so a bad input becomes a message in the lab
instead of an exception in JavaScript, and no Python object outlives a call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import cast

from kvpage.jsonvalue import JSONObject, LabInputError, field
from kvpage.labs import decode, next_request, square

Action = Callable[[JSONObject], JSONObject]

ACTIONS: Mapping[tuple[str, str], Action] = {
    ("decode", "start"): decode.start,
    ("decode", "step"): decode.advance,
    ("decode", "finish"): decode.finish,
    ("next-request", "compare"): next_request.compare,
    ("square", "compute"): square.compute,
}


def call(message: JSONObject) -> JSONObject:
    """Run one lab action; raises LabInputError for anything malformed."""
    lab = cast(str, field(message, "lab", str))
    action = cast(str, field(message, "action", str))
    args = cast(JSONObject, field(message, "args", dict))
    handler = ACTIONS.get((lab, action))
    if handler is None:
        raise LabInputError(f"no action {action!r} in lab {lab!r}")
    return handler(args)


def handle(request: str) -> str:
    """``call`` on JSON text; every failure comes back as ``{"ok": false}``."""
    try:
        message = json.loads(request)
        if not isinstance(message, dict):
            raise LabInputError("a request must be a JSON object")
        return json.dumps({"ok": True, "result": call(message)})
    except (LabInputError, json.JSONDecodeError) as error:
        return json.dumps({"ok": False, "error": str(error)})
    except Exception as error:  # noqa: BLE001 - the page must get a message, never a throw
        return json.dumps({"ok": False, "error": f"the model failed: {type(error).__name__}: {error}"})
