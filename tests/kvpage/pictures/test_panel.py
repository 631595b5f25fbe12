"""A run's chart panel (kvpage/pictures/panel.py) for any lab's series: its unit and axis named as
the lab says, each line named at its end, notes and an inset only where asked."""

from __future__ import annotations

from typing import Any

from kvpage.pictures import Inset, Line, Note, RunChart, Tick, axis, panel_chart
from kvpage.tree import check


def run_chart() -> RunChart:
    """Two series of a four-request run, two requests taken, on a "ms" axis."""
    return RunChart(
        steps=4,
        taken=2,
        x_ticks=(Tick(1, "1"), Tick(4, "4")),
        axes={"ms": axis(100)},
        series=(
            Line("cold", "Cold", current=True, taken={"ms": [60, 70]}, whole={"ms": [60, 70, 80, 90]}),
            Line("warm", "Warm", current=False, taken={"ms": [2, 3]}, whole={"ms": [2, 3, 4, 5]}),
        ),
        notes=(Note("first", step=1, value=60),),
    )


def elements(node: Any) -> list[Any]:
    """``node`` and every element inside it."""
    inside = [child for child in node[2:] if isinstance(child, list)]
    return [node, *(found for child in inside for found in elements(child))]


def texts(svg: Any) -> list[str]:
    return [str(node[2]) for node in elements(svg) if node[0] == "text"]


def test_the_panel_says_the_labs_unit_and_axis_and_names_each_line() -> None:
    (svg,) = panel_chart(run_chart(), "ms", unit="ms", x_name="request")
    check(svg)
    words = texts(svg)
    assert {"ms", "request", "Cold", "Warm"} <= set(words)
    assert "cells" not in words and "step" not in words
    classes = [str(node[1].get("class", "")) for node in elements(svg)]
    assert "series series-current series-cold" in classes and "series series-other series-warm" in classes
    assert not any("chart-note" in name or "chart-inset" in name for name in classes)  # neither asked for


def test_notes_and_an_inset_are_drawn_when_asked() -> None:
    (svg,) = panel_chart(
        run_chart(), "ms", unit="ms", x_name="request", notes=True, inset=Inset("warm", "Warm, up close")
    )
    groups = [node for node in elements(svg) if node[0] == "g"]
    assert [group[1]["data-inset"] for group in groups] == ["warm"]
    assert "Warm, up close" in texts(groups[0])
    inset_lines = [node[1] for node in elements(groups[0]) if node[0] == "polyline"]
    assert {line["data-mode"] for line in inset_lines} == {"warm"}
    assert "first" in [str(node[2]) for node in elements(svg) if node[1].get("class") == "chart-note"]


def test_axis_ticks_end_past_the_top_with_short_labels() -> None:
    found = axis(2_400)
    assert found.top == 2_500
    assert [tick.text for tick in found.ticks] == ["0", "500", "1k", "1.5k", "2k", "2.5k"]
