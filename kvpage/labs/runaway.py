"""The "runaway" lab, a fixture for the tests: one of its buttons never returns.

The page stops a call that takes longer than the book's ``call_timeout``; this lab is how the tests
make such calls (:func:`loop`, :func:`think`, :func:`nan`, :data:`STALLS_AT`). It is experimental,
and only the test book ``tests/books/runaway/`` enables it.
"""

from __future__ import annotations

import math
import time

from kvpage.jsonvalue import JSONObject, LabInputError, count
from kvpage.lab import Button, Lab, Output, Slider

NUMBER = Slider("n", "Number", low=1, high=12, default=3)
STALLS_AT = 11
"""The slider's one value whose square never comes: the update spins there until the page stops it.

The slider squares a number at once, so the tests can see the lab work before a stop and again after
it, except here: a failure at a value the build's sweep never tried (this book's sweep is off), which
the page shows with the reader's values kept.
"""


def compute(args: JSONObject) -> JSONObject:
    """``n`` and its square; at :data:`STALLS_AT`, no answer at all."""
    n = NUMBER.read(args)
    while n == STALLS_AT:
        pass
    return {"text": {"square": count(n * n)}}


def loop(args: JSONObject) -> JSONObject:
    """Spin ``rounds`` times, or forever when the call does not say (a click never does).

    The page runs every lab's Python in a Web Worker and stops a call that takes longer than the
    book's ``call_timeout`` (``static/kvpage/python.js``): "Loop forever" spins until the page
    terminates its worker.
    """
    rounds = args.get("rounds")
    if rounds is not None and (not isinstance(rounds, int) or isinstance(rounds, bool)):
        raise LabInputError("rounds must be a whole number")
    done = 0
    while rounds is None or done < rounds:
        done += 1
    return compute(args)


def think(args: JSONObject) -> JSONObject:
    """Spin for ``seconds`` (one when the call does not say) of the clock, then answer as ``compute``.

    "Think for a second" is a slow call that returns: while it runs, the page starts its spare Python.
    """
    seconds = args.get("seconds", 1)
    if not isinstance(seconds, int | float) or isinstance(seconds, bool) or not 0 <= seconds <= 10:
        raise LabInputError("seconds must be a number from 0 to 10")
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        pass
    return compute(args)


def nan(args: JSONObject) -> JSONObject:
    """``compute``'s view with a ratio of 0 / 0 in its state: NaN, unless the call says ``finite``.

    "Answer with NaN" returns a view that JSON cannot carry, which the bridge refuses as a failure
    naming the action (shown in the lab).
    """
    ratio = 0.0 if args.get("finite") is True else math.nan
    return {**compute(args), "state": {"ratio": ratio}}


LAB = Lab(
    name="runaway",
    actions={"compute": compute, "loop": loop, "think": think, "nan": nan},
    update="compute",
    controls=(NUMBER,),
    outputs=(Output("square", "Its square"),),
    buttons=(
        Button("think", "Think for a second"),
        Button("loop", "Loop forever"),
        Button("nan", "Answer with NaN"),
    ),
    warm_up=(
        ("loop", {"n": NUMBER.default, "rounds": 1}),
        ("think", {"n": NUMBER.default, "seconds": 0}),
        ("nan", {"n": NUMBER.default, "finite": True}),
    ),
    experimental=True,
)
"""The lab. The snapshot's warm-up calls every action (``kvpage.catalog.warm_up``), so ``loop`` takes
``rounds``, ``think`` takes ``seconds`` and ``nan`` takes ``finite``, which the page never sends: the
warm-up (``warm_up=`` above) spins once, returns at once and gets a number JSON can carry."""
