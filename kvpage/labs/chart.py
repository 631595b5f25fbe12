"""The decode lab's running chart: cost per step and paid so far, both modes on the same axes.

The chosen mode is drawn solid and the other faintly, as the counterfactual;
both only as far as the steps taken. The axes are fixed for the whole run
(their tops are the most either mode can reach), so points are added in place
and the gap between the line and the square grows on screen. ``chart_picture``
draws one panel as an SVG element tree and ``table_part`` the same numbers as a
table (:mod:`kvpage.tree`).
"""

from __future__ import annotations

from itertools import accumulate
from typing import cast

from kvpage.costs import MODE_NAMES, MODES, Mode, cumulative_cost, step_cost
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.tree import Attributes, Node, el, num

MOST_TICKS = 5
"""At most this many intervals on a value axis: enough to read, few enough for a phone."""


def nice_ticks(top: int, most: int = MOST_TICKS) -> list[int]:
    """``0`` up to the first round number ≥ ``top``, in at most ``most`` equal steps of 1, 2 or 5 × 10ⁿ."""
    if top <= 0:
        return [0, 1]
    magnitude = 1
    while True:
        for factor in (1, 2, 5):
            step = factor * magnitude
            if step * most >= top:
                intervals = -(-top // step)
                return [i * step for i in range(intervals + 1)]
        magnitude *= 10


def short(n: int) -> str:
    """A tick label that fits a narrow axis: 900, 2.5k, 1.5M."""
    if n < 1_000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1_000:g}k"
    return f"{n / 1_000_000:g}M"


def _axis(top: int) -> JSONObject:
    ticks = nice_ticks(top)
    return {"top": ticks[-1], "ticks": [{"value": tick, "text": short(tick)} for tick in ticks]}


def other(mode: Mode) -> Mode:
    """The counterfactual of ``mode``."""
    return next(m for m in MODES if m != mode)


def costs(prompt: int, steps: int, mode: Mode) -> list[int]:
    """Cells paid at each of the first ``steps`` steps."""
    return [step_cost(prompt, k, mode) for k in range(1, steps + 1)]


def _series(prompt: int, steps: int, mode: Mode, current: bool) -> JSONObject:
    per_step = costs(prompt, steps, mode)
    per_step_json: list[JSONValue] = list(per_step)
    totals: list[JSONValue] = list(accumulate(per_step))
    return {"mode": mode, "name": MODE_NAMES[mode], "current": current, "per_step": per_step_json, "totals": totals}


def _story(mode: Mode, per_step: list[int]) -> str:
    told = f"{MODE_NAMES[mode]} {count(sum(per_step))} ({count(per_step[0])} for the prefill"
    if len(per_step) == 2:
        told += f", then {count(per_step[1])} for one token"
    elif len(per_step) > 2:
        told += f", then {count(per_step[1])} to {count(per_step[-1])} per token"
    return told + ")"


def describe(prompt: int, tokens: int, steps: int, mode: Mode) -> str:
    """The chart in words, numbers included: its text alternative."""
    if steps == 0:
        return (
            f"No steps yet. Both modes begin with the same prefill of {count(step_cost(prompt, 1, mode))} cells, "
            "the time to first token; the chart fills in step by step."
        )
    mine = costs(prompt, steps, mode)
    theirs = costs(prompt, steps, other(mode))
    return f"Cells paid after {steps} of {tokens} steps: {_story(mode, mine)}; {_story(other(mode), theirs)}."


def _annotations(prompt: int, steps: int, mode: Mode) -> list[JSONValue]:
    """Where to write "time to first token" and "per-token cost" on the per-step panel.

    With the KV cache the decode steps are a flat line far below the prefill:
    both labels go above their points, the second over the line's middle.
    Recomputing, the line climbs from the prefill, so the first label goes
    under it and the second over its newest point, clear of each other.
    """
    notes: list[JSONValue] = []
    kv = mode == "kv"
    if steps >= 1:
        first: JSONObject = {"text": "time to first token", "step": 1, "value": step_cost(prompt, 1, mode)}
        notes.append(first | {"place": "above" if kv else "below"})
    if steps >= 2:
        at = (2 + steps) // 2 if kv else steps
        notes.append({"text": "per-token cost", "step": at, "value": step_cost(prompt, at, mode), "place": "above"})
    return notes


def _table(prompt: int, steps: int, mode: Mode) -> JSONObject:
    """The chart as numbers: one row per step, a pair of columns per mode (the chosen one first)."""
    modes = (mode, other(mode))
    by_mode: list[tuple[list[int], list[int]]] = []
    for m in modes:
        per_step = costs(prompt, steps, m)
        by_mode.append((per_step, list(accumulate(per_step))))
    rows: list[JSONValue] = []
    for k in range(steps):
        row: list[JSONValue] = [str(k + 1)]
        for per_step, totals in by_mode:
            row += [count(per_step[k]), count(totals[k])]
        rows.append(row)
    return {
        "groups": [MODE_NAMES[m] for m in modes],
        "columns": ["Step", "this step", "so far", "this step", "so far"],
        "rows": rows,
    }


def chart_view(prompt: int, tokens: int, steps: int, mode: Mode) -> JSONObject:
    """Series, fixed axes, labels and a table of the run so far, for the page to draw."""
    step_top = max(step_cost(prompt, k, m) for m in MODES for k in (1, tokens))
    total_top = max(cumulative_cost(prompt, tokens, m) for m in MODES)
    x_ticks = sorted({1, tokens})
    return {
        "steps": tokens,
        "taken": steps,
        "x": {"ticks": [{"value": tick, "text": str(tick)} for tick in x_ticks]},
        "per_step": _axis(step_top),
        "totals": _axis(total_top),
        "series": [_series(prompt, steps, mode, True), _series(prompt, steps, other(mode), False)],
        "notes": _annotations(prompt, steps, mode),
        "table": _table(prompt, steps, mode),
        "text": describe(prompt, tokens, steps, mode),
    }


WIDTH, HEIGHT = 300, 160
"""The panel's size in SVG units; the page scales it to the column."""
LEFT, RIGHT, TOP, BOTTOM = 36, 12, 12, 26
"""Room for the value axis's labels (left) and the step axis (bottom)."""
PANELS = ("per_step", "totals")


def chart_picture(chart: JSONObject, key: str) -> list[JSONValue]:
    """One panel of ``chart_view`` (``key``: "per_step" or "totals"): rules and ticks, both modes' lines
    and points (the chosen one drawn last, on top), and on the per-step panel the two notes."""
    axis = cast(JSONObject, chart[key])
    steps, top = cast(int, chart["steps"]), cast(int, axis["top"])

    def x(step: int) -> float:
        return (LEFT + WIDTH - RIGHT) / 2 if steps == 1 else LEFT + (step - 1) / (steps - 1) * (WIDTH - LEFT - RIGHT)

    def y(value: int) -> float:
        return HEIGHT - BOTTOM - value / top * (HEIGHT - TOP - BOTTOM)

    shapes: list[Node] = []
    for tick in cast(list[JSONObject], axis["ticks"]):
        at = num(y(cast(int, tick["value"])))
        shapes.append(el("line", {"class": "chart-rule", "x1": LEFT, "x2": WIDTH - RIGHT, "y1": at, "y2": at}))
        label: Attributes = {"class": "chart-tick", "x": LEFT - 4, "y": at, "text-anchor": "end", "dy": "0.32em"}
        shapes.append(el("text", label, cast(str, tick["text"])))
    for tick in cast(list[JSONObject], cast(JSONObject, chart["x"])["ticks"]):
        label = {"class": "chart-tick", "x": num(x(cast(int, tick["value"]))), "y": HEIGHT - BOTTOM + 13}
        shapes.append(el("text", label | {"text-anchor": "middle"}, cast(str, tick["text"])))
    middle: Attributes = {
        "class": "chart-tick",
        "x": num((LEFT + WIDTH - RIGHT) / 2),
        "y": HEIGHT - 3,
        "text-anchor": "middle",
    }
    shapes.append(el("text", middle, "step"))
    series = sorted(cast(list[JSONObject], chart["series"]), key=lambda line: bool(line["current"]))
    for line in series:
        role = "current" if line["current"] else "other"
        values = cast(list[int], line[key])
        points = " ".join(f"{num(x(k))},{num(y(value))}" for k, value in enumerate(values, 1))
        mode = cast(str, line["mode"])
        shapes.append(
            el(
                "polyline",
                {"class": f"series series-{role}", "data-series": role, "data-mode": mode, "points": points},
            )
        )
        for k, value in enumerate(values, 1):
            point: Attributes = {
                "class": f"point point-{role}",
                "data-series": role,
                "data-step": k,
                "data-value": value,
            }
            shapes.append(
                el("circle", point | {"cx": num(x(k)), "cy": num(y(value)), "r": num(2.6 if line["current"] else 1.6)})
            )
    if key == "per_step":
        for note in cast(list[JSONObject], chart["notes"]):
            px, py = x(cast(int, note["step"])), y(cast(int, note["value"]))
            anchor = "end" if px > WIDTH * 0.7 else "start" if px < WIDTH * 0.3 else "middle"
            dx = {"start": 6, "end": -6, "middle": 0}[anchor]
            py = min(HEIGHT - BOTTOM - 4, py + 14) if note["place"] == "below" else max(TOP + 8, py - 8)
            place: Attributes = {"class": "chart-note", "x": num(px + dx), "y": num(py), "text-anchor": anchor}
            shapes.append(el("text", place, cast(str, note["text"])))
    frame: Attributes = {
        "viewBox": f"0 0 {WIDTH} {HEIGHT}",
        "class": "chart-svg",
        "aria-hidden": "true",
        "data-chart": key,
    }
    return [el("svg", frame, *shapes)]


def table_part(chart: JSONObject) -> list[JSONValue]:
    """The contents of the table under the chart: a caption, a column group per mode, a row per step."""
    table = cast(JSONObject, chart["table"])
    groups = [el("th", {"scope": "colgroup", "colspan": 2}, name) for name in cast(list[str], table["groups"])]
    columns = [el("th", {"scope": "col"}, name) for name in cast(list[str], table["columns"])]
    rows = [
        el("tr", {}, el("th", {"scope": "row"}, step), *(el("td", {}, value) for value in values))
        for step, *values in cast(list[list[str]], table["rows"])
    ]
    return [
        el("caption", {}, "Cells per step and in total, both modes"),
        el("colgroup", {}, el("col")),
        el("colgroup", {"span": 2}),
        el("colgroup", {"span": 2}),
        el("thead", {}, el("tr", {}, el("td"), *groups), el("tr", {}, *columns)),
        el("tbody", {}, *rows),
    ]
