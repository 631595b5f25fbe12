"""The dependency rule, for any two requests: what it reuses is exactly the shared prefix, in every layer.

:func:`kvpage.prefix.identical_entries` derives reuse from what each entry is computed from (layer 1:
its token's text and position; layer ℓ ≥ 2: layer ℓ − 1 up to its position); the chapter states it
as a rule ("The match is exact, from the left"), :func:`kvpage.prefix.shared_prefix_length`; the lab
counts by the first (:func:`kvpage.prefix.reused_count`), the tests expect the second. Here
hypothesis checks, on requests drawn from a few tokens (so that equal text after a difference, and
repeats, are common), that the two always agree, and that a shift by one position changes layer 1
too. hypothesis is not among the wheels the Pyodide run installs (tests/pyodide/requirements.txt),
so there this module is skipped, saying so; the rule's examples in test_prefix.py run there too.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from kvpage.prefix import identical_entries, reused_columns, reused_count, shared_prefix_length

hypothesis = pytest.importorskip(
    "hypothesis", reason="hypothesis is not in the Pyodide run's wheels (tests/pyodide/requirements.txt)"
)
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TOKENS = st.lists(st.sampled_from(["You", " are", " a", " precise", ":", " 2", "+", "?", "\n"]), max_size=24)
LAYERS = st.integers(min_value=2, max_value=6)


@given(TOKENS, TOKENS, LAYERS)
def test_reused_entries_are_exactly_the_shared_prefix_in_every_layer(
    cached: list[str], request: list[str], layers: int
) -> None:
    shared = shared_prefix_length(cached, request)
    identical = identical_entries(cached, request, layers)
    prefix = [at < shared for at in range(len(request))]
    assert reused_columns(identical) == prefix
    assert sum(reused_columns(identical)) == shared == reused_count(identical)  # what the lab counts
    assert all(row == prefix for row in identical[1:])  # from layer 2 up: only the prefix, whatever the text after it
    assert identical[0] == [at < len(cached) and cached[at] == text for at, text in enumerate(request)]


@given(TOKENS.filter(bool), st.sampled_from(["\n", " ", "Hi"]), LAYERS)
def test_a_token_in_front_shifts_every_position_and_layer_1_differs_too(
    cached: list[str], front: str, layers: int
) -> None:
    identical = identical_entries(cached, [front, *cached], layers)
    moved = identical[0][1:]
    assert moved == [at + 1 < len(cached) and cached[at] == cached[at + 1] for at in range(len(cached))]
    if all(a != b for a, b in pairwise(cached)):
        assert not any(moved)  # no token equals its neighbour: every shifted token's layer-1 entry differs
    assert sum(reused_columns(identical)) == shared_prefix_length(cached, [front, *cached])
