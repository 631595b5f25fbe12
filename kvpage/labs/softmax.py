"""The "softmax" lab: scores become shares that sum to one, sharper or flatter with the temperature.

A test fixture: the lab a second author adds with a chapter of their own (``tests/books/added-chapter/``).
It refuses input as a careful lab does (scores must be numbers), so it says what it accepts with ``examples=``
and the generic tests type only those. Experimental: only a book that turns it on shows it.
"""

from __future__ import annotations

import math

from kvpage.jsonvalue import JSONObject, LabInputError
from kvpage.lab import Checkbox, DecimalSlider, Lab, Output, Text
from kvpage.pictures import bar_chart
from kvpage.tree import num

SCORES = Text("scores", "Scores", limit=200, default="2, 1, 0.1", examples=("3, 3, 3", "-1, 0, 5, 2", "4"))
TEMPERATURE = DecimalSlider("temperature", "Temperature", low=0.1, high=5, default=1, step=0.1, examples=(0.5, 2))
SORTED = Checkbox("sorted", "Largest first", default=False)
MOST_SCORES = 12


def scores(args: JSONObject) -> list[float]:
    """The scores the reader typed, separated by commas: at least one, at most MOST_SCORES, all numbers."""
    words = [word.strip() for word in SCORES.read(args).split(",")]
    if not 1 <= len(words) <= MOST_SCORES or not all(words):
        raise LabInputError(f"give 1 to {MOST_SCORES} scores separated by commas")
    try:
        values = [float(word) for word in words]
    except ValueError:
        raise LabInputError("every score must be a number, such as 2 or -0.5") from None
    if not all(math.isfinite(value) and abs(value) <= 1000 for value in values):
        raise LabInputError("every score must be between -1000 and 1000")
    return values


def shares(values: list[float], temperature: float) -> list[float]:
    """softmax(values / temperature), computed from the largest down so nothing overflows."""
    top = max(values)
    weights = [math.exp((value - top) / temperature) for value in values]
    total = sum(weights)
    return [weight / total for weight in weights]


def compute(args: JSONObject) -> JSONObject:
    """The shares of the scores at the temperature, as readouts and a bar chart."""
    values = scores(args)
    found = shares(values, TEMPERATURE.read(args))
    bars = [
        (f"score {index + 1} ({num(value)})", share, f"{100 * share:.1f}%")
        for index, (value, share) in enumerate(zip(values, found, strict=True))
    ]
    if SORTED.read(args):
        bars.sort(key=lambda bar: -bar[1])
    entropy = -sum(share * math.log2(share) for share in found if share > 0)
    summary = f"The shares of {len(values)} scores at temperature {TEMPERATURE.shown(TEMPERATURE.read(args))}."
    return {
        "text": {"largest": f"{100 * max(found):.1f}%", "entropy": f"{entropy:.2f} bits"},
        "parts": {"bars": bar_chart(bars, summary, top=1)},
    }


LAB = Lab(
    name="softmax",
    actions={"compute": compute},
    update="compute",
    controls=(SCORES, TEMPERATURE, SORTED),
    outputs=(Output("largest", "Largest share"), Output("entropy", "Entropy"), Output("bars", "Shares", "picture")),
    experimental=True,
)
