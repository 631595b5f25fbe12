"""A table of numbers with grouped columns, for readers who want a picture's numbers exactly: the first
column names the rows (``th scope=row``), the others come in equal groups under a heading that spans
each, so a screen reader says the group, the column and the row of every number.
"""

from __future__ import annotations

from collections.abc import Sequence

from kvpage.jsonvalue import JSONValue
from kvpage.pictures.basic import PictureError
from kvpage.tree import el


def grouped_table(
    caption: str, groups: Sequence[str], columns: Sequence[str], rows: Sequence[Sequence[str]]
) -> list[JSONValue]:
    """``columns`` (the row names' column first, then the others) under ``groups`` (each over an equal
    share of the others), one ``tr`` per row of ``rows`` (its name, then one text per other column)."""
    shared, left = divmod(len(columns) - 1, max(len(groups), 1))
    if not groups or not shared or left:
        raise PictureError(f"{len(columns) - 1} columns do not split into {len(groups)} equal groups")
    if any(len(row) != len(columns) for row in rows):
        raise PictureError(f"every row has {len(columns)} cells, its name first")
    heads = [el("th", {"scope": "colgroup", "colspan": shared}, name) for name in groups]
    names = [el("th", {"scope": "col"}, name) for name in columns]
    body = [
        el("tr", {}, el("th", {"scope": "row"}, name), *(el("td", {}, value) for value in values))
        for name, *values in rows
    ]
    return [
        el("caption", {}, caption),
        el("colgroup", {}, el("col")),
        *(el("colgroup", {"span": shared}) for _ in groups),
        el("thead", {}, el("tr", {}, el("td"), *heads), el("tr", {}, *names)),
        el("tbody", {}, *body),
    ]
