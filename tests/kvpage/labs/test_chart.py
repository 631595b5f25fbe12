"""The decode lab's chart: series as long as the run so far, on axes fixed for the whole run."""

import itertools
from typing import Any

import pytest

from kvpage.costs import MODES, Mode, cumulative_cost, step_cost
from kvpage.labs.chart import PANELS, chart_picture, chart_view, table_part
from kvpage.pictures import Note
from kvpage.pictures.panel import BOTTOM, CHAR, HEIGHT, INSET_H, LEFT, LINE, TOP, WIDTH, crosses, nice_ticks, short


@pytest.mark.parametrize("top", [1, 7, 10, 99, 256, 961, 9_176, 36_481, 1_650_016])
def test_ticks_cover_the_top_in_few_equal_round_steps(top: int) -> None:
    ticks = nice_ticks(top)
    assert ticks[0] == 0
    assert ticks[-1] >= top > ticks[-2]
    assert 2 <= len(ticks) <= 6
    step = ticks[1]
    assert all(b - a == step for a, b in itertools.pairwise(ticks))
    assert str(step).strip("0") in {"1", "2", "5"}


def test_ticks_for_the_seed_run() -> None:
    assert nice_ticks(961) == [0, 200, 400, 600, 800, 1000]
    assert nice_ticks(9_176) == [0, 2000, 4000, 6000, 8000, 10000]


def test_short_labels() -> None:
    assert [short(n) for n in (0, 900, 2_500, 10_000, 1_500_000)] == ["0", "900", "2.5k", "10k", "1.5M"]


def series(view: Any, current: bool) -> Any:
    found = [s for s in view.run.series if s.current is current]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("steps", [0, 1, 2, 16])
def test_series_hold_the_steps_taken(mode: Mode, steps: int) -> None:
    view: Any = chart_view(16, 16, steps, mode)
    mine, theirs = series(view, True), series(view, False)
    assert mine.mode == mode != theirs.mode
    for line in (mine, theirs):
        assert line.taken["per_step"] == [step_cost(16, k, line.mode) for k in range(1, steps + 1)]
        assert line.taken["totals"] == [cumulative_cost(16, k, line.mode) for k in range(1, steps + 1)]
    assert len(view.table.rows) == steps


@pytest.mark.parametrize(("prompt", "tokens"), [(16, 16), (1, 64), (128, 64), (3, 1)])
def test_axes_hold_everything_either_mode_can_reach(prompt: int, tokens: int) -> None:
    view: Any = chart_view(prompt, tokens, 0, "kv")
    biggest_step = max(step_cost(prompt, k, m) for m in MODES for k in range(1, tokens + 1))
    assert view.run.axes["per_step"].top >= biggest_step
    assert view.run.axes["totals"].top >= cumulative_cost(prompt, tokens, "recompute")


def test_labels_mark_the_prefill_and_the_decode_steps() -> None:
    assert chart_view(16, 16, 0, "kv").run.notes == ()
    assert chart_view(16, 16, 16, "kv").run.notes == (
        Note("time to first token", step=1, value=256),
        Note("per-token cost", step=9, value=24),
    )


def test_table_and_words_state_the_numbers() -> None:
    view: Any = chart_view(16, 16, 16, "kv")
    table = view.table
    assert table.groups == ("KV cache", "Recompute")
    assert table.columns == ("Step", "this step", "so far", "this step", "so far")
    assert chart_view(16, 16, 1, "recompute").table.groups == ("Recompute", "KV cache")
    assert table.rows[-1] == ("16", "31", "616", "961", "9,176")
    assert view.text == (
        "Cells paid after 16 of 16 steps: KV cache 616 (256 for the prefill, then 17 to 31 per token); "
        "Recompute 9,176 (256 for the prefill, then 289 to 961 per token)."
    )
    assert chart_view(16, 16, 2, "recompute").text == (
        "Cells paid after 2 of 16 steps: Recompute 545 (256 for the prefill, then 289 for one token); "
        "KV cache 273 (256 for the prefill, then 17 for one token)."
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("tokens", "steps"), [(16, 0), (16, 5), (16, 16), (1, 1), (64, 64)])
def test_each_panel_draws_one_point_per_step_taken_inside_its_frame(mode: Mode, tokens: int, steps: int) -> None:
    view: Any = chart_view(16, tokens, steps, mode)
    for panel in PANELS:
        (svg,) = chart_picture(view, panel)
        assert svg[1]["data-chart"] == panel
        for role, line in (("current", series(view, True)), ("other", series(view, False))):
            points = [shape[1] for shape in svg[2:] if shape[0] == "circle" and shape[1]["data-series"] == role]
            assert [int(point["data-value"]) for point in points] == line.taken[panel]
            assert all(0 <= float(point["cx"]) <= WIDTH and 0 <= float(point["cy"]) <= HEIGHT for point in points)
        notes = [shape[2] for shape in svg[2:] if shape[0] == "text" and shape[1]["class"] == "chart-note"]
        assert set(notes) <= ({note.text for note in view.run.notes} if panel == "per_step" else set())


def test_the_table_part_holds_the_tables_rows() -> None:
    view: Any = chart_view(16, 16, 16, "kv")
    caption, *_, head, body = table_part(view)
    assert caption == ["caption", {}, "Cells per step and in total, both modes"]
    assert [cell[2] for cell in head[3][2:]] == list(view.table.columns)
    assert [[row[2][2], *(cell[2] for cell in row[3:])] for row in body[2:]] == [list(row) for row in view.table.rows]


SETTINGS = [(16, 16), (1, 64), (128, 64), (128, 1), (128, 3), (64, 16), (3, 5)]
"""Prompt and tokens: the chapter's run, the sliders' corners, and runs where the lines crowd."""


def shapes(svg: Any, tag: str) -> list[Any]:
    """Every ``tag`` in an svg tree, inside groups too."""
    found = []
    for shape in svg[2:]:
        if shape[0] == tag:
            found.append(shape)
        if shape[0] == "g":
            found += shapes(shape, tag)
    return found


def polyline_points(line: Any) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (pair.split(",") for pair in line[1]["points"].split())]


def main_lines(svg: Any) -> list[Any]:
    """The panel's polylines, not the inset's."""
    return [shape for shape in svg[2:] if shape[0] == "polyline"]


@pytest.mark.parametrize(("prompt", "tokens"), SETTINGS)
@pytest.mark.parametrize("mode", MODES)
def test_both_modes_whole_runs_are_drawn_before_the_first_step(prompt: int, tokens: int, mode: Mode) -> None:
    """The preview: at step 0 each panel already draws both modes' every step, the model's values."""
    view: Any = chart_view(prompt, tokens, 0, mode)
    for panel in PANELS:
        (svg,) = chart_picture(view, panel)
        previews = [line for line in main_lines(svg) if line[1]["data-series"] == "preview"]
        assert sorted(line[1]["data-mode"] for line in previews) == sorted(MODES)
        top = view.run.axes[panel].top
        for line in previews:
            m = line[1]["data-mode"]
            expected = [
                step_cost(prompt, k, m) if panel == "per_step" else cumulative_cost(prompt, k, m)
                for k in range(1, tokens + 1)
            ]
            drawn = [(HEIGHT - BOTTOM - y) / (HEIGHT - TOP - BOTTOM) * top for _, y in polyline_points(line)]
            assert drawn == pytest.approx(expected, abs=top / 100), (panel, m)


@pytest.mark.parametrize("steps", [1, 5, 16])
def test_each_mode_keeps_its_colour_whichever_is_chosen(steps: int) -> None:
    """A mode's lines and points carry its class (the page colours it by mode), in either choice."""
    for chosen in MODES:
        for panel in PANELS:
            (svg,) = chart_picture(chart_view(16, 16, steps, chosen), panel)
            for shape in main_lines(svg) + shapes(svg, "circle"):
                mode = shape[1].get("data-mode") or ("kv" if "point-kv" in shape[1]["class"] else "recompute")
                assert f"-{mode}" in shape[1]["class"] and all(
                    f"-{other}" not in shape[1]["class"] for other in MODES if other != mode
                ), (chosen, shape[1])


def text_box(text: Any) -> tuple[float, float, float, float]:
    """A 10-unit text's box from its attributes: its anchor, its baseline, its characters."""
    x, y, width = float(text[1]["x"]), float(text[1]["y"]), len(text[2]) * CHAR
    left = {"start": x, "middle": x - width / 2, "end": x - width}[text[1].get("text-anchor", "start")]
    return (left, y - LINE + 2, left + width, y + 2)


@pytest.mark.parametrize(("prompt", "tokens"), SETTINGS)
@pytest.mark.parametrize("mode", MODES)
def test_no_label_sits_on_a_line(prompt: int, tokens: int, mode: Mode) -> None:
    """Notes and the inset clear of every line the panel draws; lines' names at their ends, apart."""
    for steps in sorted({0, 1, 2, tokens // 2, tokens} - {-1}):
        if steps > tokens:
            continue
        view: Any = chart_view(prompt, tokens, steps, mode)
        for panel in PANELS:
            (svg,) = chart_picture(view, panel)
            segments = []
            for line in main_lines(svg):
                points = polyline_points(line)
                if not points:  # the steps taken, before the first
                    continue
                segments += [(*a, *b) for a, b in itertools.pairwise(points)] or [(*points[0], *points[0])]
            notes = [text for text in shapes(svg, "text") if text[1]["class"] == "chart-note"]
            insets = [shape for shape in svg[2:] if shape[0] == "g"]
            boxes = [text_box(note) for note in notes]
            for inset in insets:
                (frame,) = (shape for shape in inset[2:] if shape[0] == "rect")
                x, y = float(frame[1]["x"]), float(frame[1]["y"])
                boxes.append((x, y, x + float(frame[1]["width"]), y + float(frame[1]["height"])))
            for box in boxes:
                assert not any(crosses(box, segment) for segment in segments), (panel, steps, box)
            ends = [text_box(text) for text in shapes(svg, "text") if "chart-end" in text[1]["class"]]
            assert len(ends) == len(MODES)
            assert all(box[0] > max(max(x0, x1) for x0, _, x1, _ in segments) for box in ends)  # right of every line
            (upper, lower) = sorted(ends, key=lambda box: box[1])
            assert upper[3] <= lower[1] + 1, (panel, steps, ends)


def test_the_kv_lines_growth_is_visible_in_its_inset() -> None:
    """On the main axis the KV cache's decode steps rise by under 2% of the plot; in the inset by half of it."""
    prompt, tokens = 16, 16
    (svg,) = chart_picture(chart_view(prompt, tokens, tokens, "kv"), "per_step")
    (kv,) = (line for line in main_lines(svg) if line[1]["data-series"] == "current")
    decode = polyline_points(kv)[1:]
    assert decode[0][1] - decode[-1][1] < 0.02 * (HEIGHT - TOP - BOTTOM)
    (inset,) = (shape for shape in svg[2:] if shape[0] == "g")
    (zoomed,) = (line for line in shapes(inset, "polyline") if line[1].get("data-series") == "inset")
    points = polyline_points(zoomed)
    assert len(points) == tokens - 1
    assert points[0][1] - points[-1][1] > INSET_H / 2


def test_each_panel_says_its_unit() -> None:
    for panel in PANELS:
        (svg,) = chart_picture(chart_view(16, 16, 0, "kv"), panel)
        (unit,) = (text for text in shapes(svg, "text") if "chart-unit" in text[1]["class"])
        assert unit[2] == "cells" and float(unit[1]["x"]) <= LEFT
