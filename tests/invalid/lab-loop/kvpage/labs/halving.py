"""A lab that loops at its starting values: halving 0 never reaches 1 (tests/invalid/lab-loop)."""

from __future__ import annotations

from kvpage.jsonvalue import JSONObject, count
from kvpage.lab import Lab, Number, Output

TOKENS = Number("tokens", "Tokens", low=0, high=4096, default=16)


def compute(args: JSONObject) -> JSONObject:
    tokens = TOKENS.read(args)
    steps = 0
    while tokens != 1:
        tokens //= 2
        steps += 1
    return {"text": {"steps": count(steps)}}


LAB = Lab(
    name="halving",
    actions={"compute": compute},
    update="compute",
    controls=(TOKENS,),
    outputs=(Output("steps", "Halvings to one token"),),
)
