"""A grid of rectangles of cells and its strip of slots (kvpage/pictures/blocks.py), for any lab:
its tone, its square's name and its classes as the lab gives them."""

from __future__ import annotations

from typing import Any

from kvpage.pictures import block_grid, slot_strip
from kvpage.tree import check


def marks(svg: Any, tag: str) -> list[dict[str, str]]:
    return [node[1] for node in svg[2:] if isinstance(node, list) and node[0] == tag]


def test_a_grid_draws_its_rectangles_in_its_tone_with_its_square_named() -> None:
    (svg,) = block_grid(
        10,
        [(0, 0, 3, 3)],
        [(3, 0, 1, 4)],
        tone="warm",
        square=3,
        square_name="first three",
        dense=False,
        name="my-grid",
    )
    check(svg)
    assert svg[1]["class"] == "my-grid" and svg[1]["data-mode"] == "warm" and svg[1]["data-size"] == "10"
    filled = [(box["class"], box["x"], box["y"], box["width"], box["height"]) for box in marks(svg, "rect")[1:3]]
    assert filled == [("grid-held grid-warm", "0", "0", "3", "3"), ("grid-now grid-warm", "0", "3", "4", "1")]
    names = [node[2] for node in svg[2:] if node[0] == "text" and node[1]["class"] == "grid-prompt-name"]
    assert names == ["first three"]
    assert [path["class"] for path in marks(svg, "path")] == ["grid-lines"]  # a sparse grid: every cell's lines


def test_a_dense_grid_parts_the_newest_row_from_the_ones_before() -> None:
    (svg,) = block_grid(
        60, [(0, 0, 50, 50)], [(50, 0, 1, 51)], tone="t", square=50, square_name="s", dense=True, name="g"
    )
    assert [path["d"] for path in marks(svg, "path")] == ["M0 50H51"]
    assert "dense" in svg[1]["class"].split()


def test_a_strip_of_slots_parts_the_kind_it_is_told_from_the_run_before() -> None:
    (svg,) = slot_strip(8, [("held", 0, 5), ("new", 5, 1)], parted="new", dense=True, name="strip")
    check(svg)
    assert [(box["class"], box.get("data-count")) for box in marks(svg, "rect")[1:3]] == [
        ("slot-held", "5"),
        ("slot-new", "1"),
    ]
    assert [path["d"] for path in marks(svg, "path")] == ["M5 0V1"]
    (sparse,) = slot_strip(8, [("held", 0, 5), ("new", 5, 1)], parted="new", dense=False, name="strip")
    assert [path["class"] for path in marks(sparse, "path")] == ["grid-lines"]
