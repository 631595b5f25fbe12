"""One call of a lab's action under the build's time limit: the only place that catches a call that
did not finish (or a model process that died) and words it, at the line the author fixes. The three
callers (starting view, warm-up, sweep) each copied this; decision 0061 says why problems are values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import cast

from kvpage.jsonvalue import JSONObject
from sitegen.errors import ContentError
from sitegen.labs.model_process import CallTimedOut, ModelStopped

Handle = Callable[[str], str]
"""``kvpage.bridge.handle``, or a :class:`sitegen.labs.model_process.ModelProcess`'s: a JSON request in, a reply out."""


def request(lab: str, action: str, args: JSONObject) -> str:
    """The JSON the page sends for one call: the same bytes whoever asks."""
    return json.dumps({"lab": lab, "action": action, "args": args})


def limited_call(
    handle: Handle, lab: str, action: str, args: JSONObject, at: tuple[str, int], during: str
) -> JSONObject | ContentError:
    """The bridge's reply to ``action`` of ``lab`` with ``args``; or, if ``handle`` stopped it (past the
    limit, or its process died), the error at ``at`` naming the lab, the action and ``during`` (what
    the build was doing, with the arguments)."""
    try:
        return cast(JSONObject, json.loads(handle(request(lab, action, args))))
    except (CallTimedOut, ModelStopped) as stopped:
        said = f" {stopped}" if isinstance(stopped, CallTimedOut) else f": {stopped}"
        return ContentError(*at, f"lab {lab!r} action {action!r}{said} ({during})")
