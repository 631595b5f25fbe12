"""A grid of cells drawn as rectangles, and a strip of slots under it: the decode lab's attention grid
and KV cache. Sent as rectangles of cells, never cell by cell: a 191 × 191 grid is a few dozen
rectangles, not 36,000 cells, and the page draws it at any size, in cell units.
"""

from __future__ import annotations

from collections.abc import Sequence

from kvpage.jsonvalue import JSONValue
from kvpage.tree import THIN, Attributes, Node, el, num

Rect = tuple[int, int, int, int]
"""A rectangle of cells: its first row, its first column, its rows and its columns."""


def cell_lines(size: int, rows: int) -> str:
    """The path of the lines between cells: ``size`` columns by ``rows`` rows."""
    columns = [f"M{i} 0V{rows}" for i in range(1, size)]
    return "".join(columns + [f"M0 {i}H{size}" for i in range(1, rows)])


MARGIN = 0.1
"""The grid's margin for its position numbers, as a share of its size: room for three digits of its
text (a 24th of the whole) right of the number's anchor."""


def margin(size: int) -> float:
    """The room left of and above the grid for the position numbers, in cells."""
    return size * MARGIN


def font(size: int) -> float:
    """The grid's text size in cells, a 24th of the drawing: at least 11 px however many cells the
    grid has, at the narrowest the page draws it (about 270 px wide, at 360 px)."""
    return (size + margin(size)) / 24


def positions(size: int, square: int) -> list[int]:
    """The positions numbered on the axes: 1, the square's last and the grid's last, each at least
    three text heights from the next (the square's is left out when it would crowd one)."""
    room = 3 * font(size)
    marks = [1, size] if size > 1 else [1]
    if all(abs(square - mark) >= room for mark in marks):
        marks.append(square)
    return sorted(set(marks))


def _frame(size: int, rows: int, dense: bool, name: str, top: float = 0) -> Attributes:
    left = margin(size)
    return {
        "viewBox": f"{num(-left)} {num(-top)} {num(size + left)} {num(rows + top)}",
        "class": f"{name} dense" if dense else name,
        "aria-hidden": "true",
        "preserveAspectRatio": "none",
    }


def _numbers(size: int, square: int) -> list[Node]:
    """Positions along the columns (above) and the rows (left), at the middle of their cell."""
    size_text = num(font(size))
    shapes: list[Node] = []
    for mark in positions(size, square):
        across: Attributes = {"class": "grid-number", "x": num(mark - 0.5), "y": num(-font(size) * 0.35)}
        shapes.append(el("text", across | {"text-anchor": "middle", "font-size": size_text}, str(mark)))
        down: Attributes = {"class": "grid-number", "x": num(-font(size) * 0.35), "y": num(mark - 0.5)}
        shapes.append(el("text", down | {"text-anchor": "end", "dy": "0.35em", "font-size": size_text}, str(mark)))
    return shapes


def _square_name(size: int, square: int, text: str) -> Node:
    """The square named on the grid: inside it where it fits, else to its right (in the attention
    grid that corner is never paid with the cache; recomputing, the name has a halo of the background)."""
    fits = square >= (len(text) * 0.58 + 0.8) * font(size) and square >= 1.6 * font(size)
    x = 0.4 * font(size) if fits else square + 0.4 * font(size)
    place: Attributes = {"class": "grid-prompt-name", "x": num(x), "y": num(1.1 * font(size))}
    return el("text", place | {"font-size": num(font(size)), "stroke-width": num(font(size) / 4)}, text)


def block_grid(
    n: int,
    held: Sequence[Rect],
    now: Sequence[Rect],
    *,
    tone: str,
    square: int,
    square_name: str,
    dense: bool,
    name: str,
) -> list[JSONValue]:
    """An ``n`` × ``n`` grid of cells filled by rectangles: ``held`` (earlier) and ``now`` (over them),
    in the colour of ``tone`` (``grid-TONE``); the cells' lines (or, ``dense``, a line over the ``now``
    rows) in the background's colour between them; the top-left ``square`` outlined and named
    ``square_name``; positions 1, ``square`` and ``n`` numbered. ``name`` is the svg's class.

    Two kinds of cells whose colours are 1.8:1 at best against each other never touch: the lines between cells
    are drawn in the background's colour, and in a dense grid (no lines) a line of background parts the newest
    rectangles from the ones before. The margins carry three positions (1, the marked square's side, the
    last), in text sized to at least 11 pixels whatever the grid's size; the square is outlined and named on
    the grid. :func:`kvpage.pictures.cell_grid` is the simpler grid for a few cells of a few kinds.
    """
    shapes: list[Node] = [el("rect", {"class": "grid-empty", "x": 0, "y": 0, "width": n, "height": n})]
    for kind, blocks in (("held", held), ("now", now)):
        for row, col, rows, cols in blocks:
            box: Attributes = {
                "class": f"grid-{kind} grid-{tone}",
                "data-kind": kind,
                "data-mode": tone,
                "x": col,
                "y": row,
                "width": cols,
                "height": rows,
            }
            shapes.append(el("rect", box | (THIN if kind == "now" else {})))
    if not dense:
        shapes.append(el("path", {"class": "grid-lines", "d": cell_lines(n, n), **THIN}))
    elif held:
        for row, col, _, cols in now:
            shapes.append(el("path", {"class": "grid-gap", "d": f"M{col} {row}H{col + cols}", **THIN}))
    shapes.append(el("rect", {"class": "grid-prompt", "x": 0, "y": 0, "width": square, "height": square, **THIN}))
    shapes.append(el("rect", {"class": "grid-outline", "x": 0, "y": 0, "width": n, "height": n, **THIN}))
    shapes += _numbers(n, square)
    shapes.append(_square_name(n, square, square_name))
    frame = _frame(n, n, dense, name, top=margin(n))
    return [el("svg", {**frame, "data-size": n, "data-mode": tone}, *shapes)]


def slot_strip(n: int, runs: Sequence[tuple[str, int, int]], *, parted: str, dense: bool, name: str) -> list[JSONValue]:
    """A strip of ``n`` cells under a grid of as many columns, filled by runs ``(kind, start, count)``
    (class ``slot-KIND``), the cells' lines in the background's colour, or, ``dense``, only a line
    before a run of kind ``parted`` (the new slot after the held ones). ``name`` is the svg's class."""
    shapes: list[Node] = [el("rect", {"class": "slot-empty", "x": 0, "y": 0, "width": n, "height": 1})]
    for kind, start, length in runs:
        box: Attributes = {"class": f"slot-{kind}", "data-kind": kind, "data-count": length}
        shapes.append(el("rect", box | {"x": start, "y": 0, "width": length, "height": 1}))
    if not dense:
        shapes.append(el("path", {"class": "grid-lines", "d": cell_lines(n, 1), **THIN}))
    else:
        for kind, start, _ in runs:
            if kind == parted and start:
                shapes.append(el("path", {"class": "grid-gap", "d": f"M{start} 0V1", **THIN}))
    shapes.append(el("rect", {"class": "grid-outline", "x": 0, "y": 0, "width": n, "height": 1, **THIN}))
    return [el("svg", _frame(n, 1, dense, name), *shapes)]
