"""The one door between the page and the model: a JSON string in, a JSON string out.

Nothing is thrown across the boundary, so a bad input becomes a message in the lab instead of an
exception in JavaScript, and no Python object outlives a call; replies are strict JSON. The
messages and the rules: :func:`handle`; a lab is found from its name alone (:func:`lab_named`).
"""

from __future__ import annotations

import importlib
import json
import math
import traceback
from collections.abc import Callable
from typing import cast

from kvpage.jsonvalue import JSONObject, JSONValue, LabInputError, field
from kvpage.lab import NAME, Action, Lab, module_of


def lab_named(name: str) -> Lab:
    """The lab called ``name``; LabInputError if there is none.

    The lab is found from its name alone (``next-request`` → the ``LAB`` of
    ``kvpage.labs.next_request``): the bridge has no list of labs to keep in step.
    """
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


def non_finite(value: object, at: str = "view") -> tuple[str, float] | None:
    """Where in ``value`` its first NaN or ±Infinity is, and which (``("view.text.square", nan)``); None if none."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (at, value)
    if isinstance(value, dict):
        items: list[tuple[str, object]] = [(f"{at}.{key}", item) for key, item in value.items()]
    elif isinstance(value, list | tuple):
        items = [(f"{at}[{index}]", item) for index, item in enumerate(value)]
    else:
        return None
    return next((found for path, item in items if (found := non_finite(item, path)) is not None), None)


NOT_JSON_ADVICE = "JSON has no NaN or Infinity, so the page could not read it: return a text such as 'n/a' instead"
"""What the lab's author does about a view holding NaN or ±Infinity: the build and serve say it after
the failure, and the page only in its console (a reply's ``advice``), never to the reader."""


def not_json(name: str, where: str, number: float) -> str:
    """What the lab says to the reader of a view holding ``number`` (NaN or ±Infinity) at ``where``: what
    happened, not what its author should do (:data:`NOT_JSON_ADVICE`)."""
    shown = "NaN" if math.isnan(number) else ("Infinity" if number > 0 else "-Infinity")
    return f"{FAILED}action {name!r} returned {shown} (at {where})"


def for_the_author(reply: JSONObject) -> str:
    """A failed reply's error as the build and serve report it: with the author's ``advice``, if any."""
    advice = reply.get("advice")
    return f"{reply['error']}; {advice}" if advice else str(reply["error"])


def refuse_constant(word: str) -> JSONValue:
    """Requests are strict JSON too: ``NaN`` and ``Infinity`` are not JSON (the page never sends them)."""
    raise LabInputError(f"a request must be JSON, which has no {word}")


def handle(request: str, find: Finder = lab_named) -> str:
    """``call`` on JSON text; every failure comes back as ``{"ok": false}``.

    The page's Python worker calls this with the request's text and sends back the text it
    returns; the build computes every lab's starting view through it too (``sitegen/labs/stage.py``),
    so both take the same path. ``find`` is for tests that bring labs of their own.

    The browser sends ``{"lab": ..., "action": ..., "args": {...}}`` and gets back
    ``{"ok": true, "result": {...}}`` or ``{"ok": false, "error": "..."}`` (with
    ``"traceback"`` when the model itself failed, for the console). Nothing is
    thrown across the boundary, so a bad input becomes a message in the lab
    instead of an exception in JavaScript, and no Python object outlives a call.

    Replies are strict JSON: a view holding NaN or ±Infinity (which Python's ``json`` would write as
    the bare words ``NaN`` and ``Infinity``, and no browser's ``JSON.parse`` reads) is refused here, as
    a model failure that names the action and where in its view the number is, so the build reports
    it at the lab's line and the page shows it in the lab, never as an answer the page cannot read.
    """
    try:
        message = json.loads(request, parse_constant=refuse_constant)
        if not isinstance(message, dict):
            raise LabInputError("a request must be a JSON object")
        result = call(message, find)
    except (LabInputError, json.JSONDecodeError) as error:
        return json.dumps({"ok": False, "error": str(error)})
    except Exception as error:  # noqa: BLE001 - the page must get a message, never a throw
        failed = f"{FAILED}{type(error).__name__}: {error}"
        return json.dumps({"ok": False, "error": failed, "traceback": traceback.format_exc()})
    found = non_finite(result)
    if found is not None:
        return json.dumps({"ok": False, "error": not_json(str(message["action"]), *found), "advice": NOT_JSON_ADVICE})
    try:
        reply = json.dumps({"ok": True, "result": result}, allow_nan=False)
    except Exception as error:  # noqa: BLE001 - a set, say: not JSON either, and still a value
        failed = f"{FAILED}{type(error).__name__}: {error}"
        return json.dumps({"ok": False, "error": failed, "traceback": traceback.format_exc()})
    over = too_big(str(message["action"]), result, reply)
    return reply if over is None else json.dumps({"ok": False, "error": over})


MAX_ELEMENTS = 10_000
"""The most elements a view's trees (its pictures, tables and lists together) may hold. The chapter's
largest view holds 60; a page draws ten thousand in well under a frame's worth of a second."""
MAX_REPLY_BYTES = 1_000_000
"""The most bytes of JSON one reply may carry (its texts, trees and state): the chapter's largest is
about 6 kB. A reader's page is never handed megabytes to parse and draw for one move of a slider."""


def elements(node: object) -> int:
    """How many elements a tree (or a list of trees) holds: ``[tag, {attributes}, *children]`` each."""
    if not isinstance(node, list):
        return 0
    if node and isinstance(node[0], str):
        return 1 + sum(elements(child) for child in node[2:])
    return sum(elements(child) for child in node)


def too_big(name: str, result: object, reply: str) -> str | None:
    """The message for a view over :data:`MAX_ELEMENTS` or a reply over :data:`MAX_REPLY_BYTES`; None if neither."""
    parts = result.get("parts") if isinstance(result, dict) else None
    drawn = sum(elements(tree) for tree in parts.values()) if isinstance(parts, dict) else 0
    if drawn > MAX_ELEMENTS:
        return f"{FAILED}action {name!r} drew {drawn:,} elements; a view holds at most {MAX_ELEMENTS:,}"
    size = len(reply.encode("utf-8"))
    if size > MAX_REPLY_BYTES:
        return f"{FAILED}action {name!r} answered {size:,} bytes of JSON; a reply carries at most {MAX_REPLY_BYTES:,}"
    return None
