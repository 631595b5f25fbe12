"""The "runaway" lab, a fixture for the tests: one of its buttons never returns.

The page runs every lab's Python in a Web Worker and stops a call that takes longer than the
book's ``call_timeout`` (``static/kvpage/python.js``). This lab is how the tests make such a
call: "Loop forever" spins until the page terminates its worker, while the slider squares a
number at once, so the tests can see the lab work before the stop and again after it. It is
experimental, and only the test book ``tests/books/runaway/`` enables it.

The snapshot's warm-up calls every action (``kvpage.catalog.warm_up``), so ``loop`` takes
``rounds``, which the page never sends: the warm-up (``warm_up=`` below) spins once and returns.
"""

from __future__ import annotations

from kvpage.jsonvalue import JSONObject, LabInputError, count
from kvpage.lab import Button, Lab, Output, Slider

NUMBER = Slider("n", "Number", low=1, high=12, default=3)


def compute(args: JSONObject) -> JSONObject:
    """``n`` and its square."""
    n = NUMBER.read(args)
    return {"text": {"square": count(n * n)}}


def loop(args: JSONObject) -> JSONObject:
    """Spin ``rounds`` times, or forever when the call does not say (a click never does)."""
    rounds = args.get("rounds")
    if rounds is not None and (not isinstance(rounds, int) or isinstance(rounds, bool)):
        raise LabInputError("rounds must be a whole number")
    done = 0
    while rounds is None or done < rounds:
        done += 1
    return compute(args)


LAB = Lab(
    name="runaway",
    actions={"compute": compute, "loop": loop},
    update="compute",
    controls=(NUMBER,),
    outputs=(Output("square", "Its square"),),
    buttons=(Button("loop", "Loop forever"),),
    warm_up=(("loop", {"n": NUMBER.default, "rounds": 1}),),
    experimental=True,
)
