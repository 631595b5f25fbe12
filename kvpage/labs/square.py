"""The example lab, "square": what a cold prefill of n tokens pays, n² cells.

It is the smallest complete lab, kept to be copied: this file (the model and its one ``LAB`` declaration)
and one template, ``site_template/labs/square.html`` (``docs/authoring.md`` walks through both). It is
experimental, so no book shows it unless its ``book.toml`` enables it.
"""

from __future__ import annotations

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, count
from kvpage.lab import Lab, Number, Output

TOKENS = Number("tokens", "Tokens", low=1, high=256, default=16)


def compute(args: JSONObject) -> JSONObject:
    """The view for a prompt of ``args["tokens"]`` tokens: its size and the cells its prefill pays, as text."""
    tokens = TOKENS.read(args)
    return {"text": {"tokens": count(tokens), "cells": count(prefill_cost(tokens))}}


LAB = Lab(
    name="square",
    actions={"compute": compute},
    update="compute",
    controls=(TOKENS,),
    outputs=(Output("cells", "Cells a cold prefill pays"), Output("tokens")),
    experimental=True,
)
