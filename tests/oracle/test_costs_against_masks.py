"""An independent oracle: count the cells of explicit attention masks with numpy.

The model's one rule (kvpage.costs.paid_cells, which cells a step pays) and the costs counted
from it are checked against what attention actually computes: a mask over the tokens processed,
minus the rows a cache held, and the chapter's closed forms (n² − p², t, t²). A reader's edit of
the rule (tests/reader_model.py: a causal prefill) is checked against a causal mask.
CPython only (numpy never ships to the browser).
"""

import json

import numpy as np
import pytest

from kvpage.costs import Row, cumulative_cost, paid_cells, prefill_cells, prefill_cost, step_cost
from tests.reader_model import CAUSAL, COSTS, edited_views


def mask_of(rows: list[Row], size: int) -> np.ndarray:
    """The rule's rows as an explicit mask: 1 where a (query, key) cell is paid (each cell once)."""
    mask = np.zeros((size, size), dtype=np.int64)
    for query, keys in rows:
        assert mask[query, list(keys)].sum() == 0, f"query {query} pays a key twice"
        mask[query, list(keys)] = 1
    return mask


def causal_cells(queries: range, keys: int) -> int:
    """Cells of a causal attention mask: query i sees keys 0..i (full rows for `keys` keys)."""
    mask = np.tril(np.ones((keys, keys), dtype=np.int64))
    return int(mask[queries.start : queries.stop].sum())


def square_cells(n: int) -> int:
    """The chapter's unit: every token of the prompt against every token (n x n)."""
    return int(np.ones((n, n), dtype=np.int64).sum())


@pytest.mark.parametrize("n", [0, 1, 2, 14, 16, 128])
def test_cold_prefill_counts_the_full_square(n: int) -> None:
    assert prefill_cost(n) == square_cells(n)


@pytest.mark.parametrize(("n", "p"), [(14, 10), (16, 0), (16, 16), (128, 37)])
def test_cached_prefix_saves_exactly_its_square(n: int, p: int) -> None:
    full = np.ones((n, n), dtype=np.int64)
    full[:p, :p] = 0  # the block request 1 already paid
    assert prefill_cost(n, p) == int(full.sum())


@pytest.mark.parametrize(("prompt", "steps"), [(16, 16), (1, 64), (128, 64), (7, 3)])
def test_decode_with_cache_is_one_row_per_step(prompt: int, steps: int) -> None:
    paid = square_cells(prompt)
    for k in range(2, steps + 1):
        t = prompt + k - 1
        row = np.ones((1, t), dtype=np.int64)  # the new query against every cached key
        paid += int(row.sum())
        assert step_cost(prompt, k, "kv") == int(row.sum())
    assert cumulative_cost(prompt, steps, "kv") == paid


@pytest.mark.parametrize(("prompt", "steps"), [(16, 16), (3, 10)])
def test_recompute_pays_the_square_every_step(prompt: int, steps: int) -> None:
    total = sum(square_cells(prompt + max(k - 1, 0)) for k in range(1, steps + 1))
    assert cumulative_cost(prompt, steps, "recompute") == total


def test_causal_masks_halve_but_do_not_change_the_order() -> None:
    """Why the chapter's square is an honest unit: the causal count is (n² + n) / 2, still quadratic."""
    for n in (4, 16, 128):
        assert causal_cells(range(0, n), n) == (prefill_cost(n) + n) // 2


@pytest.mark.parametrize(("n", "p"), [(16, 0), (14, 10), (128, 37), (1, 1)])
def test_the_rules_prefill_cells_are_the_square_less_the_cached_corner(n: int, p: int) -> None:
    full = np.ones((n, n), dtype=np.int64)
    full[:p, :p] = 0
    assert (mask_of(prefill_cells(n, p), n) == full).all()


@pytest.mark.parametrize(("prompt", "steps"), [(16, 16), (3, 10), (1, 5)])
def test_the_rules_decode_cells_are_a_row_with_the_cache_and_the_square_without(prompt: int, steps: int) -> None:
    for k in range(2, steps + 1):
        t = prompt + k - 1
        row = np.zeros((t, t), dtype=np.int64)
        row[t - 1, :] = 1  # the new query against every key so far
        assert (mask_of(paid_cells(prompt, k, "kv"), t) == row).all()
        assert (mask_of(paid_cells(prompt, k, "recompute"), t) == np.ones((t, t), dtype=np.int64)).all()


def test_the_readers_causal_prefill_pays_a_causal_masks_cells() -> None:
    """The editor's exercise (a causal prefill), run as the page runs it: each step's readout is the
    causal mask's count, the prefill's and every recomputed square's."""
    prompt, tokens = 16, 16
    requests = [
        json.dumps({"lab": "decode", "action": "resume", "args": {**args, "state": {"steps": k}}})
        for args in ({"prompt": prompt, "tokens": tokens, "mode": "recompute"},)
        for k in range(1, tokens + 1)
    ]
    for k, view in enumerate(edited_views({COSTS: CAUSAL}, requests), 1):
        t = prompt + k - 1 if k > 1 else prompt
        shown = int(view["text"]["this_step"].split("\xa0")[0].replace(",", ""))
        assert shown == causal_cells(range(0, t), t), k
