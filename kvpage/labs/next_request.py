"""Lab · the next request.

Request 1 has been prefilled and its keys are cached; request 2 reuses the
longest identical run of tokens from the left and pays only for the rest.
"""

from __future__ import annotations

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.lab import Lab, Output, Text
from kvpage.prefix import shared_prefix_length
from kvpage.tokenizer import tokenize

MAX_REQUEST_CHARS = 2_000
"""Longest request the lab accepts; the page states this cap next to the boxes."""

REQUEST1 = Text("request1", "Request 1", limit=MAX_REQUEST_CHARS)
REQUEST2 = Text("request2", "Request 2", limit=MAX_REQUEST_CHARS)

_VISIBLE_WHITESPACE = str.maketrans({" ": "␣", "\n": "⏎", "\t": "⇥", "\r": "↵"})
"""Glyphs common fonts carry (the control pictures ␠ and ␍ often draw as empty boxes)."""


def visible(token: str) -> str:
    """A token as a reader can see it: trimmed, or its whitespace drawn."""
    trimmed = token.strip()
    return trimmed if trimmed else token.translate(_VISIBLE_WHITESPACE)


def shared_label(shared: int, tokens: list[str]) -> str:
    """``10 / 14 · hit through “:”``, or why nothing was reused."""
    if not tokens:
        return "0 / 0 · empty request"
    if shared == 0:
        return f"0 / {len(tokens)} · no shared prefix"
    return f"{shared} / {len(tokens)} · hit through “{visible(tokens[shared - 1])}”"


def shown(token: str) -> str:
    """A token as its chip prints it: every whitespace character drawn, nothing trimmed."""
    return token.translate(_VISIBLE_WHITESPACE)


def _chips(tokens: list[str], shared: int) -> list[JSONValue]:
    """One ``[shown, kind]`` pair per token: kind is shared, differs (the first token after the prefix) or cold.

    Pairs rather than objects: a 2,000-character request can be 2,000 tokens, sent on every keystroke.
    """
    kinds = ["shared"] * shared + ["differs"] * (shared < len(tokens)) + ["cold"] * (len(tokens) - shared - 1)
    return [[shown(token), kind] for token, kind in zip(tokens, kinds, strict=False)]


def _tips(request: int, shared: int, other: list[str]) -> JSONObject:
    """What hovering or focusing a chip of ``request`` says after its index, by kind."""
    if shared < len(other):
        differs = f"first difference: request {3 - request} has “{visible(other[shared])}” here"
    else:
        differs = f"first token after request {3 - request} ends"
    if request == 1:
        return {"shared": "cached, reused by request 2", "differs": f"cached; {differs}", "cold": "cached, not reused"}
    return {"shared": "reused from the cache", "differs": f"paid; {differs}", "cold": "paid"}


def _bars(cold: int, cached: int) -> JSONObject:
    """Cold prefill against prefill with the prefix cached, on one scale (cold is the longest)."""
    if cold == 0:
        words = "Request 2 is empty: nothing to prefill, cold or cached."
    else:
        saved = cold - cached
        words = (
            f"Request 2 costs {count(cold)} cells cold and {count(cached)} with request 1's prefix cached: "
            f"{count(saved)} saved ({round(100 * saved / cold)}%)."
        )
    return {
        "top": cold,
        "bars": [
            {"name": "Cold prefill", "value": cold, "text": count(cold)},
            {"name": "With prefix cache", "value": cached, "text": count(cached)},
        ],
        "text": words,
    }


def compare(args: JSONObject) -> JSONObject:
    """Costs of request 2 cold and with request 1's prefix cached."""
    first = tokenize(REQUEST1.read(args))
    second = tokenize(REQUEST2.read(args))
    shared = shared_prefix_length(first, second)
    first_cost = prefill_cost(len(first))
    cold = prefill_cost(len(second))
    cached = prefill_cost(len(second), shared)
    return {
        "shared": shared,
        "cold": cold,
        "cached": cached,
        "request1_cost": first_cost,
        "request1_tokens": len(first),
        "request2_tokens": len(second),
        "tokens1": _chips(first, shared),
        "tokens2": _chips(second, shared),
        "tips1": _tips(1, shared, second),
        "tips2": _tips(2, shared, first),
        "bars": _bars(cold, cached),
        "text": {
            "shared": shared_label(shared, second),
            "cold": count(cold),
            "cached": count(cached),
            "request1_cost": count(first_cost),
            "request1_tokens": count(len(first)),
        },
    }


LAB = Lab(
    name="next-request",
    actions={"compare": compare},
    update="compare",
    controls=(REQUEST1, REQUEST2),
    outputs=(
        Output("shared", "Shared prefix"),
        Output("cold", "Cold prefill"),
        Output("cached", "With prefix cache"),
        Output("request1_cost"),
        Output("request1_tokens"),
    ),
    warm_up=(
        ("compare", {"request1": "You are a precise assistant.", "request2": "You are a precise assistant! 4+4?"}),
    ),
)
