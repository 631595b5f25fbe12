"""A lab whose module computes at import for longer than the book's build_timeout (tests/invalid/lab-import-slow):
the build names the line the import was running, as import time, not a call of the lab."""

from __future__ import annotations

import itertools

from kvpage.jsonvalue import JSONObject
from kvpage.lab import Lab, Output

TOTAL = sum(n % 7 for n in itertools.count())  # never done, in constant memory


def compute(args: JSONObject) -> JSONObject:
    return {"text": {"size": str(TOTAL)}}


LAB = Lab(name="slow", actions={"compute": compute}, update="compute", outputs=(Output("size", "Size"),))
