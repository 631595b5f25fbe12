"""Attention cost in cells: one query scored against one key costs 1.

Every number the labs show and every cell they draw comes from one rule, which cells a step pays
(:func:`paid_cells`), and the costs are those cells counted, never a second formula, so an edit of
the rule in the page moves every readout and drawing (decision 0054).
"""

from __future__ import annotations

import functools
from typing import Literal, get_args

Mode = Literal["kv", "recompute"]
MODES: tuple[Mode, ...] = get_args(Mode)
MODE_NAMES: dict[Mode, str] = {"kv": "KV cache", "recompute": "Recompute"}
"""What the page calls each mode (the decode lab's choice, its chart's legend and table)."""

Row = tuple[int, range]
"""One row of paid cells: a query's position and the positions of the keys it is scored against
(both from 0, in token order): ``(19, range(20))`` is token 20's query against keys 1 to 20."""


def paid_cells(prompt: int, step: int, mode: Mode) -> list[Row]:
    """The cells generation step ``step`` pays, row by row: the rule every number and drawing follows.

    Step 1 is the prefill over the prompt, in either mode. Each later step adds one token. With
    the KV cache it pays one row: the new token's query against every key so far, the earlier
    keys and values read from the cache. Recomputing keeps nothing, so it pays the prefill over
    the whole context again.

    Prefill of ``n`` tokens is the square of ``n`` rows of ``n`` keys (:func:`prefill_cells`); a cached
    prefix of ``p`` tokens leaves out the ``p × p`` corner an earlier request paid. The costs are the
    cells counted, never a second formula, so a reader who edits the rule in the page's editor sees
    every readout and drawing follow it. The closed forms (``n² − p²``, ``t``, ``t²``) are the tests'
    oracle (``tests/oracle/``).
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    t = context_at_step(prompt, step)
    if step == 1 or mode == "recompute":
        return prefill_cells(t)
    return [(t - 1, range(t))]


def prefill_cells(n: int, cached: int = 0) -> list[Row]:
    """The cells a prefill of ``n`` tokens pays when the first ``cached`` are already held, row by row.

    The chapter counts every token's query against every token's key, up to key ``n``: the square,
    ``n²``. A cached prefix's queries were scored against its own keys by an earlier request, so
    their rows start at key ``cached``: ``n² − cached²`` in all.
    """
    if n < 0:
        raise ValueError(f"a prompt cannot have {n} tokens")
    if not 0 <= cached <= n:
        raise ValueError(f"a cached prefix of {cached} does not fit a prompt of {n} tokens")
    return [(query, range(cached if query < cached else 0, n)) for query in range(n)]


def cell_count(rows: list[Row]) -> int:
    """How many cells ``rows`` pay: each row's keys."""
    return sum(len(keys) for _, keys in rows)


def prefill_cost(n: int, cached: int = 0) -> int:
    """Cells paid to prefill ``n`` tokens when the first ``cached`` are already held (:func:`prefill_cells`)."""
    return cell_count(prefill_cells(n, cached))


def context_at_step(prompt: int, step: int) -> int:
    """Tokens the model looks at during generation step ``step`` (1-based).

    Step 1 is the prefill over the prompt. Step ``k ≥ 2`` processes the token
    emitted by step ``k − 1``, so the context has grown to ``prompt + k − 1``.
    """
    if prompt < 1:
        raise ValueError(f"a prompt needs at least one token, not {prompt}")
    if step < 1:
        raise ValueError(f"steps count from 1, not {step}")
    return prompt if step == 1 else prompt + step - 1


@functools.cache
def step_cost(prompt: int, step: int, mode: Mode) -> int:
    """Cells paid by generation step ``step`` of a ``prompt``-token request (:func:`paid_cells`).

    Remembered: one view asks for each step's cost many times (its readouts, chart, table and words),
    and a step's cells are the same until the model is imported again (a reader's Run imports it anew).
    """
    return cell_count(paid_cells(prompt, step, mode))


def cumulative_cost(prompt: int, steps: int, mode: Mode) -> int:
    """Cells paid by the first ``steps`` generation steps (0 steps cost nothing)."""
    if steps < 0:
        raise ValueError(f"cannot take {steps} steps")
    return sum(step_cost(prompt, k, mode) for k in range(1, steps + 1))


def recompute_baseline(prompt: int, steps: int) -> int:
    """What the same steps would have cost if every step recomputed the square.

    Before any step this is the prefill the reader is about to pay, ``prompt²``:
    the counterfactual starts where every run starts.
    """
    return cumulative_cost(prompt, max(steps, 1), "recompute")
