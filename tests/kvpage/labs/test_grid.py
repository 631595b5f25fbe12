"""The attention grid: its rectangles are exactly the cells the cost model counts."""

import json
from typing import Any

import pytest

from kvpage.costs import MODES, Mode, context_at_step, cumulative_cost, step_cost
from kvpage.labs.grid import (
    DENSE_ABOVE,
    Block,
    cells,
    grid_picture,
    grid_size,
    grid_view,
    paid_blocks,
    slots,
    slots_picture,
)
from kvpage.pictures.blocks import font

RUNS = [(16, 16), (1, 1), (1, 64), (5, 3), (128, 64), (48, 1)]


def cell_set(blocks: list[Block]) -> set[tuple[int, int]]:
    found: set[tuple[int, int]] = set()
    for block in blocks:
        here = {
            (r, c) for r in range(block.row, block.row + block.rows) for c in range(block.col, block.col + block.cols)
        }
        assert not found & here, f"{block} overlaps an earlier block"
        found |= here
    return found


@pytest.mark.parametrize(("prompt", "tokens"), RUNS)
@pytest.mark.parametrize("mode", MODES)
def test_cells_paid_now_are_the_step_cost(prompt: int, tokens: int, mode: Mode) -> None:
    for step in range(1, tokens + 1):
        blocks = paid_blocks(prompt, step, mode)
        assert cells(blocks, "now") == step_cost(prompt, step, mode), (prompt, step, mode)


@pytest.mark.parametrize(("prompt", "tokens"), RUNS)
def test_with_the_cache_every_paid_cell_stays_on_the_grid(prompt: int, tokens: int) -> None:
    for step in range(1, tokens + 1):
        blocks = paid_blocks(prompt, step, "kv")
        assert cells(blocks, "now") + cells(blocks, "held") == cumulative_cost(prompt, step, "kv")


def test_recomputing_keeps_nothing() -> None:
    for step in range(1, 17):
        assert cells(paid_blocks(16, step, "recompute"), "held") == 0


@pytest.mark.parametrize("mode", MODES)
def test_cells_are_distinct_and_inside_the_context(mode: Mode) -> None:
    prompt, tokens = 6, 9
    size = grid_size(prompt, tokens)
    for step in range(1, tokens + 1):
        context = context_at_step(prompt, step)
        found = cell_set(paid_blocks(prompt, step, mode))
        assert all(0 <= r < context and 0 <= c < context for r, c in found)
        assert context <= size


def test_a_decoded_token_attends_only_to_earlier_keys_and_itself() -> None:
    found = cell_set(paid_blocks(6, 9, "kv"))
    assert all(c <= r for r, c in found if r >= 6)


def test_a_decode_step_pays_one_row_against_every_key() -> None:
    (row,) = [block for block in paid_blocks(16, 5, "kv") if block.kind == "now"]
    assert (row.row, row.col, row.rows, row.cols) == (19, 0, 1, 20)


def test_slots_grow_by_one_per_step_with_the_cache() -> None:
    assert [s.to_json() for s in slots(16, 1, "kv")] == [{"kind": "new", "start": 0, "count": 16}]
    assert [s.to_json() for s in slots(16, 3, "kv")] == [
        {"kind": "held", "start": 0, "count": 17},
        {"kind": "new", "start": 17, "count": 1},
    ]
    assert slots(16, 3, "recompute") == [], "recomputing keeps no KV slot"


def test_cold_grid_is_empty_and_sized_for_the_whole_run() -> None:
    view = grid_view(16, 16, 0, "kv")
    assert (view["size"], view["context"], view["now"], view["held"], view["slots"]) == (31, 0, [], [], [])
    assert view["text"] == (
        "Nothing paid yet: the 16-token prompt waits for its prefill. The grid has room for 31 queries × 31 keys."
    )


def test_big_grids_are_dense_and_small_to_send() -> None:
    assert grid_view(16, 16, 16, "kv")["dense"] is False
    big = grid_view(128, 64, 64, "kv")
    assert big["size"] == 191 > DENSE_ABOVE
    assert big["dense"] is True
    assert len(json.dumps(big)) < 3_000, "rectangles, not 36,481 cells"


def test_the_words_state_the_numbers() -> None:
    assert grid_view(16, 16, 1, "kv")["text"] == (
        "Step 1, the prefill: 16 queries × 16 keys, 256 cells paid this step; 16 KV slots written."
    )
    assert grid_view(16, 16, 16, "kv")["text"] == (
        "Step 16: one new query row against 31 keys, 31 cells paid this step; "
        "585 cells paid by earlier steps are not repeated; 31 KV slots held, 1 new."
    )
    assert grid_view(16, 16, 16, "recompute")["text"] == (
        "Step 16: every query again, 31 queries × 31 keys, 961 cells paid this step; no KV slots kept."
    )


@pytest.mark.parametrize(("prompt", "tokens"), [(16, 16), (128, 64)])
@pytest.mark.parametrize("mode", MODES)
def test_the_picture_draws_the_views_rectangles_and_slots(prompt: int, tokens: int, mode: Mode) -> None:
    for steps in (0, 1, 2, tokens):
        view = grid_view(prompt, tokens, steps, mode)
        (svg,) = grid_picture(view)
        assert svg[0] == "svg" and svg[1]["data-size"] == str(view["size"])
        for kind in ("now", "held"):
            drawn = [shape[1] for shape in svg[2:] if shape[1].get("data-kind") == kind]  # type: ignore[index, union-attr]
            boxes = [[int(box[key]) for key in ("y", "x", "height", "width")] for box in drawn]  # type: ignore[index]
            assert boxes == view[kind]
        lines = [shape for shape in svg[2:] if shape[1].get("class") == "grid-lines"]  # type: ignore[index, union-attr]
        assert len(lines) == (0 if view["dense"] else 1)
        (strip,) = slots_picture(view)
        drawn_slots = [shape[1] for shape in strip[2:] if "data-count" in shape[1]]  # type: ignore[index, operator]
        assert sum(int(box["data-count"]) for box in drawn_slots) == sum(run["count"] for run in view["slots"])  # type: ignore[index]


def texts(svg: Any, kind: str) -> list[Any]:
    return [shape for shape in svg[2:] if shape[0] == "text" and shape[1]["class"] == kind]


@pytest.mark.parametrize(("prompt", "tokens"), RUNS)
def test_the_axes_number_token_positions_and_the_prompt_is_named_before_any_step(prompt: int, tokens: int) -> None:
    """Keys across and queries down are numbered from 1 to the grid's size (the prompt's end where it
    does not crowd them), at their cells' middles, and the prompt's square is named at step 0."""
    size = grid_size(prompt, tokens)
    (svg,) = grid_picture(grid_view(prompt, tokens, 0, "kv"))
    numbers = texts(svg, "grid-number")
    across = {int(text[2]): float(text[1]["x"]) for text in numbers if text[1]["text-anchor"] == "middle"}
    down = {int(text[2]): float(text[1]["y"]) for text in numbers if text[1]["text-anchor"] == "end"}
    assert across == down
    assert {1, size} <= set(across) <= {1, prompt, size}
    assert all(at == position - 0.5 for position, at in across.items())
    if abs(prompt - 1) > 4 * font(size) and abs(size - prompt) > 4 * font(size):
        assert prompt in across
    (name,) = texts(svg, "grid-prompt-name")
    assert name[2] == f"prompt, {prompt} tokens"
    assert float(name[1]["x"]) >= 0 and 0 < float(name[1]["y"]) < size  # on the grid, in the prompt's rows


@pytest.mark.parametrize("mode", MODES)
def test_cells_carry_their_modes_colour(mode: Mode) -> None:
    """Paid cells are the mode's (the page colours ``grid-kv`` and ``grid-recompute``), whichever step."""
    for steps in (1, 2, 16):
        (svg,) = grid_picture(grid_view(16, 16, steps, mode))
        paid = [shape[1] for shape in svg[2:] if "data-kind" in shape[1]]  # type: ignore[index, operator]
        assert paid and all(f"grid-{mode}" in box["class"].split() for box in paid)  # type: ignore[index, union-attr]


def test_in_a_dense_grid_a_background_line_keeps_this_steps_row_off_the_rows_above() -> None:
    """Cells paid now and earlier are under 3:1 against each other, so they never touch."""
    view = grid_view(128, 64, 10, "kv")
    (svg,) = grid_picture(view)
    (row, col, _, cols) = view["now"][0]  # type: ignore[index, misc]
    gaps = [shape[1]["d"] for shape in svg[2:] if shape[1].get("class") == "grid-gap"]  # type: ignore[index, union-attr]
    assert gaps == [f"M{col} {row}H{col + cols}"]
