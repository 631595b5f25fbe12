"""An independent oracle: count the cells of explicit attention masks with numpy.

The closed forms in kvpage.costs are checked against what attention actually
computes: a causal mask over the tokens processed, minus the rows a cache held.
CPython only (numpy never ships to the browser).
"""

import numpy as np
import pytest

from kvpage.costs import cumulative_cost, prefill_cost, step_cost


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
