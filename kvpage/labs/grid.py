"""The attention grid of a decode run: which query × key cells each step pays.

Every cell drawn is a cell of the model's one rule, :func:`kvpage.costs.paid_cells`, and every number
in its words those cells counted, so a reader's edit of the rule moves drawing, words and readouts
together (decision 0054). What is sent and why: :func:`grid_view`; how it is drawn: :func:`grid_picture`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, cast

from kvpage.costs import Mode, Row, cell_count, context_at_step, paid_cells
from kvpage.jsonvalue import JSONObject, JSONValue, count
from kvpage.pictures import PictureError, Rect, block_grid, slot_strip

DENSE_ABOVE = 48
"""Grids with more tokens than this are drawn as shaded areas: a single cell would be a pixel or two."""

BlockKind = Literal["now", "held"]
SlotKind = Literal["new", "held"]
Span = tuple[int, int]
"""Keys ``start`` up to ``stop`` (excluded) of one row."""


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


def spans(keys: range) -> list[Span]:
    """A row's keys as runs of neighbouring keys: one run for a plain ``range``."""
    if not keys:
        return []
    if keys.step == 1:
        return [(keys.start, keys.stop)]
    return [(key, key + 1) for key in sorted(keys)]


def merged(found: Iterable[Span]) -> list[Span]:
    """Runs that overlap or touch, joined: the keys of several rows of one query, once each."""
    joined: list[Span] = []
    for start, stop in sorted(found):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(joined[-1][1], stop))
        else:
            joined.append((start, stop))
    return joined


def rectangles(kind: BlockKind, rows: list[tuple[int, list[Span]]]) -> list[Block]:
    """``rows`` (a query and its runs of keys, in order) as rectangles: neighbouring queries with the
    same runs share one. Every row is drawn as given, so the rectangles hold exactly its cells."""
    blocks: list[Block] = []
    at = 0
    while at < len(rows):
        query, runs = rows[at]
        end = at + 1
        while end < len(rows) and rows[end] == (query + end - at, runs):
            end += 1
        blocks += [Block(kind, query, start, end - at, stop - start) for start, stop in runs]
        at = end
    return blocks


@functools.lru_cache(maxsize=16)
def step_rows(prompt: int, steps: int, mode: Mode) -> tuple[tuple[Row, ...], tuple[tuple[int, tuple[Span, ...]], ...]]:
    """The rows step ``steps`` pays (:func:`kvpage.costs.paid_cells`), and the keys each other query
    was scored against by earlier steps, joined per query: what is paid now, and what is held.

    Kept for the last few runs asked (the grid, its words and the slots of one view ask alike, and
    recomputing, every earlier step's rows are read); immutable, so no caller can change another's.
    """
    now = tuple(paid_cells(prompt, steps, mode))
    again = {query for query, _ in now}
    found: dict[int, list[Span]] = {}
    for step in range(1, steps):
        for query, keys in paid_cells(prompt, step, mode):
            if query not in again:
                found.setdefault(query, []).extend(spans(keys))
    return now, tuple((query, tuple(merged(runs))) for query, runs in sorted(found.items()))


def paid_blocks(prompt: int, steps: int, mode: Mode) -> list[Block]:
    """The cells on show after ``steps`` steps, from :func:`kvpage.costs.paid_cells`.

    ``now``: the rows this step pays, as the rule gives them. ``held``: what earlier steps paid for
    queries this step does not pay again, the cells whose keys and values a cache keeps. With the
    KV cache that is the prompt's square and one row per earlier step; recomputing pays every query
    again each step, so nothing is held.
    """
    if steps == 0:
        return []
    now, held = step_rows(prompt, steps, mode)
    return rectangles("held", [(query, list(runs)) for query, runs in held]) + rectangles(
        "now", [(query, spans(keys)) for query, keys in now]
    )


def runs_of(kind: SlotKind, tokens: Iterable[int]) -> list[Slots]:
    """Neighbouring token positions as runs of slots of ``kind``."""
    return [Slots(kind, start, stop - start) for start, stop in merged((token, token + 1) for token in tokens)]


def slots(prompt: int, steps: int, mode: Mode) -> list[Slots]:
    """The KV slots after ``steps`` steps: a token's keys and values are computed when its query's
    row is paid (:func:`kvpage.costs.paid_cells`): ``new`` at this step, ``held`` from earlier ones.
    Recomputing keeps no cache, so it holds no slot at any step."""
    if steps == 0 or mode == "recompute":
        return []
    now, held = step_rows(prompt, steps, mode)
    new = {query for query, _ in now}
    return sorted(runs_of("held", (query for query, _ in held)) + runs_of("new", new), key=lambda run: run.start)


def cells(blocks: list[Block], kind: BlockKind) -> int:
    """Cells of ``kind`` in ``blocks``."""
    return sum(block.cells for block in blocks if block.kind == kind)


def queries(blocks: list[Block], kind: BlockKind) -> int:
    """How many rows (queries) the blocks of ``kind`` cover."""
    return len({row for block in blocks if block.kind == kind for row in range(block.row, block.row + block.rows)})


def describe(prompt: int, tokens: int, steps: int, mode: Mode) -> str:
    """The grid in words, every number counted from its cells: its text alternative."""
    size = grid_size(prompt, tokens)
    if steps == 0:
        return (
            f"Nothing paid yet: the {count(prompt)}-token prompt waits for its prefill. "
            f"The grid has room for {count(size)} queries × {count(size)} keys."
        )
    blocks = paid_blocks(prompt, steps, mode)
    context = context_at_step(prompt, steps)
    now, rows = cells(blocks, "now"), queries(blocks, "now")
    shape = (
        f"{count(rows)} queries × {count(context)} keys"
        if now == rows * context
        else f"{count(rows)} queries against {count(context)} keys"
    )
    kept = sum(run.count for run in slots(prompt, steps, mode))
    written = f"{count(kept)} KV slots written" if kept else "no KV slots kept"
    if steps == 1:
        return f"Step 1, the prefill: {shape}, {count(now)} cells paid this step; {written}."
    if mode == "recompute":
        return f"Step {steps}: every query again, {shape}, {count(now)} cells paid this step; no KV slots kept."
    new = "one new query row" if rows == 1 else f"{count(rows)} query rows"
    return (
        f"Step {steps}: {new} against {count(context)} keys, {count(now)} cells paid this step; "
        f"{count(cells(blocks, 'held'))} cells paid by earlier steps are not repeated; "
        f"{count(kept)} KV slots held, {count(rows)} new."
    )


def note(prompt: int, mode: Mode) -> str:
    """What the grid's shapes mean, said from the rule: the prefill as the whole square where the rule
    pays it whole (the chapter's count), else how many of its cells the rule pays."""
    paid = cell_count(paid_cells(prompt, 1, mode))
    square = prompt * prompt
    if paid == square:
        prefill = "The prefill is drawn as the whole square, as the chapter counts it (n²)"
    else:
        prefill = f"The prefill is drawn as the model pays it, {count(paid)} of the prompt's {count(square)} cells"
    return (
        f"{prefill}; each decode row stops at its own token, since a new token attends only to the keys "
        "before it and itself: a staircase."
    )


def check_inside(blocks: list[Block], size: int, steps: int) -> None:
    """Refuse a cell the grid cannot show: a rule that pays a query or key outside the run's tokens."""
    for block in blocks:
        if block.row < 0 or block.col < 0 or block.row + block.rows > size or block.col + block.cols > size:
            rows, keys = f"{block.row + 1} to {block.row + block.rows}", f"{block.col + 1} to {block.col + block.cols}"
            raise PictureError(
                f"step {steps} pays cells outside the grid of {size} tokens (queries {rows}, keys {keys})"
            )


def grid_view(prompt: int, tokens: int, steps: int, mode: Mode) -> JSONObject:
    """Everything the page needs to draw the grid, and to say it in words.

    Rows are queries and columns are keys, both in token order, one cell per query-key pair. Every
    cell drawn is a cell of the model's one rule, :func:`kvpage.costs.paid_cells` (this step's rows
    as ``now``, the earlier steps' rows whose query is not paid again as ``held``), and every number
    in the grid's words is those cells counted, so a reader's edit of the rule moves the drawing, its
    words and the readouts together. The grid is sent as rectangles of cells (runs of rows with the
    same keys), never cell by cell: a 191 × 191 grid is a few dozen rectangles, not 36,000 cells, and
    the page can draw it at any size.
    """
    blocks = paid_blocks(prompt, steps, mode)
    size = grid_size(prompt, tokens)
    check_inside(blocks, size, steps)
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
        "note": note(prompt, mode),
    }


def grid_picture(grid: JSONObject) -> list[JSONValue]:
    """The attention grid of ``grid_view``: queries down, keys across, this step's cells over earlier ones,
    the prompt's square outlined and named (:func:`kvpage.pictures.block_grid`).

    It and :func:`slots_picture` draw with the picture vocabulary (:func:`kvpage.pictures.block_grid`,
    :func:`kvpage.pictures.slot_strip`), in cell units: the page scales the picture, so one rectangle
    is any number of cells. The cells take the mode's colour (the page's ``--kv``, ``--kv-held``,
    ``--recompute``), the same in the thesis figure and the chart; the margins carry the token
    positions (1, the prompt's end, the last), and the prompt's square is named on the grid, before
    any step is taken.
    """
    prompt = cast(int, grid["prompt"])
    held, now = ([cast(Rect, tuple(block)) for block in cast(list[list[int]], grid[kind])] for kind in ("held", "now"))
    return block_grid(
        cast(int, grid["size"]),
        held,
        now,
        tone=cast(str, grid["mode"]),
        square=prompt,
        square_name=f"prompt, {count(prompt)} tokens",
        dense=bool(grid["dense"]),
        name="attention-grid",
    )


def slots_picture(grid: JSONObject) -> list[JSONValue]:
    """The KV cache's slots under the grid, one per key column: new or held (none, recomputing), with a
    line of the background between held and new (:func:`kvpage.pictures.slot_strip`)."""
    runs = [
        (cast(str, run["kind"]), cast(int, run["start"]), cast(int, run["count"]))
        for run in cast(list[JSONObject], grid["slots"])
    ]
    return slot_strip(cast(int, grid["size"]), runs, parted="new", dense=bool(grid["dense"]), name="kv-slots")
