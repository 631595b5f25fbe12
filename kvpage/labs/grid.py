"""The attention grid of a decode run: which query × key cells each step pays.

Rows are queries and columns are keys, both in token order, one cell per
query-key pair, exactly the cells ``kvpage.costs`` counts. The grid is sent as
rectangles of cells (the prefill square, then one row per decoded token), never
cell by cell: a 191 × 191 grid is a few dozen rectangles, not 36,000 cells, and
the page can draw it at any size.

The rectangles are built from the shape of attention, not from the cost
formulas, so the tests can hold one against the other. ``grid_picture`` and
``slots_picture`` draw them with the picture vocabulary (:func:`kvpage.pictures.block_grid`,
:func:`kvpage.pictures.slot_strip`), in cell units: the page scales the picture, so one
rectangle is any number of cells. The cells take the mode's colour (the page's ``--kv``,
``--kv-held``, ``--recompute``), the same in the thesis figure and the chart; the margins carry
the token positions (1, the prompt's end, the last), and the prompt's square is named on the
grid, before any step is taken.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from kvpage.costs import Mode, context_at_step
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.pictures import Rect, block_grid, slot_strip

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


def grid_picture(grid: JSONObject) -> list[JSONValue]:
    """The attention grid of ``grid_view``: queries down, keys across, this step's cells over earlier ones,
    the prompt's square outlined and named (:func:`kvpage.pictures.block_grid`)."""
    prompt = cast(int, grid["prompt"])
    held, now = ([cast(Rect, tuple(block)) for block in cast(list[list[int]], grid[kind])] for kind in ("held", "now"))
    return block_grid(
        cast(int, grid["size"]),
        held,
        now,
        tone=cast(str, grid["mode"]),
        square=prompt,
        square_name=f"prefill {prompt} × {prompt}",
        dense=bool(grid["dense"]),
        name="attention-grid",
    )


def slots_picture(grid: JSONObject) -> list[JSONValue]:
    """The KV cache's slots under the grid, one per key column: new, held or recomputed, with a line of
    the background between held and new (:func:`kvpage.pictures.slot_strip`)."""
    runs = [
        (cast(str, run["kind"]), cast(int, run["start"]), cast(int, run["count"]))
        for run in cast(list[JSONObject], grid["slots"])
    ]
    return slot_strip(cast(int, grid["size"]), runs, parted="new", dense=bool(grid["dense"]), name="kv-slots")
