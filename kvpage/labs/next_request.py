"""Lab · the next request.

Request 1 has been prefilled and its keys are cached; request 2 reuses the
longest identical run of tokens from the left and pays only for the rest.

The lesson is "identical, from the left": the page sets the two requests' tokens in columns,
position k over position k, and marks the tokens after the first difference that are the same
text in both (``same``): they are paid all the same. The cached bar is split into its reused
part (the prefix, on the left) and its paid part. Presets set request 2 for the chapter's
experiments from request 1, by the model (:func:`presets`); the page only copies them in.
"""

from __future__ import annotations

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.lab import Button, Lab, Output, Text
from kvpage.pictures import split_bars
from kvpage.prefix import shared_prefix_length
from kvpage.tokenizer import tokenize
from kvpage.tree import el

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


def chips(tokens: list[str], shared: int, other: list[str] | None = None) -> list[tuple[str, str]]:
    """One ``(chip_text, kind)`` pair per token: kind is shared, differs (the first token after the prefix),
    same (after it, but the same text as ``other``'s token at that position: still not reused) or cold."""
    kinds = ["shared"] * shared + ["differs"] * (shared < len(tokens))
    for index in range(shared + 1, len(tokens)):
        alike = other is not None and index < len(other) and other[index] == tokens[index]
        kinds.append("same" if alike else "cold")
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
        return {
            "shared": "cached, reused by request 2",
            "differs": f"cached; {differs}",
            "same": "cached, not reused: request 2 has the same text here, after the first difference",
            "cold": "cached, not reused",
        }
    return {
        "shared": "reused from the cache",
        "differs": f"paid; {differs}",
        "same": "same text as request 1 here, still paid: after the first difference nothing is reused",
        "cold": "paid",
    }


def summary(shared: int, tokens: list[str], cold: int, cached: int) -> str:
    """What a screen reader is told after each answer, every number named: ``Request 2: 10 of 14
    tokens shared, hit through “:”; 100 cells with the prefix cache, 196 cold``."""
    if not tokens:
        return "Request 2 is empty: nothing to prefill"
    hit = f", hit through “{visible(tokens[shared - 1])}”" if shared else ""
    return (
        f"Request 2: {count(shared)} of {count(len(tokens))} tokens shared{hit}; "
        f"{count(cached)} cells with the prefix cache, {count(cold)} cold"
    )


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
    """Cold prefill against prefill with the prefix cached, on one scale (cold is the longest): one row each.

    Both bars are request 2's whole prefill; the cached one is split where request 1's prefix ends:
    its reused cells on the left (the prefix is on the left), then the cells it pays."""
    rows = [("Cold prefill", 0, cold, count(cold)), ("With prefix cache", cold - cached, cached, count(cached))]
    return split_bars(rows, cold)


PRESETS = (
    ("identical", "Identical request"),
    ("one_letter", "One letter changed"),
    ("leading_space", "A leading space"),
    ("longer", "Longer request 2"),
)
"""The chapter's experiments, as buttons that set request 2 from request 1: names and labels."""
LONGER = " Then explain why."
"""What the longer request 2 adds after request 1."""


def one_letter_changed(text: str) -> str:
    """``text`` with one letter changed in its first word of four letters or more (its system prompt's:
    ``precise`` → ``precize``); the last letter of the text if it has no such word."""
    words = [word for word in text.split() if len(word) >= 4 and word.isalpha()]
    if not words:
        letters = [i for i, c in enumerate(text) if c.isalpha()]
        if not letters:
            return text + "a"
        at = letters[-1]
    else:
        at = text.index(words[0]) + len(words[0]) - 2
    return text[:at] + ("y" if text[at] == "z" else "z") + text[at + 1 :]


def presets(request1: str) -> dict[str, str]:
    """Request 2 for each preset: request 1 itself, with one letter changed, after a leading space, and
    continued. Each is cut to the lab's limit, as a reader's typing would be refused past it."""
    found = {
        "identical": request1,
        "one_letter": one_letter_changed(request1),
        "leading_space": " " + request1,
        "longer": request1 + LONGER,
    }
    return {name: text[:MAX_REQUEST_CHARS] for name, text in found.items()}


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
            "summary": summary(shared, second, cold, cached),
            **{f"preset_{name}": text for name, text in presets(REQUEST1.read(args)).items()},
        },
        "parts": {
            "tokens1": chip_items(chips(first, shared, second), tips(1, shared, second), shared),
            "tokens2": chip_items(chips(second, shared, first), tips(2, shared, first), shared),
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
        Output("summary", kind="summary"),
        *(Output(f"preset_{name}") for name, _ in PRESETS),
    ),
    # The presets are the lab's own script (static/labs/next-request.js): it copies the view's
    # preset_NAME text into request 2 and lets the page compare as after any typing.
    buttons=tuple(Button(f"preset_{name}", label, action="") for name, label in PRESETS),
    warm_up=(
        ("compare", {"request1": "You are a precise assistant.", "request2": "You are a precise assistant! 4+4?"}),
    ),
)
