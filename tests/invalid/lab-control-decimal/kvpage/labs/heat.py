"""A lab whose slider is given decimals, which a Slider does not take (tests/invalid/lab-control-decimal):
the build names the control's own line, and DecimalSlider."""

from __future__ import annotations

from kvpage.jsonvalue import JSONObject
from kvpage.lab import Lab, Output, Slider

TOKENS = Slider("tokens", "Tokens", low=1, high=64, default=16)
TEMPERATURE = Slider(
    "temperature",
    "Temperature",
    low=0.1,  # type: ignore[arg-type]
    high=2,
    default=1,
)


def compute(args: JSONObject) -> JSONObject:
    return {"text": {"heat": str(TEMPERATURE.read(args) * TOKENS.read(args))}}


LAB = Lab(
    name="heat",
    actions={"compute": compute},
    update="compute",
    controls=(TOKENS, TEMPERATURE),
    outputs=(Output("heat", "Heat"),),
)
