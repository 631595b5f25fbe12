"""A lab with a syntax error: a missing colon (tests/invalid/lab-syntax-error)."""

from __future__ import annotations

from kvpage.jsonvalue import JSONObject, count
from kvpage.lab import Lab, Number, Output

TOKENS = Number("tokens", "Tokens", low=1, high=4096, default=16)


def compute(args: JSONObject) -> JSONObject:
    tokens = TOKENS.read(args)
    if tokens % 16 == 0
        return {"text": {"pages": count(tokens // 16)}}
    return {"text": {"pages": count(tokens // 16 + 1)}}


LAB = Lab(name="pages", actions={"compute": compute}, update="compute", controls=(TOKENS,), outputs=(Output("pages"),))
