"""Prefix matching: how much of a new request an earlier one already paid for, and why only that much.

A prefix cache holds the keys and values of exact token sequences, so reuse is the longest run of
identical tokens from the left ("You" and "you" share nothing). Why from the left follows from what
each entry is computed from (:func:`identical_entries`): the prefix is derived (:func:`reused_count`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate

LAYERS = 4
"""Layers the next-request lab draws: enough to show layer 1 apart from the layers above it. The
chapter counts cells in one layer; every layer pays the same, so more layers multiply every count
and change nothing that is reused."""


def shared_prefix_length(cached: Sequence[str], request: Sequence[str]) -> int:
    """Number of leading tokens of ``request`` identical to those of ``cached``."""
    shared = 0
    for old, new in zip(cached, request, strict=False):
        if old != new:
            break
        shared += 1
    return shared


def identical_entries(cached: Sequence[str], request: Sequence[str], layers: int = LAYERS) -> list[list[bool]]:
    """Whether each keys-and-values entry of ``request`` equals one computed for ``cached``: a row per
    layer (layer 1 first), a column per token of ``request``. An entry is identical iff everything it
    is computed from is:

    - in layer 1, a token's key and value are projections of its embedding with its position mixed
      in (rotary embeddings rotate keys by position): the same text at the same position;
    - in layer ℓ ≥ 2, the entry at position *t* is computed from layer ℓ − 1's output at *t*, which
      attention mixed from layer ℓ − 1's entries at every position up to *t*: all of them identical.

    So the same text one position later differs already in layer 1, and any difference at *j*
    reaches every entry at positions ≥ *j* from layer 2 up."""
    if layers < 1:
        raise ValueError(f"a model has at least one layer, not {layers}")
    held = {(text, at) for at, text in enumerate(cached)}  # what each cached layer-1 entry was computed from
    rows = [[(text, at) in held for at, text in enumerate(request)]]
    for _ in range(1, layers):
        rows.append(list(accumulate(rows[-1], lambda earlier, here: earlier and here)))
    return rows


def reused_columns(identical: Sequence[Sequence[bool]]) -> list[bool]:
    """For each position, whether its entries are identical in every layer: a cache hands over a
    position's keys and values in all layers or not at all, so only these are reused. With two
    layers or more they are the first ones, from the left, as many as :func:`shared_prefix_length`."""
    return [all(column) for column in zip(*identical, strict=True)]


def reused_count(identical: Sequence[Sequence[bool]]) -> int:
    """How many positions of a request a prefix cache hands over, by the dependency rule: from the
    left, those whose entries are identical in every layer of ``identical`` (the rows of
    :func:`identical_entries`; the cache finds a position by every token before it, so it stops at
    the first it does not hold). The next-request lab counts and draws this, so an edit of
    :func:`identical_entries` in the page's editor moves its readouts and its drawings together;
    :func:`shared_prefix_length` is the same number as the chapter states it, the tests' oracle
    (``tests/kvpage/test_prefix_property.py`` checks that the two always agree).

    So the shared prefix is derived instead of assumed: after the first difference every entry from
    layer 2 up differs, and a position is reused (all its layers, :func:`reused_columns`) only before
    it; "the same text again" later does not count."""
    reused = reused_columns(identical)
    return reused.index(False) if False in reused else len(reused)
