"""A run's chart, panel by panel (the decode lab's two): every series drawn whole and faintly from the
start, the steps taken over it, on axes fixed for the run, each line named at its end (colour is never
the only cue), notes and an inset placed where no line passes. Built from a :class:`RunChart`, not
from JSON read back through casts (decision 0061).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from kvpage.jsonvalue import JSONValue
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


@dataclass(frozen=True)
class Tick:
    """A labelled value on an axis."""

    value: int
    text: str


@dataclass(frozen=True)
class Axis:
    """A value axis from 0 to ``top``, its ticks labelled."""

    top: int
    ticks: tuple[Tick, ...]


def axis(top: int) -> Axis:
    """A value axis from 0 past ``top``: its top and its ticks, each with its label (:func:`short`)."""
    ticks = nice_ticks(top)
    return Axis(ticks[-1], tuple(Tick(tick, short(tick)) for tick in ticks))


@dataclass(frozen=True)
class Line:
    """One series of a run: its ``mode`` is its class (``series-MODE``) and colour, ``name`` is written at
    its end; ``taken`` holds the values of the steps taken and ``whole`` every step's, by panel key."""

    mode: str
    name: str
    current: bool
    taken: Mapping[str, Sequence[int]]
    whole: Mapping[str, Sequence[int]]


@dataclass(frozen=True)
class Note:
    """Words to write near the point (``step``, ``value``), where no line crosses them."""

    text: str
    step: int
    value: int


@dataclass(frozen=True)
class RunChart:
    """A run of ``steps`` steps, ``taken`` of them done: the step axis's ticks, a value axis per panel
    key, the series and the notes (``kvpage.labs.chart.chart_view`` builds the decode lab's)."""

    steps: int
    taken: int
    x_ticks: tuple[Tick, ...]
    axes: Mapping[str, Axis]
    series: tuple[Line, ...]
    notes: tuple[Note, ...] = ()


WIDTH, HEIGHT = 340, 166
"""The panel's size in SVG units; the page scales it to the column."""
LEFT, RIGHT, TOP, BOTTOM = 36, 62, 18, 26
"""Room for the value axis's labels and unit (left, top), the lines' names (right) and the step axis (bottom)."""
CHAR, LINE = 5.6, 10.0
"""The width of a character and the height of a line of the charts' 10-unit text, for placing labels."""
INSET_W, INSET_H = 96, 50
"""The size of an inset, in SVG units, its axis labels included."""

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


@dataclass(frozen=True)
class Inset:
    """A series drawn again, from its second point on, on an axis of its own: ``label`` names it."""

    series: str
    """The series' key (its ``mode``)."""
    label: str


def panel_chart(
    chart: RunChart, key: str, *, unit: str, x_name: str, notes: bool = False, inset: Inset | None = None
) -> list[JSONValue]:
    """One panel of a run's chart: the values under ``key`` of each series in ``chart``, on fixed axes.

    Rules and ticks with the ``unit``, the x axis named ``x_name``; every series' whole run faintly,
    the steps taken over it (the current series with its points), each line's name at its end, a rule
    at the step shown; with ``notes``, the chart's notes, each where no line crosses it; with
    ``inset``, that series' growth on an axis of its own, in a corner no line crosses.

    ``chart`` (:class:`RunChart`) holds each series' values and the value axis under ``key``.

    A series too small for the main axis (the KV cache's per-step line under Recompute's square) can be drawn
    again in an inset, on its own axis, in a corner no line crosses; the main axis stays linear, since a log
    axis would shrink the very gap the chart exists to show. Labels, notes and the inset are placed where no
    line passes (checked against every segment drawn), or left out: the chart's words say everything either
    way. Unlike :mod:`kvpage.pictures.basic`, the words are SVG text in the panel's own units, scaled with it,
    because they sit at points of the lines. Each series keeps its class (``series-MODE``: its colour in
    ``static/kvpage.css``, dashed for some) whichever is current.
    """
    steps, taken, top = chart.steps, chart.taken, chart.axes[key].top

    def x(step: int) -> float:
        return (LEFT + WIDTH - RIGHT) / 2 if steps == 1 else LEFT + (step - 1) / (steps - 1) * (WIDTH - LEFT - RIGHT)

    def y(value: int) -> float:
        return HEIGHT - BOTTOM - value / top * (HEIGHT - TOP - BOTTOM)

    shapes: list[Node] = []
    for tick in chart.axes[key].ticks:
        at = num(y(tick.value))
        shapes.append(el("line", {"class": "chart-rule", "x1": LEFT, "x2": WIDTH - RIGHT, "y1": at, "y2": at}))
        label: Attributes = {"class": "chart-tick", "x": LEFT - 4, "y": at, "text-anchor": "end", "dy": "0.32em"}
        shapes.append(el("text", label, tick.text))
    shapes.append(
        el("text", {"class": "chart-tick chart-unit", "x": LEFT - 4, "y": TOP - 8, "text-anchor": "end"}, unit)
    )
    for tick in chart.x_ticks:
        label = {"class": "chart-tick", "x": num(x(tick.value)), "y": HEIGHT - BOTTOM + 13}
        shapes.append(el("text", label | {"text-anchor": "middle"}, tick.text))
    middle: Attributes = {
        "class": "chart-tick",
        "x": num((LEFT + WIDTH - RIGHT) / 2),
        "y": HEIGHT - 3,
        "text-anchor": "middle",
    }
    shapes.append(el("text", middle, x_name))
    if taken:
        now: Attributes = {
            "class": "chart-now",
            "x1": num(x(taken)),
            "x2": num(x(taken)),
            "y1": TOP,
            "y2": HEIGHT - BOTTOM,
        }
        shapes.append(el("line", now | {"data-step": taken}))
    lines = chart.series
    segments: list[Segment] = []
    for line in lines:
        xy = [(x(k), y(value)) for k, value in enumerate(line.whole[key], 1)]
        segments += [(*a, *b) for a, b in pairwise(xy)] or [(*xy[0], *xy[0])]
        mode = line.mode
        points = " ".join(f"{num(px)},{num(py)}" for px, py in xy)
        preview: Attributes = {"class": f"series-preview series-{mode}", "data-mode": mode, "points": points}
        shapes.append(el("polyline", preview | {"data-series": "preview"}))
    for line in sorted(lines, key=lambda line: line.current):
        role = "current" if line.current else "other"
        values = line.taken[key]
        mode = line.mode
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
                el("circle", point | {"cx": num(x(k)), "cy": num(y(value)), "r": num(2.6 if line.current else 1.8)})
            )
    placed: list[Box] = []
    ends = [y(line.whole[key][-1]) + 3.5 for line in lines]
    for line, end_y in zip(lines, spread(ends, LINE + 1, TOP + LINE - 3, HEIGHT - BOTTOM + 3), strict=True):
        mode = line.mode
        end: Attributes = {
            "class": f"chart-end chart-end-{mode}",
            "data-mode": mode,
            "x": num(x(steps) + 5),
            "y": num(end_y),
        }
        shapes.append(el("text", end, line.name))
    if notes:
        rule: list[Segment] = (
            [(x(taken), TOP, x(taken), HEIGHT - BOTTOM)] if taken else []
        )  # the step shown: no note on it either
        shapes += _notes(chart, x, y, segments + rule, placed)
    if inset is not None:
        shapes += _inset(chart, key, inset, segments, placed)
    frame: Attributes = {
        "viewBox": f"0 0 {WIDTH} {HEIGHT}",
        "class": "chart-svg",
        "aria-hidden": "true",
        "data-chart": key,
    }
    return [el("svg", frame, *shapes)]


def _notes(
    chart: RunChart, x: Callable[[int], float], y: Callable[[int], float], segments: list[Segment], placed: list[Box]
) -> list[Node]:
    """The chart's notes, each at the first place around its point that no line crosses."""
    shapes: list[Node] = []
    for note in chart.notes:
        px, py, text = x(note.step), y(note.value), note.text
        for dx, dy, anchor in NOTE_PLACES:
            box = text_box(px + dx, py + dy, text, anchor)
            if clear(box, segments, placed):
                placed.append(box)
                place: Attributes = {"class": "chart-note", "x": num(px + dx), "y": num(py + dy), "text-anchor": anchor}
                shapes.append(el("text", place, text))
                break
    return shapes


def _inset(chart: RunChart, key: str, inset: Inset, segments: list[Segment], placed: list[Box]) -> list[Node]:
    """The inset's series from its second step on (the decode steps, after the prefill) on its own
    axis, from the first's value to the last's (both labelled), in the first corner of the plot no
    line crosses: a growth the main axis is too tall to show (the KV cache's one cell more a step).
    None for fewer than three steps (one decode step is a point, not a growth) or where no corner is clear."""
    kv = next(line for line in chart.series if line.mode == inset.series)
    whole = kv.whole[key][1:]
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
        if high == low:  # a flat line (a rule that pays the same every step): drawn across the middle
            return (plot_top + plot_bottom) / 2
        return plot_bottom - (value - low) / (high - low) * (plot_bottom - plot_top)

    shapes: list[Node] = [
        el("rect", {"class": "chart-inset", "x": num(left), "y": num(top), "width": INSET_W, "height": INSET_H}),
        el("text", {"class": "chart-tick", "x": num(left + 3), "y": num(top + 9)}, inset.label),
    ]
    for tick in (low, high):
        label: Attributes = {"class": "chart-tick", "x": num(plot_left - 3), "y": num(iy(tick)), "dy": "0.32em"}
        shapes.append(el("text", label | {"text-anchor": "end"}, short(tick)))
    points = " ".join(f"{num(ix(i))},{num(iy(value))}" for i, value in enumerate(whole))
    whole_line: Attributes = {"class": f"series-preview series-{inset.series}", "data-mode": inset.series}
    shapes.append(el("polyline", whole_line | {"points": points}))
    taken = kv.taken[key][1:]
    if taken:
        points = " ".join(f"{num(ix(i))},{num(iy(value))}" for i, value in enumerate(taken))
        drawn: Attributes = {
            "class": f"series series-{inset.series}",
            "data-series": "inset",
            "data-mode": inset.series,
        }
        drawn["points"] = points
        shapes.append(el("polyline", drawn))
    return [el("g", {"class": "chart-inset-group", "data-inset": inset.series}, *shapes)]
