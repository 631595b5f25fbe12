"""Prefix matching: how much of a new request an earlier one already paid for.

A prefix cache holds the keys and values of exact token sequences, so reuse is
the longest run of identical tokens from the left. Similar is not identical:
"You" and "you" share nothing.
"""

from __future__ import annotations

from collections.abc import Sequence


def shared_prefix_length(cached: Sequence[str], request: Sequence[str]) -> int:
    """Number of leading tokens of ``request`` identical to those of ``cached``."""
    shared = 0
    for old, new in zip(cached, request, strict=False):
        if old != new:
            break
        shared += 1
    return shared
