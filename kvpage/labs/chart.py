"""The decode lab's running chart: cost per step and paid so far, both modes on the same axes.

Both modes' whole runs are drawn faintly from the start, so the reader sees what will happen
before pressing anything; the steps taken are drawn over them, bold, and the chosen mode with its
points. Each mode keeps its colour whichever is chosen (the page's ``--kv`` and ``--recompute``),
Recompute is dashed as well, and each line is named at its end: colour is never the only cue.
The axes are fixed for the whole run (their tops are the most either mode can reach), so points
are added in place and the gap between the line and the square grows on screen.

On a linear axis that holds Recompute's square, the KV cache's per-step line (17 to 31 cells
under 1,000) reads as flat zero. An inset draws it again on its own axis, in a corner no line
crosses: its growth of one cell per step is the lesson, and the main axis stays linear, since a
log axis would shrink the very gap between line and square the chart exists to show, and a
second axis would invite reading one mode's values on the other's scale. Labels and the inset
are placed where no line passes (checked against every segment drawn), or left out: the chart's
words say everything either way. ``chart_picture`` draws one panel as an SVG element tree and
``table_part`` the same numbers as a table (:mod:`kvpage.tree`).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate, pairwise
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


def _series(prompt: int, tokens: int, steps: int, mode: Mode, current: bool) -> JSONObject:
    whole = costs(prompt, tokens, mode)
    whole_totals = list(accumulate(whole))
    return {
        "mode": mode,
        "name": MODE_NAMES[mode],
        "current": current,
        "per_step": cast(list[JSONValue], whole[:steps]),
        "totals": cast(list[JSONValue], whole_totals[:steps]),
        "whole": {"per_step": cast(list[JSONValue], whole), "totals": cast(list[JSONValue], whole_totals)},
    }


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
    """What to write on the per-step panel, at which point: "time to first token" at the prefill,
    "per-token cost" at the middle of the chosen mode's decode steps. Where each goes (clear of
    every line) is the picture's to find."""
    notes: list[JSONValue] = []
    if steps >= 1:
        notes.append({"text": "time to first token", "step": 1, "value": step_cost(prompt, 1, mode)})
    if steps >= 2:
        at = (2 + steps) // 2
        notes.append({"text": "per-token cost", "step": at, "value": step_cost(prompt, at, mode)})
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
        "series": [_series(prompt, tokens, steps, m, m == mode) for m in MODES],
        "notes": _annotations(prompt, steps, mode),
        "table": _table(prompt, steps, mode),
        "text": describe(prompt, tokens, steps, mode),
    }


WIDTH, HEIGHT = 340, 166
"""The panel's size in SVG units; the page scales it to the column."""
LEFT, RIGHT, TOP, BOTTOM = 36, 62, 18, 26
"""Room for the value axis's labels and unit (left, top), the lines' names (right) and the step axis (bottom)."""
PANELS = ("per_step", "totals")
CHAR, LINE = 5.6, 10.0
"""The width of a character and the height of a line of the charts' 10-unit text, for placing labels."""
INSET_W, INSET_H = 96, 50
"""The size of the KV cache's inset on the per-step panel, in SVG units, its axis labels included."""

NOTE_PLACES = (
    *((dx, dy, "start") for dx in (6, 18, 30) for dy in (14, -6, 24, -16)),
    (0, -8, "middle"),
    (0, 16, "middle"),
    (-6, -6, "end"),
)
"""Where a note may go from its point, in order of preference: right of it first, then over or under it."""

Box = tuple[float, float, float, float]
"""A rectangle as (left, top, right, bottom) in SVG units."""
Segment = tuple[float, float, float, float]


def crosses(box: Box, segment: Segment) -> bool:
    """Whether ``segment`` passes through ``box`` (Liang–Barsky clipping)."""
    x0, y0, x1, y1 = segment
    left, top, right, bottom = box
    low, high = 0.0, 1.0
    for p, q in ((x0 - x1, x0 - left), (x1 - x0, right - x0), (y0 - y1, y0 - top), (y1 - y0, bottom - y0)):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                low = max(low, t)
            else:
                high = min(high, t)
            if low > high:
                return False
    return True


def clear(box: Box, segments: list[Segment], taken: list[Box]) -> bool:
    """Whether ``box`` lies inside the plot, touches no line and overlaps no box already placed."""
    left, top, right, bottom = box
    inside = left >= LEFT and right <= WIDTH - RIGHT and top >= TOP and bottom <= HEIGHT - BOTTOM
    overlaps = any(left < r and other_left < right and top < b and t < bottom for other_left, t, r, b in taken)
    return inside and not overlaps and not any(crosses(box, segment) for segment in segments)


def text_box(x: float, y: float, text: str, anchor: str) -> Box:
    """The box of a 10-unit text at (``x``, ``y``) (its baseline), by its anchor, with a unit of margin."""
    width = len(text) * CHAR
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    return (left - 1, y - LINE + 1, left + width + 1, y + 3)


def spread(wanted: list[float], gap: float, low: float, high: float) -> list[float]:
    """Positions as near ``wanted`` as can be, each ``gap`` from the next, within ``low``..``high``."""
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [0.0] * len(wanted)
    last = low - gap
    for i in order:
        last = max(wanted[i], last + gap)
        placed[i] = last
    overflow = max(0.0, last - high)
    return [min(high, at - overflow) if overflow else at for at in placed]


def chart_picture(chart: JSONObject, key: str) -> list[JSONValue]:
    """One panel of ``chart_view`` (``key``: "per_step" or "totals"): rules and ticks with the unit,
    both modes' whole runs faintly, the steps taken over them, each line's name at its end, a rule
    at the step shown, and on the per-step panel the two notes and the KV cache's inset."""
    axis = cast(JSONObject, chart[key])
    steps, taken, top = cast(int, chart["steps"]), cast(int, chart["taken"]), cast(int, axis["top"])

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
    shapes.append(
        el("text", {"class": "chart-tick chart-unit", "x": LEFT - 4, "y": TOP - 8, "text-anchor": "end"}, "cells")
    )
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
    if taken:
        now: Attributes = {
            "class": "chart-now",
            "x1": num(x(taken)),
            "x2": num(x(taken)),
            "y1": TOP,
            "y2": HEIGHT - BOTTOM,
        }
        shapes.append(el("line", now | {"data-step": taken}))
    lines = cast(list[JSONObject], chart["series"])
    segments: list[Segment] = []
    for line in lines:
        whole = cast(list[int], cast(JSONObject, line["whole"])[key])
        xy = [(x(k), y(value)) for k, value in enumerate(whole, 1)]
        segments += [(*a, *b) for a, b in pairwise(xy)] or [(*xy[0], *xy[0])]
        mode = cast(str, line["mode"])
        points = " ".join(f"{num(px)},{num(py)}" for px, py in xy)
        preview: Attributes = {"class": f"series-preview series-{mode}", "data-mode": mode, "points": points}
        shapes.append(el("polyline", preview | {"data-series": "preview"}))
    for line in sorted(lines, key=lambda line: bool(line["current"])):
        role = "current" if line["current"] else "other"
        values = cast(list[int], line[key])
        mode = cast(str, line["mode"])
        points = " ".join(f"{num(x(k))},{num(y(value))}" for k, value in enumerate(values, 1))
        drawn: Attributes = {"class": f"series series-{role} series-{mode}", "data-series": role, "data-mode": mode}
        shapes.append(el("polyline", drawn | {"points": points}))
        for k, value in enumerate(values, 1):
            point: Attributes = {
                "class": f"point point-{role} point-{mode}",
                "data-series": role,
                "data-step": k,
                "data-value": value,
            }
            shapes.append(
                el("circle", point | {"cx": num(x(k)), "cy": num(y(value)), "r": num(2.6 if line["current"] else 1.8)})
            )
    placed: list[Box] = []
    ends = [y(cast(list[int], cast(JSONObject, line["whole"])[key])[-1]) + 3.5 for line in lines]
    for line, end_y in zip(lines, spread(ends, LINE + 1, TOP + LINE - 3, HEIGHT - BOTTOM + 3), strict=True):
        mode = cast(str, line["mode"])
        end: Attributes = {
            "class": f"chart-end chart-end-{mode}",
            "data-mode": mode,
            "x": num(x(steps) + 5),
            "y": num(end_y),
        }
        shapes.append(el("text", end, cast(str, line["name"])))
    if key == "per_step":
        rule: list[Segment] = (
            [(x(taken), TOP, x(taken), HEIGHT - BOTTOM)] if taken else []
        )  # the step shown: no note on it either
        shapes += _notes(chart, x, y, segments + rule, placed)
        shapes += _inset(chart, segments, placed)
    frame: Attributes = {
        "viewBox": f"0 0 {WIDTH} {HEIGHT}",
        "class": "chart-svg",
        "aria-hidden": "true",
        "data-chart": key,
    }
    return [el("svg", frame, *shapes)]


def _notes(
    chart: JSONObject, x: Callable[[int], float], y: Callable[[int], float], segments: list[Segment], placed: list[Box]
) -> list[Node]:
    """The per-step panel's notes, each at the first place around its point that no line crosses."""
    shapes: list[Node] = []
    for note in cast(list[JSONObject], chart["notes"]):
        px, py, text = x(cast(int, note["step"])), y(cast(int, note["value"])), cast(str, note["text"])
        for dx, dy, anchor in NOTE_PLACES:
            box = text_box(px + dx, py + dy, text, anchor)
            if clear(box, segments, placed):
                placed.append(box)
                place: Attributes = {"class": "chart-note", "x": num(px + dx), "y": num(py + dy), "text-anchor": anchor}
                shapes.append(el("text", place, text))
                break
    return shapes


def _inset(chart: JSONObject, segments: list[Segment], placed: list[Box]) -> list[Node]:
    """The KV cache's decode steps (2 onwards) on their own axis, from the first's value to the last's
    (both labelled), in the first corner of the plot no line crosses: one cell more each step,
    which the main axis cannot show. None for fewer than three
    steps (one decode step is a point, not a growth) or where no corner is clear."""
    kv = next(line for line in cast(list[JSONObject], chart["series"]) if line["mode"] == "kv")
    whole = cast(list[int], cast(JSONObject, kv["whole"])["per_step"])[1:]
    if len(whole) < 2:
        return []
    spots = [(LEFT + 4 + dx, TOP + dy) for dy in range(0, HEIGHT - TOP - BOTTOM - INSET_H, 6) for dx in (0, 60, 120)]
    spot = next((s for s in spots if clear((*s, s[0] + INSET_W, s[1] + INSET_H), segments, placed)), None)
    if spot is None:
        return []
    left, top = spot
    placed.append((left, top, left + INSET_W, top + INSET_H))
    low, high = whole[0], whole[-1]  # the axis runs from the first decode step's value to the last's
    plot_left, plot_top, plot_right, plot_bottom = left + 22, top + 17, left + INSET_W - 4, top + INSET_H - 5

    def ix(i: int) -> float:
        return plot_left + i / (len(whole) - 1) * (plot_right - plot_left)

    def iy(value: int) -> float:
        return plot_bottom - (value - low) / (high - low) * (plot_bottom - plot_top)

    shapes: list[Node] = [
        el("rect", {"class": "chart-inset", "x": num(left), "y": num(top), "width": INSET_W, "height": INSET_H}),
        el("text", {"class": "chart-tick", "x": num(left + 3), "y": num(top + 9)}, "KV cache, zoomed"),
    ]
    for tick in (low, high):
        label: Attributes = {"class": "chart-tick", "x": num(plot_left - 3), "y": num(iy(tick)), "dy": "0.32em"}
        shapes.append(el("text", label | {"text-anchor": "end"}, short(tick)))
    points = " ".join(f"{num(ix(i))},{num(iy(value))}" for i, value in enumerate(whole))
    shapes.append(el("polyline", {"class": "series-preview series-kv", "data-mode": "kv", "points": points}))
    taken = cast(list[int], kv["per_step"])[1:]
    if taken:
        points = " ".join(f"{num(ix(i))},{num(iy(value))}" for i, value in enumerate(taken))
        drawn: Attributes = {"class": "series series-kv", "data-series": "inset", "data-mode": "kv", "points": points}
        shapes.append(el("polyline", drawn))
    return [el("g", {"class": "chart-inset-group", "data-inset": "kv"}, *shapes)]


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
