"""Split bars (kvpage/pictures/split_bars.py): each bar's reused and paid parts, on one scale."""

from __future__ import annotations

from typing import Any

import pytest

from kvpage.pictures import PictureError, split_bars
from kvpage.tree import check


def track(row: Any) -> list[Any]:
    """The marks of a row's bar: the svg's children."""
    return [node for node in row[3][2:] if isinstance(node, list)]


def test_each_part_is_as_long_as_its_value_on_the_shared_scale() -> None:
    rows = split_bars([("whole", 0, 40, "40 ms"), ("split", 30, 10, "10 ms"), ("none", 0, 0, "0 ms")], top=40)
    for row in rows:
        check(row)
    whole, split, none = (track(row) for row in rows)
    assert [mark[1]["class"] for mark in whole] == ["bar-back", "bar-fill"]
    assert whole[1][1]["width"] == "100"
    assert [mark[1]["class"] for mark in split] == ["bar-back", "bar-reused", "bar-fill", "bar-gap"]
    reused, paid, gap = split[1][1], split[2][1], split[3][1]
    assert (reused["width"], paid["x"], paid["width"], gap["d"]) == ("75", "75", "25", "M75 0V10")
    assert [mark[1]["class"] for mark in none] == ["bar-back", "bar-fill"]  # no gap without two parts
    # Words are HTML text beside the drawing: the name before it, the value as the reader reads it after.
    assert [(row[2][2], row[4][2]) for row in rows] == [("whole", "40 ms"), ("split", "10 ms"), ("none", "0 ms")]


def test_nothing_to_draw_draws_empty_bars() -> None:
    (row,) = split_bars([("empty", 0, 0, "0")], top=0)
    assert track(row)[1][1]["width"] == "0"


@pytest.mark.parametrize("row", [("over", 30, 11, "x"), ("negative", -1, 5, "x"), ("paid", 0, -2, "x")])
def test_a_bar_that_does_not_fit_its_scale_is_refused(row: tuple[str, int, int, str]) -> None:
    with pytest.raises(PictureError, match=f"bar '{row[0]}'"):
        split_bars([row], top=40)
