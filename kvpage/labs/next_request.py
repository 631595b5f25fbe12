"""Lab · the next request.

Request 1 has been prefilled and its keys are cached; request 2 reuses the longest identical run of
tokens from the left and pays only for the rest. The lesson is "identical, from the left": the same
text after the first difference is paid all the same (:func:`compare`, :func:`layer_kinds`).
"""

from __future__ import annotations

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.lab import Button, Lab, Output, Text
from kvpage.pictures import corner_square, layer_grid, split_bars
from kvpage.prefix import LAYERS, identical_entries, reused_count
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
    ("line_in_front", "A line break in front"),
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
    """Request 2 for each preset: request 1 itself, with one letter changed, after a leading space,
    continued, and after a line break. The space joins the first word ("You" becomes "␣You": one
    token differs, every later one is where it was); the line break is a token of its own, so every
    later token is request 1's, one position further on. Each is cut to the lab's limit, as a
    reader's typing would be refused past it."""
    found = {
        "identical": request1,
        "one_letter": one_letter_changed(request1),
        "leading_space": " " + request1,
        "longer": request1 + LONGER,
        "line_in_front": "\n" + request1,
    }
    return {name: text[:MAX_REQUEST_CHARS] for name, text in found.items()}


def layer_kinds(first: list[str], second: list[str], layers: int = LAYERS) -> list[list[str]]:
    """What each of request 2's keys-and-values entries is, a row per layer (layer 1 first), a column
    per token, by the dependency rule (:func:`kvpage.prefix.identical_entries`): ``reused`` (the
    prefix the cache hands over, :func:`kvpage.prefix.reused_count`), ``changed`` (layer 1 of the first token that
    differs from request 1's), ``same`` (identical, yet after the prefix, so paid: layer 1 under the
    same text at the same place) or ``paid``. Layer 1's kinds are the token chips' (shared, differs, same,
    cold), computed from the rule rather than from the text."""
    identical = identical_entries(first, second, layers)
    first_paid = reused_count(identical)
    return [
        [
            "reused"
            if at < first_paid
            else "changed"
            if layer == 0 and at == first_paid < len(first)
            else "same"
            if here
            else "paid"
            for at, here in enumerate(row)
        ]
        for layer, row in enumerate(identical)
    ]


def layers_words(first: list[str], second: list[str], kinds: list[list[str]]) -> str:
    """The layer drawing in words, numbers included: what is reused, what is paid, and why."""
    n, layers = len(second), len(kinds)
    reused = kinds[0].count("reused") if kinds else 0
    if n == 0:
        return "Request 2 is empty: no keys or values to compute."
    if reused == n:
        return f"All {n} tokens of request 2 are reused from the cache, in all {layers} layers: nothing is paid."
    entries = f"{count((n - reused) * layers)} entries"
    if reused:
        told = [
            f"Tokens 1 to {reused} are reused in all {layers} layers.",
            f"From token {reused + 1} on, all {n - reused} are paid in every layer ({entries}).",
        ]
    else:
        told = [f"No token is reused: all {n} are paid in every layer ({entries})."]
    same = kinds[0].count("same")
    if same:
        told.append(
            f"{same} of them {'has' if same == 1 else 'have'} request 1's text at the same position (=): "
            "identical in layer 1, "
            f"but from layer 2 up they mix in token {reused + 1}."
        )
    moved = sum(1 for at in range(reused, n) if kinds[0][at] != "same" and second[at] in set(first))
    if moved:
        told.append(
            f"{moved} of them {'repeats' if moved == 1 else 'repeat'} text request 1 has at another position: "
            "a different key even in layer 1, since position enters it."
        )
    return " ".join(told)


def square_words(n: int, shared: int) -> str:
    """The square in words: the tokens shared against the cells saved, as shares."""
    if n == 0:
        return "Request 2 is empty: no cells to pay."
    if shared == 0:
        return f"No token is shared: all {count(n * n)} cells are paid, every query against every key."
    if shared == n:
        return f"All {n} tokens are shared: the whole square, {count(n * n)} cells, is reused; nothing is paid."
    return (
        f"{shared} of {n} tokens shared ({round(100 * shared / n)}%) saves the {shared} × {shared} corner: "
        f"{count(shared * shared)} of {count(n * n)} cells ({round(100 * shared * shared / (n * n))}%). "
        f"The L around it, {count(n * n - shared * shared)} cells, is paid: every query after the prefix "
        "against every key."
    )


def empty(text: str) -> list[JSONValue]:
    """A drawing's place when request 2 has no tokens: what there would be, in words."""
    return [el("p", {"class": "pic-summary"}, text)]


def layers_part(second: list[str], kinds: list[list[str]]) -> list[JSONValue]:
    """The layer drawing: a row per layer, a bracket over the reused and the paid tokens."""
    if not second:
        return empty("Request 2 is empty: no keys or values.")
    n, reused = len(second), kinds[0].count("reused")
    spans = [(0, reused, "reused", "reused"), (reused, n, "paid", "paid")]
    return layer_grid([(f"layer {at}", row) for at, row in enumerate(kinds, 1)], spans, reused + 1)


def square(n: int, shared: int) -> list[JSONValue]:
    """Request 2's cells as one square: the reused corner, the paid L, each named with its cells."""
    if n == 0:
        return empty("Request 2 is empty: no cells.")
    reused, paid = count(shared * shared), count(n * n - shared * shared)
    return corner_square(n, shared, reused=f"reused {reused}", paid=f"paid {paid}")


def compare(args: JSONObject) -> JSONObject:
    """Costs of request 2 cold and with request 1's prefix cached, its tokens and request 1's.

    The lesson is "identical, from the left": the page sets the two requests' tokens in columns,
    position k over position k, and marks the tokens after the first difference that are the same
    text in both (``same``): they are paid all the same. The cached bar is split into its reused
    part (the prefix, on the left) and its paid part. Presets set request 2 for the chapter's
    experiments from request 1, by the model (:func:`presets`); the page only copies them in.

    Two drawings say why and how much. *Why*: request 2's keys and values token by token and layer
    by layer (:func:`layer_kinds`, from the dependency rule of :func:`kvpage.prefix.identical_entries`):
    from layer 2 up an entry mixes in every earlier token, so after the first difference every layer
    is paid, even under the same text; only layer 1 would match there (``=``), and a token moved to
    another position does not match even there. *How much*: request 2's n × n cells as one square,
    the reused p × p corner and the paid L (:func:`square`): 10 of 14 tokens shared saves 100 of 196
    cells, 51 %, not 71 %.
    """
    first = tokenize(REQUEST1.read(args))
    second = tokenize(REQUEST2.read(args))
    kinds = layer_kinds(first, second)
    shared = kinds[0].count("reused")  # by the dependency rule: the readouts, chips and drawings follow it
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
            "layers_words": layers_words(first, second, kinds),
            "square_words": square_words(len(second), shared),
            "summary": summary(shared, second, cold, cached),
            **{f"preset_{name}": text for name, text in presets(REQUEST1.read(args)).items()},
        },
        "parts": {
            "tokens1": chip_items(chips(first, shared, second), tips(1, shared, second), shared),
            "tokens2": chip_items(chips(second, shared, first), tips(2, shared, first), shared),
            "bars": bars(cold, cached),
            "layers": layers_part(second, kinds),
            "square": square(len(second), shared),
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
        Output("layers", kind="picture"),
        Output("layers_words"),
        Output("square", kind="picture"),
        Output("square_words"),
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
