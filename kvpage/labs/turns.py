"""The "turns" lab: a conversation grows turn by turn, and the cache decides what each turn pays.

A chat resends its whole history every turn: with the KV cache kept between turns, a turn pays only
for its own new tokens (against everything before them); without it, the whole context is prefilled
again. Every generic control, no script of its own; experimental (:data:`LAB`).
"""

from __future__ import annotations

from typing import cast

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, LabInputError, count
from kvpage.lab import Button, Checkbox, Lab, Output, Slider, Text, Whole
from kvpage.tokenizer import tokenize

MAX_TURNS = 64
SYSTEM = Text("system", "System prompt", limit=500, default="You are a precise assistant.")
TURN = Slider("turn", "Tokens per turn", low=1, high=256, default=32)
CACHE = Checkbox("cache", "Keep the KV cache between turns", default=True)
TURNS = Whole("turns", "Turns", low=1, high=MAX_TURNS, default=1)
"""How many turns the conversation has: what a link to the lab carries beside the controls."""


def _turns(args: JSONObject) -> int:
    """How many turns the conversation has: 1 unless ``state`` says more."""
    state = args.get("state")
    return TURNS.read({TURNS.name: TURNS.default, **(state if isinstance(state, dict) else {})})


def view(args: JSONObject, turns: int) -> JSONObject:
    """What ``turns`` turns of ``turn`` tokens after the system prompt cost, with or without the cache."""
    system = len(tokenize(SYSTEM.read(args)))
    turn, cache = TURN.read(args), CACHE.read(args)
    context = system + turns * turn
    # Imported here, not at the top, on purpose: no other lab imports it, so the page's Python has
    # it only because the build reads every import of the model (sitegen/labs/model_imports.py).
    import statistics

    paid = [
        prefill_cost(system + n * turn, system + (n - 1) * turn if cache and n > 1 else 0) for n in range(1, turns + 1)
    ]
    last, total = paid[-1], sum(paid)
    return {
        "state": {"turns": turns},
        "text": {
            "turns": count(turns),
            "system_tokens": count(system),
            "context": count(context),
            "last": count(last),
            "total": count(total),
            "mean": f"{statistics.fmean(paid):,.1f}",
        },
    }


def compute(args: JSONObject) -> JSONObject:
    """The conversation so far (``state``) with the controls' current values."""
    return view(args, _turns(args))


def add(args: JSONObject) -> JSONObject:
    """One more turn."""
    turns = _turns(args)
    if turns == MAX_TURNS:
        raise LabInputError(f"the lab stops at {MAX_TURNS} turns; press Start over")
    return view(args, turns + 1)


def restart(args: JSONObject) -> JSONObject:
    """Back to the first turn."""
    return view({**args, "state": cast(JSONObject, {"turns": 1})}, 1)


LAB = Lab(
    name="turns",
    actions={"compute": compute, "add": add, "restart": restart},
    update="compute",
    controls=(SYSTEM, TURN, CACHE),
    linked_state=(TURNS,),  # its update action reads the state: a link's view is an update's
    outputs=(
        Output("turns", "Turns"),
        Output("context", "Tokens in context"),
        Output("last", "Cells paid by the last turn"),
        Output("total", "Cells paid in all"),
        Output("mean", "Cells per turn, on average"),
        Output("system_tokens"),
    ),
    buttons=(Button("add", "Add a turn"), Button("restart", "Start over")),
    experimental=True,
)
"""The lab: it exercises every generic control (a text box, a slider, a checkbox and buttons) with no
script of its own, and is experimental: a book turns it on in ``book.toml``."""
