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
from kvpage.tree import THIN, Node, el, num

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


def chip_text(token: str) -> str:
    """A token as its chip prints it: every whitespace character drawn, nothing trimmed."""
    return token.translate(_VISIBLE_WHITESPACE)


def chips(tokens: list[str], shared: int) -> list[tuple[str, str]]:
    """One ``(chip_text, kind)`` pair per token: kind is shared, differs (the first token after the prefix) or cold."""
    kinds = ["shared"] * shared + ["differs"] * (shared < len(tokens)) + ["cold"] * (len(tokens) - shared - 1)
    return [(chip_text(token), kind) for token, kind in zip(tokens, kinds, strict=False)]


def chip_items(pairs: list[tuple[str, str]], tips: dict[str, str], shared: int) -> list[JSONValue]:
    """The items of a request's list of chips: the token as drawn, and what it is, for screen readers.

    ``#11 “␣3” · paid`` is read out in place of the drawn token and is what the line under the
    list shows when the chip is hovered or focused (``static/labs/next-request.js``). Only the
    first chip is in the tab order; the arrow keys move between the others. The last shared chip
    carries the bar that ends the prefix.
    """
    items: list[JSONValue] = []
    for index, (text, kind) in enumerate(pairs):
        marks: dict[str, str | int] = {"class": "chip", "data-kind": kind}
        if index == shared - 1:
            marks["data-ends-prefix"] = ""
        if index == 0:
            marks["tabindex"] = 0
        drawn = el("span", {"class": "chip-text", "aria-hidden": "true"}, text)
        items.append(
            el("li", marks, drawn, el("span", {"class": "visually-hidden"}, f"#{index + 1} “{text}” · {tips[kind]}"))
        )
    return items


def tips(request: int, shared: int, other: list[str]) -> dict[str, str]:
    """What hovering or focusing a chip of ``request`` says after its index, by kind."""
    if shared < len(other):
        differs = f"first difference: request {3 - request} has “{visible(other[shared])}” here"
    else:
        differs = f"first token after request {3 - request} ends"
    if request == 1:
        return {"shared": "cached, reused by request 2", "differs": f"cached; {differs}", "cold": "cached, not reused"}
    return {"shared": "reused from the cache", "differs": f"paid; {differs}", "cold": "paid"}


def bars_words(cold: int, cached: int) -> str:
    """The bars in words, numbers included: their text alternative."""
    if cold == 0:
        return "Request 2 is empty: nothing to prefill, cold or cached."
    saved = cold - cached
    return (
        f"Request 2 costs {count(cold)} cells cold and {count(cached)} with request 1's prefix cached: "
        f"{count(saved)} saved ({round(100 * saved / cold)}%)."
    )


def bars(cold: int, cached: int) -> list[JSONValue]:
    """Cold prefill against prefill with the prefix cached, on one scale (cold is the longest): one row each."""
    rows: list[JSONValue] = []
    for name, value in (("Cold prefill", cold), ("With prefix cache", cached)):
        share = num(100 * value / cold) if cold > 0 else "0"
        track = el(
            "svg",
            {"viewBox": "0 0 100 10", "class": "bar-track", "aria-hidden": "true", "preserveAspectRatio": "none"},
            el("rect", {"class": "bar-back", "x": 0, "y": 0, "width": 100, "height": 10, **THIN}),
            el("rect", {"class": "bar-fill", "data-value": value, "x": 0, "y": 0, "width": share, "height": 10}),
        )
        parts: list[Node] = [
            el("span", {"class": "bar-name"}, name),
            track,
            el("span", {"class": "bar-value"}, count(value)),
        ]
        rows.append(el("div", {"class": "bar-row"}, *parts))
    return rows


def compare(args: JSONObject) -> JSONObject:
    """Costs of request 2 cold and with request 1's prefix cached, its tokens and request 1's."""
    first = tokenize(REQUEST1.read(args))
    second = tokenize(REQUEST2.read(args))
    shared = shared_prefix_length(first, second)
    cold = prefill_cost(len(second))
    cached = prefill_cost(len(second), shared)
    return {
        "text": {
            "shared": shared_label(shared, second),
            "cold": count(cold),
            "cached": count(cached),
            "request1_cost": count(prefill_cost(len(first))),
            "request1_tokens": count(len(first)),
            "bars_words": bars_words(cold, cached),
        },
        "parts": {
            "tokens1": chip_items(chips(first, shared), tips(1, shared, second), shared),
            "tokens2": chip_items(chips(second, shared), tips(2, shared, first), shared),
            "bars": bars(cold, cached),
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
        Output("tokens1", "Tokens of request 1", kind="list"),
        Output("tokens2", "Tokens of request 2", kind="list"),
        Output("bars", kind="picture"),
        Output("bars_words"),
    ),
    warm_up=(
        ("compare", {"request1": "You are a precise assistant.", "request2": "You are a precise assistant! 4+4?"}),
    ),
)
