"""A lab right at its starting values and wrong at others (tests/invalid/lab-sweep): the build's sweep
finds a ZeroDivisionError at the slider's lowest value and a picture over the bridge's cap at its highest."""

from __future__ import annotations

from kvpage.jsonvalue import JSONObject
from kvpage.lab import Lab, Output, Slider
from kvpage.tree import el

PARTS = Slider("parts", "Parts", low=0, high=12_000, default=4)


def compute(args: JSONObject) -> JSONObject:
    parts = PARTS.read(args)
    each = 100 // parts
    dots = [el("circle", {"cx": index, "cy": 1, "r": 1}) for index in range(parts)]
    return {"text": {"each": f"{each}%"}, "parts": {"dots": [el("svg", {"viewBox": "0 0 10 2"}, *dots)]}}


LAB = Lab(
    name="share",
    actions={"compute": compute},
    update="compute",
    controls=(PARTS,),
    outputs=(Output("each", "Each part"), Output("dots", "Parts", "picture")),
)
