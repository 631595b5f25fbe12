"""Pictures for any lab, the chapter's own included: one vocabulary, each picture a lab's *part*.

Each function returns a part (a list of :mod:`kvpage.tree` nodes) for an output of kind
``"picture"`` (or ``"table"``): ``{"parts": {"shares": bar_chart(...)}}``. They are built, and
drawn by the page, the same way:

- **The page sizes them.** Marks are SVG in units of the data (cells, a 0 to 100 track), stretched
  to the width the page gives them, their strokes kept thin by ``vector-effect``. The simple ones
  (:mod:`kvpage.pictures.basic`) keep every word as HTML text beside the drawing, so it keeps the
  page's font size in any column; the chapter's richer ones put a few words at points of the
  drawing (a line's name at its end, a grid's positions), sized in the drawing's units.
- **Colours are the page's.** Marks are drawn by class (``pic-*``, ``bar-*``, ``grid-*``,
  ``slot-*``, ``series-*`` and ``chart-*`` in ``static/kvpage.css``), in its light and dark
  colours, at least 3:1 against the page; two colours that are not 3:1 against each other never
  touch (a line of the background parts them), and series differ by dash or name too.
- **Each says itself in words.** The drawing is ``aria-hidden``; the lab says what it shows in text
  (a summary, the values, a table of the numbers) for screen readers and search.

The vocabulary:

- :func:`bar_chart`, :func:`line_chart` (:class:`Series`), :func:`cell_grid`: any lab's bars, lines
  with labelled series, grid of cells (:mod:`kvpage.pictures.basic`);
- :func:`split_bars`: bars on one scale, each split into its reused and its paid part (the
  next-request lab);
- :func:`panel_chart` (a :class:`RunChart`; :class:`Inset`): a run's chart on fixed axes, each line named at
  its end, notes where no line passes, an inset for a line too small for the main axis (the decode
  lab's two panels);
- :func:`block_grid`, :func:`slot_strip`: a grid of cells drawn as rectangles, and a strip of
  slots under it (the decode lab's attention grid and KV cache);
- :func:`grouped_table`: a table of numbers with grouped columns (the decode chart's numbers);
- :func:`layer_grid`, :func:`corner_square`: cells by layer and token, and one square split into a
  reused corner and a paid L (the next-request lab's why and how much), their words in CSS pixels
  at any width (:mod:`kvpage.pictures.layers`).

Each refuses what it cannot draw with :class:`PictureError`, which the build's sweep reports at the
lab's line. Pure data and the standard library only: this package runs in the reader's browser too.
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
