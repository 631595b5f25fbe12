"""Attention cost in cells: one query against one key costs 1.

The chapter's argument is arithmetic, so it lives here as closed forms that the
tests check against explicit attention masks. Prefill of ``n`` tokens is the
square ``n * n``; a cached prefix of ``p`` tokens removes the square ``p * p``
it already paid; a decode step with the KV cache is a line (the new query
against every cached key), without it the square again.
"""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal["kv", "recompute"]
MODES: tuple[Mode, ...] = get_args(Mode)
MODE_NAMES: dict[Mode, str] = {"kv": "KV cache", "recompute": "Recompute"}
"""What the page calls each mode (the decode lab's choice, its chart's legend and table)."""


def prefill_cost(n: int, cached: int = 0) -> int:
    """Cells paid to prefill ``n`` tokens when the first ``cached`` are already held.

    A cold prompt costs ``n²``; each new token attends to every earlier one, and
    the cached ones' rows were paid by an earlier request, hence ``n² − cached²``.
    """
    if n < 0:
        raise ValueError(f"a prompt cannot have {n} tokens")
    if not 0 <= cached <= n:
        raise ValueError(f"a cached prefix of {cached} does not fit a prompt of {n} tokens")
    return n * n - cached * cached


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


def step_cost(prompt: int, step: int, mode: Mode) -> int:
    """Cells paid by generation step ``step`` of a ``prompt``-token request.

    Step 1 is the prefill in either mode (``prompt²``). Later steps pay a line
    ``t`` with the KV cache and the full square ``t²`` when recomputing.
    """
    t = context_at_step(prompt, step)
    if step == 1:
        return prefill_cost(t)
    if mode == "kv":
        return t
    if mode == "recompute":
        return t * t
    raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")


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
