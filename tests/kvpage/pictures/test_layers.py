"""Cells by layer and one square (kvpage/pictures/layers.py): runs, glyphs, lines parting kinds, words that fit."""

from __future__ import annotations

from typing import Any

import pytest

from kvpage.pictures import LAYER_KINDS, PictureError, corner_square, layer_grid
from kvpage.pictures.layers import MOST_GLYPHS, MOST_LINES, percent, positions
from kvpage.tree import check


def found(node: Any, tag: str) -> list[Any]:
    """Every ``tag`` element of a tree, in order."""
    if isinstance(node, str):
        return []
    return ([node] if node[0] == tag else []) + [hit for child in node[2:] for hit in found(child, tag)]


def test_a_row_is_a_rectangle_per_run_of_a_kind_with_its_glyphs_and_the_lines_between_cells() -> None:
    (frame,) = layer_grid([("layer 1", ["reused", "reused", "changed", "same"])], [(0, 2, "reused", "reused")], 3)
    check(frame)
    row = next(svg for svg in found(frame, "svg") if svg[1]["class"] == "lay-row")
    cells = [(rect[1]["data-kind"], rect[1]["x"], rect[1]["width"]) for rect in found(row, "rect")]
    assert cells == [("reused", "0%", "50%"), ("changed", "50%", "25%"), ("same", "75%", "25%")]
    assert [text[2] for text in found(row, "text")] == [LAYER_KINDS["changed"], LAYER_KINDS["same"]] == ["≠", "="]
    assert [line[1]["x1"] for line in found(row, "line")] == ["25%", "50%", "75%"]
    names = [span[2] for span in found(frame, "span") if len(span) > 2]
    assert names == ["layer 1", "token"]  # words are HTML beside the drawing


def test_a_wide_row_parts_only_different_kinds_and_draws_no_glyphs() -> None:
    n = max(MOST_LINES, MOST_GLYPHS) + 8
    kinds = ["reused"] * 5 + ["changed"] + ["same", "paid"] * ((n - 6) // 2)
    (frame,) = layer_grid([("layer 1", kinds)], [], None)
    row = next(svg for svg in found(frame, "svg") if svg[1]["class"] == "lay-row")
    assert found(row, "text") == []
    # same and paid are one colour: only the two changes of colour are parted
    assert [line[1]["x1"] for line in found(row, "line")] == [percent(5 / n), percent(6 / n)]


def test_a_span_is_named_over_its_middle_where_it_fits_else_at_its_outer_end() -> None:
    (frame,) = layer_grid(
        [("layer 1", ["reused"] + ["paid"] * 13)], [(0, 1, "reused", "reused"), (1, 14, "paid", "paid")], 2
    )
    names = {text[1]["data-kind"]: text[1] for text in found(frame, "text") if text[1]["class"] == "lay-span-name"}
    assert (names["reused"]["x"], names["reused"]["text-anchor"]) == ("0%", "start")
    assert names["paid"]["text-anchor"] == "middle"


def test_positions_leave_out_the_marked_one_where_it_would_crowd_an_end() -> None:
    assert positions(14, 11) == [(1, "start"), (11, "middle"), (14, "end")]
    assert positions(14, 14) == [(1, "start"), (14, "end")]
    assert positions(200, 2) == [(1, "start"), (200, "end")]
    assert positions(1, 1) == [(1, "start")]


def test_layer_grid_refuses_what_it_cannot_draw() -> None:
    with pytest.raises(PictureError, match="all as long"):
        layer_grid([("a", ["paid"]), ("b", ["paid", "paid"])], [], None)
    with pytest.raises(PictureError, match="all as long"):
        layer_grid([], [], None)
    with pytest.raises(PictureError, match="kind"):
        layer_grid([("a", ["cached"])], [], None)


def test_the_square_is_its_corner_and_the_l_around_it_parted_by_lines() -> None:
    (frame,) = corner_square(14, 10, reused="reused 100", paid="paid 96")
    check(frame)
    rects = [rect[1] for rect in found(frame, "rect")]
    assert [(rect["data-kind"], rect["data-value"]) for rect in rects] == [
        ("reused", "100"),
        ("paid", "40"),
        ("paid", "56"),
    ]
    gaps = [line[1] for line in found(frame, "line") if line[1]["class"] == "sq-gap"]
    assert [(gap["x1"], gap["y1"], gap["x2"], gap["y2"]) for gap in gaps] == [
        ("71.43%", "0", "71.43%", "71.43%"),
        ("0", "71.43%", "71.43%", "71.43%"),
    ]
    labels = {text[1]["data-kind"]: text for text in found(frame, "text") if text[1]["class"] == "sq-label"}
    assert (labels["reused"][2], labels["paid"][2]) == ("reused 100", "paid 96")
    assert labels["reused"][1]["text-anchor"] == "middle"  # 171 px of corner holds it


def test_a_square_all_paid_or_all_reused_has_one_kind_and_no_gap() -> None:
    for corner, kinds in ((0, ["paid", "paid"]), (5, ["reused"])):
        (frame,) = corner_square(5, corner, reused="reused", paid="paid")
        assert [rect[1]["data-kind"] for rect in found(frame, "rect")] == kinds
        assert [line for line in found(frame, "line") if line[1]["class"] == "sq-gap"] == []
    (big,) = corner_square(MOST_LINES + 1, 1, reused="reused 1", paid="paid")
    assert [line[1]["class"] for line in found(big, "line")] == ["sq-gap", "sq-gap"]  # a dense square: only the gap
    with pytest.raises(PictureError):
        corner_square(0, 0, reused="", paid="")
    with pytest.raises(PictureError):
        corner_square(3, 4, reused="", paid="")
