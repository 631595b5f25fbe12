"""The picture vocabulary's simple words (kvpage/pictures/basic.py): every word is HTML text outside
the drawing, so the page sizes it; marks are placed by their values; what a picture cannot draw is
refused with a reason."""

from __future__ import annotations

import pytest

from kvpage.jsonvalue import JSONValue
from kvpage.pictures import CELL_KINDS, MOST_BARS, PictureError, Series, bar_chart, cell_grid, line_chart
from kvpage.tree import check


def nodes(part: list[JSONValue], inside_svg: bool = False) -> list[tuple[str, dict[str, str], bool]]:
    """Every element of ``part`` as (tag, attributes, whether it is inside an svg)."""
    found: list[tuple[str, dict[str, str], bool]] = []
    for node in part:
        if isinstance(node, list):
            tag, attributes, *children = node
            found.append((str(tag), dict(attributes), inside_svg))  # type: ignore[arg-type]
            found += nodes(children, inside_svg or tag == "svg")
    return found


def texts(part: list[JSONValue], inside_svg: bool = False) -> list[tuple[str, bool]]:
    """Every text of ``part``, and whether it is inside an svg (where it would scale with the drawing)."""
    found: list[tuple[str, bool]] = []
    for node in part:
        if isinstance(node, str):
            found.append((node, inside_svg))
        elif isinstance(node, list):
            found += texts(node[2:], inside_svg or node[0] == "svg")
    return found


def test_a_bar_chart_says_each_name_and_value_in_text_and_draws_each_bar_to_scale() -> None:
    part = bar_chart([("score 1", 0.659, "65.9%"), ("score 2", 0.242, "24.2%")], "Two shares.", top=1)
    for node in part:
        check(node)
    words = texts(part)
    assert [text for text, _ in words] == ["Two shares.", "score 1", "65.9%", "score 2", "24.2%"]
    assert not any(inside for _, inside in words), "text inside an svg scales with the column"
    fills = [attributes["width"] for tag, attributes, _ in nodes(part) if attributes.get("class") == "pic-bar-fill"]
    assert fills == ["65.9", "24.2"]
    tracks = [attributes for tag, attributes, _ in nodes(part) if tag == "svg"]
    assert all(track["preserveAspectRatio"] == "none" and track["aria-hidden"] == "true" for track in tracks)
    largest = bar_chart([("a", 2, "2"), ("b", 1, "1")], "Scaled to the largest.")
    assert [a["width"] for _, a, _ in nodes(largest) if a.get("class") == "pic-bar-fill"] == ["100", "50"]


def test_a_line_chart_labels_its_series_and_axes_in_text_and_tells_series_apart_by_class() -> None:
    part = line_chart(
        [Series("KV cache", ((0, 0), (4, 4))), Series("Recompute", ((0, 0), (2, 4), (4, 16)))],
        "Cells paid per step.",
        "step",
        "cells",
    )
    for node in part:
        check(node)
    words = [text for text, inside in texts(part) if not inside]
    assert words == ["Cells paid per step.", " KV cache", " Recompute", "cells: 16", "step: 0 to 4"]
    assert not any(inside for _, inside in texts(part))
    lines = [a for tag, a, _ in nodes(part) if tag == "polyline"]
    assert [line["class"] for line in lines] == ["pic-line pic-series-1", "pic-line pic-series-2"]
    assert lines[1]["points"] == "0,100 50,75 100,0"  # y grows upward: 16 is the top


def test_a_cell_grid_draws_each_cell_by_its_kind_and_names_the_kinds_in_text() -> None:
    part = cell_grid([[1, 0], [1, 2]], "A 2 by 2 grid.", ("empty", "paid", "new"))
    for node in part:
        check(node)
    cells = [a["class"] for tag, a, inside in nodes(part) if tag == "rect" and a.get("width") == "1"]
    assert cells == [f"pic-cell {CELL_KINDS[kind]}" for kind in (1, 0, 1, 2)]
    assert [text for text, inside in texts(part)] == ["A 2 by 2 grid.", " empty", " paid", " new"]
    (grid,) = [a for tag, a, inside in nodes(part) if a.get("class") == "pic-grid"]
    assert grid["viewBox"] == "0 0 2 2"


@pytest.mark.parametrize(
    ("draw", "refused"),
    [
        (lambda: bar_chart([], "s"), "1 to 50 bars"),
        (lambda: bar_chart([("x", 1, "1")] * (MOST_BARS + 1), "s"), "not 51"),
        (lambda: bar_chart([("x", -1, "-1")], "s", top=1), "'x': -1 is not between 0 and 1"),
        (lambda: line_chart([Series(str(n), ((0, 0),)) for n in range(4)], "s", "x", "y"), "1 to 3 series"),
        (lambda: line_chart([Series("a", ((0, -1),))], "s", "x", "y"), "at or above 0"),
        (lambda: cell_grid([[3]], "s"), "kind 3"),
        (lambda: cell_grid([[0] * 65] * 64, "s"), "1 to 4,096 cells"),
    ],
)
def test_what_a_picture_cannot_draw_is_refused_with_its_reason(draw: object, refused: str) -> None:
    with pytest.raises(PictureError, match=refused):
        draw()  # type: ignore[operator]
