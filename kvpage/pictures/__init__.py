"""The picture vocabulary: one set of words, each picture a lab's *part*, for the chapter's labs and any
book's; docs/authoring.md ("Drawing a picture") says how each stays readable (sized by the page, in
its colours, its words for screen readers). Built from dataclasses and serialized once, as the tree
the view carries (decision 0061). Pure data and the standard library: it runs in the browser too.
"""

from kvpage.pictures.basic import (
    CELL_KINDS,
    MOST_BARS,
    MOST_CELLS,
    MOST_POINTS,
    SERIES_CLASSES,
    PictureError,
    Series,
    bar_chart,
    cell_grid,
    line_chart,
)
from kvpage.pictures.blocks import Rect, block_grid, slot_strip
from kvpage.pictures.layers import LAYER_KINDS, corner_square, layer_grid
from kvpage.pictures.panel import Axis, Inset, Line, Note, RunChart, Tick, axis, panel_chart
from kvpage.pictures.split_bars import split_bars
from kvpage.pictures.table import grouped_table

__all__ = [
    "CELL_KINDS",
    "LAYER_KINDS",
    "MOST_BARS",
    "MOST_CELLS",
    "MOST_POINTS",
    "SERIES_CLASSES",
    "Axis",
    "Inset",
    "Line",
    "Note",
    "PictureError",
    "Rect",
    "RunChart",
    "Series",
    "Tick",
    "axis",
    "bar_chart",
    "block_grid",
    "cell_grid",
    "corner_square",
    "grouped_table",
    "layer_grid",
    "line_chart",
    "panel_chart",
    "slot_strip",
    "split_bars",
]
