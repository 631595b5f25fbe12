"""Cells by layer and token (:func:`layer_grid`), and one square split into its reused corner and its
paid L (:func:`corner_square`): the next-request lab's *why* and *how much*. Their SVG has no viewBox,
so a word's ``font-size`` is the size it is read at, at any width (docs/authoring.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from kvpage.jsonvalue import JSONValue
from kvpage.pictures.basic import PictureError
from kvpage.tree import Attributes, Node, el, num

LAYER_KINDS = {"reused": "", "changed": "≠", "same": "=", "paid": ""}
"""A layer grid's kinds of cell (class ``lay-KIND``) and the glyph each carries where cells are wide
enough: reused from the cache; the first difference; the same text at the same position (identical
in layer 1, paid all the same); paid."""
TONES = {"reused": "kv-held", "changed": "warn", "same": "kv", "paid": "kv"}
"""Each kind's colour (``static/kvpage.css``): cells of two colours are parted by a line; ``same``
and ``paid`` cells, one colour, need none past :data:`MOST_LINES` columns."""
MOST_COLUMNS = 4_000
"""The most tokens a layer grid or square draws (a 2,000-character request has at most 2,000)."""
MOST_GLYPHS = 24
"""Up to this many columns a cell is wide enough (≥ 9 px at :data:`NARROWEST`) for its glyph."""
MOST_LINES = 32
"""Up to this many columns every cell is parted from the next by a line; past it, only cells of two colours."""
NARROWEST = 220
"""The narrowest (CSS px) a layer grid's row or a square is laid out, at a 360 px screen."""
SQUARE = 240
"""A square's side in CSS px (``.sq-plot`` in ``static/kvpage.css``: 15rem)."""
CHAR = 7.2
"""The width of one character of a drawing's 12 px words, generously (system-ui's digits are ~6.7)."""


def percent(share: float) -> str:
    """A share of the drawing's width or height (0 to 1) as an SVG length: ``71.43%``."""
    return f"{num(100 * share)}%"


def _runs(kinds: Sequence[str]) -> list[tuple[str, int, int]]:
    """``(kind, start, length)`` for each run of equal kinds."""
    runs: list[tuple[str, int, int]] = []
    for at, kind in enumerate(kinds):
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1], runs[-1][2] + 1)
        else:
            runs.append((kind, at, 1))
    return runs


def _row(layer: int, kinds: Sequence[str]) -> Node:
    """One layer's cells: a rectangle per run of a kind, the glyphs, the lines between cells."""
    n = len(kinds)
    shapes: list[Node] = []
    for kind, start, length in _runs(kinds):
        box: Attributes = {"class": f"lay-cell lay-{kind}", "data-kind": kind, "data-from": start + 1}
        place: Attributes = {"x": percent(start / n), "y": 0, "width": percent(length / n), "height": "100%"}
        shapes.append(el("rect", box | {"data-count": length} | place))
    for at in range(1, n):
        if n <= MOST_LINES or TONES[kinds[at]] != TONES[kinds[at - 1]]:
            shapes.append(
                el("line", {"class": "lay-line", "x1": percent(at / n), "x2": percent(at / n), "y1": 0, "y2": "100%"})
            )
    if n <= MOST_GLYPHS:
        for at, kind in enumerate(kinds):
            if LAYER_KINDS[kind]:
                place = {"x": percent((at + 0.5) / n), "y": "50%", "text-anchor": "middle", "dy": "0.35em"}
                glyph: Attributes = {"class": f"lay-glyph lay-glyph-{kind}"}
                shapes.append(el("text", glyph | place, LAYER_KINDS[kind]))
    return el("svg", {"class": "lay-row", "data-layer": layer, "aria-hidden": "true"}, *shapes)


def positions(n: int, marked: int | None, room: float = NARROWEST) -> list[tuple[int, str]]:
    """The positions numbered under ``n`` columns: 1, ``marked`` (if given and it does not crowd
    another at ``room`` px) and ``n``, each with its anchor (``start`` at the left edge, ``end`` at
    the right, ``middle`` under its column)."""
    marks = [(1, "start")] + ([(n, "end")] if n > 1 else [])
    if marked is not None and 1 < marked < n:
        at = (marked - 0.5) / n * room
        if at - 4 * CHAR > 2 * CHAR and room - at - 4 * CHAR > 2 * CHAR:
            marks.append((marked, "middle"))
    return sorted(marks)


def _axis(n: int, marked: int | None, name: str) -> Node:
    """The numbers of the positions under (or over) ``n`` columns."""
    words: list[Node] = []
    for at, anchor in positions(n, marked):
        x = {"start": "0%", "end": "100%", "middle": percent((at - 0.5) / n)}[anchor]
        words.append(el("text", {"class": "lay-number", "x": x, "y": "1em", "text-anchor": anchor}, str(at)))
    return el("svg", {"class": name, "aria-hidden": "true"}, *words)


def _spans(n: int, spans: Sequence[tuple[int, int, str, str]]) -> Node:
    """Brackets over runs of columns ``(start, end, kind, label)``, each named: over its middle where the
    name fits at the narrowest, else at its outer end."""
    shapes: list[Node] = []
    for start, end, kind, label in spans:
        if end <= start:
            continue
        left, right = percent(start / n), percent(end / n)
        shapes.append(
            el("line", {"class": f"lay-span lay-span-{kind}", "x1": left, "x2": right, "y1": "85%", "y2": "85%"})
        )
        for x in (left, right):
            shapes.append(
                el("line", {"class": f"lay-span lay-span-{kind}", "x1": x, "x2": x, "y1": "70%", "y2": "100%"})
            )
        fits = (end - start) / n * NARROWEST >= len(label) * CHAR + 4
        if fits:
            place: Attributes = {"x": percent((start + end) / 2 / n), "text-anchor": "middle"}
        elif start == 0:
            place = {"x": "0%", "text-anchor": "start"}
        else:
            place = {"x": "100%", "text-anchor": "end"}
        name: Attributes = {"class": "lay-span-name", "data-kind": kind, "y": "1em"}
        shapes.append(el("text", name | place, label))
    return el("svg", {"class": "lay-spans", "aria-hidden": "true"}, *shapes)


def layer_grid(
    rows: Sequence[tuple[str, Sequence[str]]], spans: Sequence[tuple[int, int, str, str]], marked: int | None
) -> list[JSONValue]:
    """A row of cells per ``(name, kinds)`` (kinds of :data:`LAYER_KINDS`, a column per token), the row's
    name beside it as HTML; over them, brackets naming runs of columns ``(start, end, kind, label)``
    (0-based, end excluded); under them, positions 1, ``marked`` and the last.

    Like :func:`corner_square`, it keeps every word at the page's size at any width: the SVG has no viewBox,
    so its units are CSS pixels; marks are placed in percent of its width (and, in a row of cells, of its
    height), so they stretch with the column, and a word's ``font-size`` (``lay-*`` and ``sq-*`` in
    ``static/kvpage.css``) is the size it is read at. Where a word must fit a region, its width is estimated
    at the narrowest the drawing is laid out (:data:`NARROWEST`). Reused (``--kv-held``) and paid (``--kv``)
    are under 3:1 against each other, so a line of the background parts them wherever they touch; the first
    difference is ``--warn``, as its token chip is.
    """
    n = len(rows[0][1]) if rows else 0
    if not rows or not 1 <= n <= MOST_COLUMNS or any(len(kinds) != n for _, kinds in rows):
        raise PictureError(f"a layer grid draws rows of 1 to {MOST_COLUMNS:,} cells, all as long")
    unknown = {kind for _, kinds in rows for kind in kinds} - set(LAYER_KINDS)
    if unknown:
        raise PictureError(f"cells of kind {sorted(unknown)}; the kinds are {list(LAYER_KINDS)}")
    parts: list[Node] = [el("span", {"class": "lay-name"}), _spans(n, spans)]
    for layer, (name, kinds) in enumerate(rows, 1):
        parts += [el("span", {"class": "lay-name"}, name), _row(layer, kinds)]
    parts += [el("span", {"class": "lay-name"}, "token"), _axis(n, marked, "lay-axis")]
    return [el("div", {"class": "lay-frame", "data-columns": n}, *parts)]


def _label(x: float, y: float, anchor: str, text: str, kind: str) -> Node:
    """A word on the square, with a halo of the background (``sq-label``) so it reads on any cell."""
    place: Attributes = {"x": percent(x), "y": percent(y), "dy": "0.35em", "text-anchor": anchor}
    word: Attributes = {"class": "sq-label", "data-kind": kind}
    return el("text", word | place, text)


def _square_labels(n: int, corner: int, reused: str, paid: str) -> list[Node]:
    """``reused`` in the corner (or right of it, where it does not fit), ``paid`` in the L's widest part."""
    c = corner / n
    words: list[Node] = []
    if corner:
        inside = c * SQUARE >= len(reused) * CHAR + 8 and c * SQUARE >= 22
        words.append(
            _label(
                c / 2 if inside else c + 0.02,
                min(c / 2, 0.5) if inside else 0.06,
                "middle" if inside else "start",
                reused,
                "reused",
            )
        )
    if corner < n:
        below = (1 - c) * SQUARE >= 20
        words.append(
            _label(0.5, (1 + c) / 2, "middle", paid, "paid")
            if below
            else _label((1 + c) / 2, 0.5, "middle", paid, "paid")
        )
    return words


def _square_lines(n: int, corner: int) -> list[Node]:
    """Lines of the background between cells (every cell up to :data:`MOST_LINES` a side), and always
    where the reused corner touches the paid L."""
    lines: list[Node] = []
    if n <= MOST_LINES:
        for at in range(1, n):
            x = percent(at / n)
            lines.append(el("line", {"class": "sq-line", "x1": x, "x2": x, "y1": 0, "y2": "100%"}))
            lines.append(el("line", {"class": "sq-line", "x1": 0, "x2": "100%", "y1": x, "y2": x}))
    if 0 < corner < n:
        c = percent(corner / n)
        lines.append(el("line", {"class": "sq-gap", "x1": c, "x2": c, "y1": 0, "y2": c}))
        lines.append(el("line", {"class": "sq-gap", "x1": 0, "x2": c, "y1": c, "y2": c}))
    return lines


def corner_square(n: int, corner: int, *, reused: str, paid: str) -> list[JSONValue]:
    """Request 2's ``n`` × ``n`` attention cells (queries down, keys across): the top-left ``corner`` ×
    ``corner`` block reused, the L around it paid (its part right of the corner, then the rows under
    it), each named on the drawing (``reused``, ``paid``); the positions 1, ``corner`` and ``n`` along the top."""
    if not 1 <= n <= MOST_COLUMNS or not 0 <= corner <= n:
        raise PictureError(f"a square of 1 to {MOST_COLUMNS:,} cells a side, its corner within it; not {corner} of {n}")
    c, rest = percent(corner / n), percent(1 - corner / n)
    shapes: list[Node] = []
    if corner:
        box: Attributes = {"class": "sq-reused", "data-kind": "reused", "data-value": corner * corner}
        shapes.append(el("rect", box | {"x": 0, "y": 0, "width": c, "height": c}))
    if corner < n:
        right: Attributes = {"class": "sq-paid", "data-kind": "paid", "data-value": corner * (n - corner)}
        shapes.append(el("rect", right | {"x": c, "y": 0, "width": rest, "height": c}))
        under: Attributes = {"class": "sq-paid", "data-kind": "paid", "data-value": (n - corner) * n}
        shapes.append(el("rect", under | {"x": 0, "y": c, "width": "100%", "height": rest}))
    shapes += _square_lines(n, corner)
    shapes += _square_labels(n, corner, reused, paid)
    plot = el("svg", {"class": "sq-plot", "data-size": n, "data-corner": corner, "aria-hidden": "true"}, *shapes)
    return [el("div", {"class": "sq-frame"}, _axis(n, corner or None, "sq-axis"), plot)]
