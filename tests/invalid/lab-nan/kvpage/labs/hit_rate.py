"""A lab whose starting view holds NaN: no lookups yet, so its hit rate is 0 / 0 (tests/invalid/lab-nan)."""

from __future__ import annotations

import math

from kvpage.jsonvalue import JSONObject, count
from kvpage.lab import Lab, Number, Output

LOOKUPS = Number("lookups", "Lookups", low=0, high=100, default=0)


def compute(args: JSONObject) -> JSONObject:
    lookups = LOOKUPS.read(args)
    hits = lookups // 2
    rate = hits / lookups if lookups else math.nan
    return {"text": {"hits": count(hits)}, "state": {"rate": rate}}


LAB = Lab(
    name="hit-rate",
    actions={"compute": compute},
    update="compute",
    controls=(LOOKUPS,),
    outputs=(Output("hits", "Hits"),),
)
