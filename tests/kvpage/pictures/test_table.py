"""A table with grouped columns (kvpage/pictures/table.py): every number under its group and column."""

from __future__ import annotations

import pytest

from kvpage.pictures import PictureError, grouped_table
from kvpage.tree import check


def test_the_groups_span_equal_shares_of_the_columns() -> None:
    part = grouped_table("Latency", ["p50", "p99", "max"], ["Run", "ms", "ms", "ms"], [["1", "3", "9", "12"]])
    for node in part:
        check(node)
    caption, first, *groups, head, body = part
    assert caption == ["caption", {}, "Latency"]
    assert first == ["colgroup", {}, ["col", {}]]
    assert groups == [["colgroup", {"span": "1"}]] * 3
    assert [cell[1]["colspan"] for cell in head[2][3:]] == ["1", "1", "1"]  # type: ignore[index]
    assert body[2] == ["tr", {}, ["th", {"scope": "row"}, "1"], ["td", {}, "3"], ["td", {}, "9"], ["td", {}, "12"]]


@pytest.mark.parametrize(
    ("groups", "columns", "rows", "says"),
    [
        (["a", "b"], ["Step", "x", "y", "z"], [], "3 columns do not split into 2 equal groups"),
        ([], ["Step", "x"], [], "1 columns do not split into 0 equal groups"),
        (["a"], ["Step", "x"], [["1"]], "every row has 2 cells"),
    ],
)
def test_columns_that_do_not_split_evenly_or_short_rows_are_refused(
    groups: list[str], columns: list[str], rows: list[list[str]], says: str
) -> None:
    with pytest.raises(PictureError, match=says):
        grouped_table("T", groups, columns, rows)
