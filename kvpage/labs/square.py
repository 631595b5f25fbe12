"""The example lab, "square": what a cold prefill of n tokens pays, n² cells.

It is the smallest complete lab, kept to be copied: one model function here,
one template (``site_template/labs/square.html``), one entry in
``sitegen/labs.py`` and a test (``docs/authoring.md`` walks through them). It is
experimental, so no book shows it unless its ``book.toml`` enables it.
"""

from __future__ import annotations

from typing import cast

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, LabInputError, count, field

TOKENS_RANGE = range(1, 256 + 1)


def compute(args: JSONObject) -> JSONObject:
    """The view for a prompt of ``args["tokens"]`` tokens: its size and the cells its prefill pays."""
    tokens = cast(int, field(args, "tokens", int))
    if tokens not in TOKENS_RANGE:
        raise LabInputError(f"Tokens must be between {TOKENS_RANGE.start} and {TOKENS_RANGE.stop - 1}, not {tokens}")
    cells = prefill_cost(tokens)
    return {"tokens": tokens, "cells": cells, "text": {"tokens": count(tokens), "cells": count(cells)}}
