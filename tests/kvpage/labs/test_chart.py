"""The decode lab's chart: series as long as the run so far, on axes fixed for the whole run."""

import itertools
from typing import Any

import pytest

from kvpage.costs import MODES, Mode, cumulative_cost, step_cost
from kvpage.labs.chart import HEIGHT, PANELS, WIDTH, chart_picture, chart_view, nice_ticks, short, table_part


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
    found = [s for s in view["series"] if s["current"] is current]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("steps", [0, 1, 2, 16])
def test_series_hold_the_steps_taken(mode: Mode, steps: int) -> None:
    view: Any = chart_view(16, 16, steps, mode)
    mine, theirs = series(view, True), series(view, False)
    assert mine["mode"] == mode != theirs["mode"]
    for line in (mine, theirs):
        assert line["per_step"] == [step_cost(16, k, line["mode"]) for k in range(1, steps + 1)]
        assert line["totals"] == [cumulative_cost(16, k, line["mode"]) for k in range(1, steps + 1)]
    assert len(view["table"]["rows"]) == steps


@pytest.mark.parametrize(("prompt", "tokens"), [(16, 16), (1, 64), (128, 64), (3, 1)])
def test_axes_hold_everything_either_mode_can_reach(prompt: int, tokens: int) -> None:
    view: Any = chart_view(prompt, tokens, 0, "kv")
    biggest_step = max(step_cost(prompt, k, m) for m in MODES for k in range(1, tokens + 1))
    assert view["per_step"]["top"] >= biggest_step
    assert view["totals"]["top"] >= cumulative_cost(prompt, tokens, "recompute")


def test_labels_mark_the_prefill_and_the_decode_steps() -> None:
    assert chart_view(16, 16, 0, "kv")["notes"] == []
    notes: Any = chart_view(16, 16, 16, "kv")["notes"]
    assert notes == [
        {"text": "time to first token", "step": 1, "value": 256, "place": "above"},
        {"text": "per-token cost", "step": 9, "value": 24, "place": "above"},
    ]


def test_table_and_words_state_the_numbers() -> None:
    view: Any = chart_view(16, 16, 16, "kv")
    table = view["table"]
    assert table["groups"] == ["KV cache", "Recompute"]
    assert table["columns"] == ["Step", "this step", "so far", "this step", "so far"]
    assert chart_view(16, 16, 1, "recompute")["table"]["groups"] == ["Recompute", "KV cache"]
    assert table["rows"][-1] == ["16", "31", "616", "961", "9,176"]
    assert view["text"] == (
        "Cells paid after 16 of 16 steps: KV cache 616 (256 for the prefill, then 17 to 31 per token); "
        "Recompute 9,176 (256 for the prefill, then 289 to 961 per token)."
    )
    assert chart_view(16, 16, 2, "recompute")["text"] == (
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
            assert [int(point["data-value"]) for point in points] == line[panel]
            assert all(0 <= float(point["cx"]) <= WIDTH and 0 <= float(point["cy"]) <= HEIGHT for point in points)
        notes = [shape[2] for shape in svg[2:] if shape[0] == "text" and shape[1]["class"] == "chart-note"]
        assert notes == ([note["text"] for note in view["notes"]] if panel == "per_step" else [])


def test_the_table_part_holds_the_tables_rows() -> None:
    view: Any = chart_view(16, 16, 16, "kv")
    caption, *_, head, body = table_part(view)
    assert caption == ["caption", {}, "Cells per step and in total, both modes"]
    assert [cell[2] for cell in head[3][2:]] == view["table"]["columns"]
    assert [[row[2][2], *(cell[2] for cell in row[3:])] for row in body[2:]] == view["table"]["rows"]
