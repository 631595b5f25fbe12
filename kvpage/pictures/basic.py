"""The simple words of :mod:`kvpage.pictures`: a bar chart, a line chart with labelled series, a grid of
cells. Their words are HTML text beside the drawing, never SVG text, so they keep the page's font size
in any column; only the marks are SVG, stretched (docs/authoring.md, "Drawing a picture").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kvpage.jsonvalue import JSONValue
from kvpage.tree import THIN, Attributes, Node, el, num

SERIES_CLASSES = ("pic-series-1", "pic-series-2", "pic-series-3")
"""How a line chart tells its series apart: colour and dash (``static/kvpage.css``), in this order."""
CELL_KINDS = ("pic-cell-off", "pic-cell-on", "pic-cell-mark")
"""The kinds of a grid's cells, by their class: empty, filled, marked (``static/kvpage.css``)."""
MOST_BARS = 50
MOST_POINTS = 500
MOST_CELLS = 4_096
"""A picture's own bounds (bars, points per series, cells): far below the bridge's cap
(``kvpage.bridge.MAX_ELEMENTS``), and past what a reader can tell apart at 360 pixels."""


class PictureError(ValueError):
    """A picture asked for more than it draws, or with values it cannot place."""


def bar_chart(bars: Sequence[tuple[str, float, str]], summary: str, top: float | None = None) -> list[JSONValue]:
    """One row per ``(name, value, shown)``: the name, a bar as long as ``value`` against ``top`` (the
    largest value if not given), and ``shown`` (the value as the reader reads it, ``"65.9%"``)."""
    if not 1 <= len(bars) <= MOST_BARS:
        raise PictureError(f"a bar chart draws 1 to {MOST_BARS} bars, not {len(bars)}")
    scale = max(value for _, value, _ in bars) if top is None else top
    rows: list[Node] = []
    for name, value, shown in bars:
        if value < 0 or (scale > 0 and value > scale):
            raise PictureError(f"bar {name!r}: {value} is not between 0 and {scale}")
        length = num(100 * value / scale) if scale > 0 else "0"
        track = el(
            "svg",
            {"class": "pic-bar-track", "viewBox": "0 0 100 10", "preserveAspectRatio": "none", "aria-hidden": "true"},
            el("rect", {"class": "pic-bar-back", "x": 0, "y": 0, "width": 100, "height": 10, **THIN}),
            el("rect", {"class": "pic-bar-fill", "x": 0, "y": 0, "width": length, "height": 10}),
        )
        rows.append(
            el(
                "li",
                {"class": "pic-bar"},
                el("span", {"class": "pic-bar-name"}, name),
                track,
                el("span", {"class": "pic-bar-value"}, shown),
            )
        )
    return [el("p", {"class": "pic-summary"}, summary), el("ul", {"class": "pic-bars"}, *rows)]


@dataclass(frozen=True)
class Series:
    """One line of a line chart: its label (in the legend) and its points, (x, y) in the data's units."""

    label: str
    points: tuple[tuple[float, float], ...]


def line_chart(series: Sequence[Series], summary: str, x_label: str, y_label: str) -> list[JSONValue]:
    """Up to three labelled lines on shared axes from 0: the lines stretch with the column, the
    legend and the axes' ends are text beside them (``y_label`` up to the largest y, ``x_label``
    across to the largest x)."""
    if not 1 <= len(series) <= len(SERIES_CLASSES):
        raise PictureError(f"a line chart draws 1 to {len(SERIES_CLASSES)} series, not {len(series)}")
    if any(not 1 <= len(line.points) <= MOST_POINTS for line in series):
        raise PictureError(f"each series has 1 to {MOST_POINTS} points")
    points = [point for line in series for point in line.points]
    if any(x < 0 or y < 0 for x, y in points):
        raise PictureError("a line chart's points are at or above 0 on both axes")
    width = max(x for x, _ in points) or 1
    height = max(y for _, y in points) or 1
    lines: list[Node] = [el("line", {"class": "pic-axis", "x1": 0, "y1": 100, "x2": 100, "y2": 100, **THIN})]
    legend: list[Node] = []
    for line, kind in zip(series, SERIES_CLASSES, strict=False):
        drawn = " ".join(f"{num(100 * x / width)},{num(100 - 100 * y / height)}" for x, y in line.points)
        lines.append(el("polyline", {"class": f"pic-line {kind}", "points": drawn, "fill": "none", **THIN}))
        key = el(
            "svg",
            {"class": "pic-key", "viewBox": "0 0 20 10", "aria-hidden": "true"},
            el("line", {"class": f"pic-line {kind}", "x1": 0, "y1": 5, "x2": 20, "y2": 5, **THIN}),
        )
        legend.append(el("li", {}, key, f" {line.label}"))
    plot = el(
        "svg",
        {"class": "pic-plot", "viewBox": "0 0 100 100", "preserveAspectRatio": "none", "aria-hidden": "true"},
        *lines,
    )
    return [
        el("p", {"class": "pic-summary"}, summary),
        el("ul", {"class": "pic-legend"}, *legend),
        el(
            "div",
            {"class": "pic-chart"},
            el("span", {"class": "pic-y"}, f"{y_label}: {num(height)}"),
            plot,
            el("span", {"class": "pic-x"}, f"{x_label}: 0 to {num(width)}"),
        ),
    ]


def cell_grid(cells: Sequence[Sequence[int]], summary: str, legend: Sequence[str] = ()) -> list[JSONValue]:
    """A grid of square cells, one row per sequence, each cell a kind: 0 empty, 1 filled, 2 marked
    (:data:`CELL_KINDS`); ``legend`` names the kinds that appear (in that order), as text beside it."""
    columns = max((len(row) for row in cells), default=0)
    if not cells or not columns or len(cells) * columns > MOST_CELLS:
        raise PictureError(f"a grid draws 1 to {MOST_CELLS:,} cells, not {len(cells)} rows of {columns}")
    marks: list[Node] = []
    for y, row in enumerate(cells):
        for x, kind in enumerate(row):
            if kind not in range(len(CELL_KINDS)):
                raise PictureError(f"cell ({y}, {x}) is of kind {kind}; kinds are 0 to {len(CELL_KINDS) - 1}")
            box: Attributes = {"x": x, "y": y, "width": 1, "height": 1}
            marks.append(el("rect", {"class": f"pic-cell {CELL_KINDS[kind]}", **box, **THIN}))
    grid = el("svg", {"class": "pic-grid", "viewBox": f"0 0 {columns} {len(cells)}", "aria-hidden": "true"}, *marks)
    keys: list[Node] = []
    for shown, name in zip(CELL_KINDS, legend, strict=False):
        swatch = el(
            "svg",
            {"class": "pic-key", "viewBox": "0 0 10 10", "aria-hidden": "true"},
            el("rect", {"class": f"pic-cell {shown}", "x": 0, "y": 0, "width": 10, "height": 10, **THIN}),
        )
        keys.append(el("li", {}, swatch, f" {name}"))
    return [el("p", {"class": "pic-summary"}, summary), el("ul", {"class": "pic-legend"}, *keys), grid]
