"""A lab whose default is outside its own range (tests/invalid/lab-default-out-of-range): one error, at the
control's line, and none after it (issue 46): not the starting view, the warm-up or the sweep at that default."""

from __future__ import annotations

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, count
from kvpage.lab import Lab, Output, Slider

TOKENS = Slider("tokens", "Prompt tokens", low=1, high=64, default=100)


def compute(args: JSONObject) -> JSONObject:
    return {"text": {"paid": count(prefill_cost(TOKENS.read(args)))}}


LAB = Lab(name="budget", actions={"compute": compute}, update="compute", controls=(TOKENS,), outputs=(Output("paid"),))
