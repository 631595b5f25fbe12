"""The attention grid of a decode run: which query × key cells each step pays.

Rows are queries and columns are keys, both in token order, one cell per
query-key pair, exactly the cells ``kvpage.costs`` counts. The grid is sent as
rectangles of cells (the prefill square, then one row per decoded token), never
cell by cell: a 191 × 191 grid is a few dozen rectangles, not 36,000 cells, and
the page can draw it at any size.

The rectangles are built from the shape of attention, not from the cost
formulas, so the tests can hold one against the other. ``grid_picture`` and
``slots_picture`` draw them as SVG element trees (:mod:`kvpage.tree`), in cell
units: the page scales the picture, so one rectangle is any number of cells.

The cells take the mode's colour (the page's ``--kv``, ``--kv-held``, ``--recompute``), the
same in the thesis figure and the chart. A cell paid now and one paid earlier are 1.8:1 at
best against each other, so they never touch: the lines between cells are drawn in the lab's
background, and in a dense grid (no lines) a line of background separates this step's row
from the rows above. The margins carry the token positions (1, the prompt's end, the last),
and the prompt's square is named on the grid, before any step is taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from kvpage.costs import Mode, context_at_step
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.tree import THIN, Attributes, Node, el, num

DENSE_ABOVE = 48
"""Grids with more tokens than this are drawn as shaded areas: a single cell would be a pixel or two."""

BlockKind = Literal["now", "held"]
SlotKind = Literal["new", "held", "recomputed"]


@dataclass(frozen=True)
class Block:
    """A rectangle of cells: paid by this step (``now``) or by earlier ones whose keys are cached (``held``)."""

    kind: BlockKind
    row: int
    col: int
    rows: int
    cols: int

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def to_json(self) -> list[JSONValue]:
        return [self.row, self.col, self.rows, self.cols]


@dataclass(frozen=True)
class Slots:
    """A run of KV-cache slots (one per token, aligned with the key columns)."""

    kind: SlotKind
    start: int
    count: int

    def to_json(self) -> JSONObject:
        return {"kind": self.kind, "start": self.start, "count": self.count}


def grid_size(prompt: int, tokens: int) -> int:
    """Tokens in the context at the run's last step: the grid is drawn this big from the start."""
    return context_at_step(prompt, tokens)


def paid_blocks(prompt: int, steps: int, mode: Mode) -> list[Block]:
    """The cells on show after ``steps`` steps.

    With the KV cache the prefill pays the prompt's square once, and each later
    step pays one row: the new token's query against every key so far. Earlier
    rows stay on the grid as ``held``. Recomputing pays the whole square of the
    current context every step and keeps nothing.
    """
    if steps == 0:
        return []
    context = context_at_step(prompt, steps)
    if mode == "recompute":
        return [Block("now", 0, 0, context, context)]
    blocks = [Block("now" if steps == 1 else "held", 0, 0, prompt, prompt)]
    for row in range(prompt, context):
        blocks.append(Block("now" if row == context - 1 else "held", row, 0, 1, row + 1))
    return blocks


def slots(prompt: int, steps: int, mode: Mode) -> list[Slots]:
    """The KV slots after ``steps`` steps: written by the prefill, then one appended per step."""
    if steps == 0:
        return []
    context = context_at_step(prompt, steps)
    if mode == "recompute":
        return [Slots("recomputed", 0, context)]
    if steps == 1:
        return [Slots("new", 0, prompt)]
    return [Slots("held", 0, context - 1), Slots("new", context - 1, 1)]


def cells(blocks: list[Block], kind: BlockKind) -> int:
    """Cells of ``kind`` in ``blocks``."""
    return sum(block.cells for block in blocks if block.kind == kind)


def describe(prompt: int, tokens: int, steps: int, mode: Mode) -> str:
    """The grid in words, numbers included: its text alternative."""
    size = grid_size(prompt, tokens)
    if steps == 0:
        return (
            f"Nothing paid yet: the {count(prompt)}-token prompt waits for its prefill. "
            f"The grid has room for {count(size)} queries × {count(size)} keys."
        )
    blocks = paid_blocks(prompt, steps, mode)
    context = context_at_step(prompt, steps)
    now = count(cells(blocks, "now"))
    if steps == 1:
        return (
            f"Step 1, the prefill: {count(prompt)} queries × {count(prompt)} keys, "
            f"{now} cells paid this step; {count(prompt)} KV slots written."
        )
    if mode == "recompute":
        return (
            f"Step {steps}: the whole square again, {count(context)} × {count(context)}, "
            f"{now} cells paid this step; no KV slots kept."
        )
    return (
        f"Step {steps}: one new query row against {count(context)} keys, {now} cells paid this step; "
        f"{count(cells(blocks, 'held'))} cells paid by earlier steps are not repeated; "
        f"{count(context)} KV slots held, 1 new."
    )


def grid_view(prompt: int, tokens: int, steps: int, mode: Mode) -> JSONObject:
    """Everything the page needs to draw the grid, and to say it in words."""
    blocks = paid_blocks(prompt, steps, mode)
    size = grid_size(prompt, tokens)
    return {
        "size": size,
        "prompt": prompt,
        "context": context_at_step(prompt, steps) if steps else 0,
        "mode": mode,
        "dense": size > DENSE_ABOVE,
        "now": [block.to_json() for block in blocks if block.kind == "now"],
        "held": [block.to_json() for block in blocks if block.kind == "held"],
        "slots": [run.to_json() for run in slots(prompt, steps, mode)],
        "text": describe(prompt, tokens, steps, mode),
    }


def cell_lines(size: int, rows: int) -> str:
    """The path of the lines between cells: ``size`` columns by ``rows`` rows."""
    columns = [f"M{i} 0V{rows}" for i in range(1, size)]
    return "".join(columns + [f"M0 {i}H{size}" for i in range(1, rows)])


MARGIN = 0.09
"""The grid's margin for its position numbers, as a share of its size; their text is a 30th of the whole."""


def margin(size: int) -> float:
    """The room left of and above the grid for the position numbers, in cells."""
    return size * MARGIN


def font(size: int) -> float:
    """The grid's text size in cells: about 11 px however many cells the grid has."""
    return (size + margin(size)) / 30


def positions(size: int, prompt: int) -> list[int]:
    """The token positions numbered on the axes: 1, the prompt's last and the grid's last, each at
    least three text heights from the next (the prompt's is left out when it would crowd one)."""
    room = 3 * font(size)
    marks = [1, size] if size > 1 else [1]
    if all(abs(prompt - mark) >= room for mark in marks):
        marks.append(prompt)
    return sorted(set(marks))


def _frame(size: int, rows: int, dense: bool, name: str, top: float = 0) -> Attributes:
    left = margin(size)
    return {
        "viewBox": f"{num(-left)} {num(-top)} {num(size + left)} {num(rows + top)}",
        "class": f"{name} dense" if dense else name,
        "aria-hidden": "true",
        "preserveAspectRatio": "none",
    }


def _numbers(size: int, prompt: int) -> list[Node]:
    """Token positions along the keys (above) and the queries (left), at the middle of their cell."""
    size_text = num(font(size))
    shapes: list[Node] = []
    for mark in positions(size, prompt):
        across: Attributes = {"class": "grid-number", "x": num(mark - 0.5), "y": num(-font(size) * 0.35)}
        shapes.append(el("text", across | {"text-anchor": "middle", "font-size": size_text}, str(mark)))
        down: Attributes = {"class": "grid-number", "x": num(-font(size) * 0.35), "y": num(mark - 0.5)}
        shapes.append(el("text", down | {"text-anchor": "end", "dy": "0.35em", "font-size": size_text}, str(mark)))
    return shapes


def _prompt_name(size: int, prompt: int) -> Node:
    """The prompt's square named on the grid: inside it where it fits, else to its right (that corner
    is never paid with the cache; recomputing, the name has a halo of the background)."""
    text = f"prefill {prompt} × {prompt}"
    fits = prompt >= (len(text) * 0.58 + 0.8) * font(size) and prompt >= 1.6 * font(size)
    x = 0.4 * font(size) if fits else prompt + 0.4 * font(size)
    place: Attributes = {"class": "grid-prompt-name", "x": num(x), "y": num(1.1 * font(size))}
    return el("text", place | {"font-size": num(font(size)), "stroke-width": num(font(size) / 4)}, text)


def grid_picture(grid: JSONObject) -> list[JSONValue]:
    """The attention grid of ``grid_view``: queries down, keys across, this step's cells over earlier ones,
    the cells' lines (or, dense, a line over this step's row) in the background's colour between them,
    the prompt's square outlined and named, the positions numbered."""
    n, prompt, dense = cast(int, grid["size"]), cast(int, grid["prompt"]), bool(grid["dense"])
    mode = cast(str, grid["mode"])
    shapes: list[Node] = [el("rect", {"class": "grid-empty", "x": 0, "y": 0, "width": n, "height": n})]
    for kind in ("held", "now"):
        for row, col, rows, cols in cast(list[list[int]], grid[kind]):
            box: Attributes = {
                "class": f"grid-{kind} grid-{mode}",
                "data-kind": kind,
                "data-mode": mode,
                "x": col,
                "y": row,
                "width": cols,
                "height": rows,
            }
            shapes.append(el("rect", box | (THIN if kind == "now" else {})))
    if not dense:
        shapes.append(el("path", {"class": "grid-lines", "d": cell_lines(n, n), **THIN}))
    elif grid["held"]:
        for row, col, _, cols in cast(list[list[int]], grid["now"]):
            shapes.append(el("path", {"class": "grid-gap", "d": f"M{col} {row}H{col + cols}", **THIN}))
    shapes.append(el("rect", {"class": "grid-prompt", "x": 0, "y": 0, "width": prompt, "height": prompt, **THIN}))
    shapes.append(el("rect", {"class": "grid-outline", "x": 0, "y": 0, "width": n, "height": n, **THIN}))
    shapes += _numbers(n, prompt)
    shapes.append(_prompt_name(n, prompt))
    frame = _frame(n, n, dense, "attention-grid", top=margin(n))
    return [el("svg", {**frame, "data-size": n, "data-mode": mode}, *shapes)]


def slots_picture(grid: JSONObject) -> list[JSONValue]:
    """The KV cache's slots under the grid, one per key column: new, held or recomputed, with a line of
    the background between held and new."""
    n, dense = cast(int, grid["size"]), bool(grid["dense"])
    shapes: list[Node] = [el("rect", {"class": "slot-empty", "x": 0, "y": 0, "width": n, "height": 1})]
    for run in cast(list[dict[str, str | int]], grid["slots"]):
        kind, length = run["kind"], run["count"]
        box: Attributes = {"class": f"slot-{kind}", "data-kind": kind, "data-count": length}
        shapes.append(el("rect", box | {"x": run["start"], "y": 0, "width": length, "height": 1}))
    if not dense:
        shapes.append(el("path", {"class": "grid-lines", "d": cell_lines(n, 1), **THIN}))
    else:
        for run in cast(list[dict[str, str | int]], grid["slots"]):
            if run["kind"] == "new" and run["start"]:
                shapes.append(el("path", {"class": "grid-gap", "d": f"M{run['start']} 0V1", **THIN}))
    shapes.append(el("rect", {"class": "grid-outline", "x": 0, "y": 0, "width": n, "height": 1, **THIN}))
    return [el("svg", _frame(n, 1, dense, "kv-slots"), *shapes)]
