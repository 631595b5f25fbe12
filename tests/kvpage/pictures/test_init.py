"""The picture vocabulary (kvpage/pictures/__init__.py) is the one the chapter's labs draw with."""

from __future__ import annotations

from pathlib import Path

import kvpage.labs
import kvpage.pictures


def test_no_lab_draws_an_svg_of_its_own() -> None:
    """Every drawing a lab sends is built by the vocabulary: a lab module computes, and calls it."""
    labs = sorted(Path(kvpage.labs.__file__).parent.glob("*.py"))
    assert labs, "the labs' sources are where the package is"
    drawing = [path.name for path in labs if '"svg"' in path.read_text(encoding="utf-8")]
    assert drawing == []


def test_every_word_is_offered_from_the_package() -> None:
    offered = set(kvpage.pictures.__all__)
    assert {"bar_chart", "line_chart", "cell_grid", "split_bars", "panel_chart", "block_grid", "slot_strip"} <= offered
    assert all(hasattr(kvpage.pictures, name) for name in offered)
