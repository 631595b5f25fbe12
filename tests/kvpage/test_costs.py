"""Closed forms of the cost model, and the seed's figures."""

import pytest

from kvpage.costs import context_at_step, cumulative_cost, prefill_cost, recompute_baseline, step_cost


def test_cold_prefill_is_the_square() -> None:
    assert prefill_cost(16) == 256
    assert prefill_cost(14) == 196
    assert prefill_cost(0) == 0


def test_cached_prefix_removes_its_square() -> None:
    assert prefill_cost(14, cached=10) == 96
    assert prefill_cost(14, cached=14) == 0


@pytest.mark.parametrize(("n", "cached"), [(-1, 0), (3, 4), (3, -1)])
def test_impossible_prefills_are_refused(n: int, cached: int) -> None:
    with pytest.raises(ValueError):
        prefill_cost(n, cached)


def test_cache_never_costs_more_than_cold() -> None:
    for n in range(0, 60):
        for cached in range(0, n + 1):
            assert 0 <= prefill_cost(n, cached) <= prefill_cost(n)


def test_step_one_is_the_prefill_in_both_modes() -> None:
    assert step_cost(16, 1, "kv") == step_cost(16, 1, "recompute") == 256


def test_decode_step_is_a_line_with_the_cache_and_a_square_without() -> None:
    assert context_at_step(16, 2) == 17
    assert step_cost(16, 2, "kv") == 17
    assert step_cost(16, 2, "recompute") == 17 * 17
    assert step_cost(16, 16, "kv") == 31


def test_seed_run_totals() -> None:
    assert cumulative_cost(16, 16, "kv") == 616
    assert cumulative_cost(16, 16, "recompute") == 9176
    assert recompute_baseline(16, 16) == 9176


def test_baseline_before_any_step_is_the_prefill_about_to_be_paid() -> None:
    assert recompute_baseline(16, 0) == 256
    assert cumulative_cost(16, 0, "kv") == 0


def test_kv_never_costs_more_than_recompute() -> None:
    for prompt in (1, 2, 16, 128):
        for steps in range(0, 65):
            assert cumulative_cost(prompt, steps, "kv") <= cumulative_cost(prompt, steps, "recompute")


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        step_cost(4, 2, "fast")  # type: ignore[arg-type]
