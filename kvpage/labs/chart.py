"""The decode lab's running chart: cost per step and paid so far, both modes on the same axes.

Both whole runs are drawn faintly from the start and the steps taken over them, on axes fixed for
the run, so the gap between the line and the square grows on screen; colour is never the only cue.
This module computes the numbers (:func:`chart_view`, which says why so); ``kvpage.pictures`` draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

from kvpage.costs import MODE_NAMES, MODES, Mode, cumulative_cost, step_cost
from kvpage.jsonvalue import JSONValue, count
from kvpage.pictures import Inset, Line, Note, RunChart, Tick, axis, grouped_table, panel_chart


def other(mode: Mode) -> Mode:
    """The counterfactual of ``mode``."""
    return next(m for m in MODES if m != mode)


def costs(prompt: int, steps: int, mode: Mode) -> list[int]:
    """Cells paid at each of the first ``steps`` steps."""
    return [step_cost(prompt, k, mode) for k in range(1, steps + 1)]


def _series(prompt: int, tokens: int, steps: int, mode: Mode, current: bool) -> Line:
    whole = costs(prompt, tokens, mode)
    whole_totals = list(accumulate(whole))
    taken = {"per_step": whole[:steps], "totals": whole_totals[:steps]}
    return Line(mode, MODE_NAMES[mode], current, taken, {"per_step": whole, "totals": whole_totals})


def _story(mode: Mode, per_step: list[int]) -> str:
    told = f"{MODE_NAMES[mode]} {count(sum(per_step))} ({count(per_step[0])} for the prefill"
    if len(per_step) == 2:
        told += f", then {count(per_step[1])} for one token"
    elif len(per_step) > 2:
        told += f", then {count(per_step[1])} to {count(per_step[-1])} per token"
    return told + ")"


def describe(prompt: int, tokens: int, steps: int, mode: Mode) -> str:
    """The chart in words, numbers included: its text alternative."""
    if steps == 0:
        return (
            f"No steps yet. Both modes begin with the same prefill of {count(step_cost(prompt, 1, mode))} cells, "
            "the time to first token; the chart fills in step by step."
        )
    mine = costs(prompt, steps, mode)
    theirs = costs(prompt, steps, other(mode))
    return f"Cells paid after {steps} of {tokens} steps: {_story(mode, mine)}; {_story(other(mode), theirs)}."


def _annotations(prompt: int, steps: int, mode: Mode) -> tuple[Note, ...]:
    """What to write on the per-step panel, at which point: "time to first token" at the prefill,
    "per-token cost" at the middle of the chosen mode's decode steps. Where each goes (clear of
    every line) is the picture's to find."""
    notes: list[Note] = []
    if steps >= 1:
        notes.append(Note("time to first token", 1, step_cost(prompt, 1, mode)))
    if steps >= 2:
        at = (2 + steps) // 2
        notes.append(Note("per-token cost", at, step_cost(prompt, at, mode)))
    return tuple(notes)


@dataclass(frozen=True)
class Numbers:
    """The chart as a table: a group of columns per mode, a row of texts per step."""

    groups: tuple[str, ...]
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class DecodeChart:
    """The decode lab's chart: the run drawn in two panels, its numbers as a table, and in words."""

    run: RunChart
    table: Numbers
    text: str


def _table(prompt: int, steps: int, mode: Mode) -> Numbers:
    """The chart as numbers: one row per step, a pair of columns per mode (the chosen one first)."""
    modes = (mode, other(mode))
    by_mode: list[tuple[list[int], list[int]]] = []
    for m in modes:
        per_step = costs(prompt, steps, m)
        by_mode.append((per_step, list(accumulate(per_step))))
    rows: list[tuple[str, ...]] = []
    for k in range(steps):
        row = [str(k + 1)]
        for per_step, totals in by_mode:
            row += [count(per_step[k]), count(totals[k])]
        rows.append(tuple(row))
    columns = ("Step", "this step", "so far", "this step", "so far")
    return Numbers(tuple(MODE_NAMES[m] for m in modes), columns, tuple(rows))


def chart_view(prompt: int, tokens: int, steps: int, mode: Mode) -> DecodeChart:
    """Series, fixed axes, labels and a table of the run so far, for the page to draw.

    Both modes' whole runs are drawn faintly from the start, so the reader sees what will happen
    before pressing anything; the steps taken are drawn over them, bold, and the chosen mode with its
    points. Each mode keeps its colour whichever is chosen (the page's ``--kv`` and ``--recompute``),
    Recompute is dashed as well, and each line is named at its end: colour is never the only cue.
    The axes are fixed for the whole run (their tops are the most either mode can reach), so points
    are added in place and the gap between the line and the square grows on screen.

    On a linear axis that holds Recompute's square, the KV cache's per-step line (17 to 31 cells
    under 1,000) reads as flat zero. An inset draws it again on its own axis, in a corner no line
    crosses: its growth of one cell per step is the lesson, and the main axis stays linear, since a
    log axis would shrink the very gap between line and square the chart exists to show, and a
    second axis would invite reading one mode's values on the other's scale. Labels and the inset
    are placed where no line passes (checked against every segment drawn), or left out: the chart's
    words say everything either way. This module computes the chart's numbers (dataclasses); the
    picture vocabulary draws them: :func:`chart_picture` a panel (:func:`kvpage.pictures.panel_chart`)
    and :func:`table_part` the same numbers as a table (:func:`kvpage.pictures.grouped_table`).
    """
    step_top = max(step_cost(prompt, k, m) for m in MODES for k in (1, tokens))
    total_top = max(cumulative_cost(prompt, tokens, m) for m in MODES)
    x_ticks = sorted({1, tokens})
    run = RunChart(
        steps=tokens,
        taken=steps,
        x_ticks=tuple(Tick(tick, str(tick)) for tick in x_ticks),
        axes={"per_step": axis(step_top), "totals": axis(total_top)},
        series=tuple(_series(prompt, tokens, steps, m, m == mode) for m in MODES),
        notes=_annotations(prompt, steps, mode),
    )
    return DecodeChart(run, _table(prompt, steps, mode), describe(prompt, tokens, steps, mode))


PANELS = ("per_step", "totals")
"""The chart's two panels: cells per step, and cells paid so far."""
KV_INSET = Inset("kv", "KV cache, zoomed")
"""The KV cache's per-step line drawn again on its own axis: its one cell more a step, which the
per-step panel's axis (tall enough for Recompute's square) shows as flat."""


def chart_picture(chart: DecodeChart, key: str) -> list[JSONValue]:
    """One panel of ``chart_view`` (``key``: "per_step" or "totals"), drawn by the picture vocabulary;
    the per-step panel with the two notes and the KV cache's inset."""
    per_step = key == "per_step"
    return panel_chart(
        chart.run, key, unit="cells", x_name="step", notes=per_step, inset=KV_INSET if per_step else None
    )


def table_part(chart: DecodeChart) -> list[JSONValue]:
    """The contents of the table under the chart: a caption, a column group per mode, a row per step."""
    table = chart.table
    return grouped_table("Cells per step and in total, both modes", table.groups, table.columns, table.rows)
