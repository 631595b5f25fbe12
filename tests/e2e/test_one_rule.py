"""Every drawing follows the model, in Chromium: a reader's edit of the rule moves every count on the page.

The decode lab's two grids (one per mode), their words and note, the slots, the status, the
readouts and the chart (its points and its inset's axis) all come from one rule,
``kvpage.costs.paid_cells``. Here a reader makes the prefill causal in the lab's Python editor and
Runs, then doubles the decode row and Runs: at several steps of both modes every count the page
shows must be the one the edited model computes in CPython on the very request the page holds
(``tests/reader_model.py``), and the chosen mode's grid's shaded cells this step must be the "This
step" readout. One visit, over http: what is checked is the
model's answer drawn, the same in every document (``tests/e2e/test_reader.py`` runs the editor
every way).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage.costs import MODE_NAMES, MODES
from kvpage.labs import decode as decode_lab
from tests.e2e.test_labs import open_chapter, settled
from tests.e2e.test_reader import edit_costs, expect_readouts, request_of, run_costs
from tests.kvpage.labs.test_one_rule import area, shapes
from tests.reader_model import CAUSAL, COSTS, DOUBLED, edited_views

pytestmark = pytest.mark.e2e

SHOWN = """lab => {
  const area = (mode, kind) => [...lab.querySelectorAll(`[data-part="grid_${mode}"] rect[data-kind="${kind}"]`)].reduce(
    (sum, r) => sum + r.width.baseVal.value * r.height.baseVal.value, 0);
  const all = (selector, read) => [...lab.querySelectorAll(selector)].map(read);
  return {
    grids: Object.fromEntries(["kv", "recompute"].map((mode) => [mode, {
      now: area(mode, "now"),
      held: area(mode, "held"),
      slots: all(`[data-part="slots_${mode}"] rect[data-kind]`, (r) => Number(r.dataset.count)),
    }])),
    inset: all('g[data-inset] text[text-anchor="end"]', (t) => t.textContent),
    per_step: all('svg[data-chart="per_step"] circle[data-series="current"]', (c) => c.dataset.value),
    totals: all('svg[data-chart="totals"] circle[data-series="current"]', (c) => c.dataset.value),
    words: Object.fromEntries(all("[data-field]", (f) => [f.dataset.field, f.textContent])),
  };
}"""
"""What the decode lab draws and says now, read in one round trip."""
WORDS = ("grid_words_kv", "grid_words_recompute", "grid_note", "chart_words", "status", "progress")
"""The texts beside the drawings, each the view's text of that name."""


def counts(view: dict[str, Any]) -> dict[str, Any]:
    """What the page must draw and say for ``view``, read from its trees as :data:`SHOWN` reads the page."""
    parts = view["parts"]

    def current(chart: str) -> list[str]:
        return [
            a["data-value"]
            for _, a, _ in shapes(parts[chart])
            if a.get("data-series") == "current" and "data-value" in a
        ]

    inset = [c for _, a, children in shapes(parts["per_step"]) if a.get("data-inset") for c in children]
    return {
        "grids": {
            mode: {
                "now": area(parts[f"grid_{mode}"], "now"),
                "held": area(parts[f"grid_{mode}"], "held"),
                "slots": [int(a["data-count"]) for _, a, _ in shapes(parts[f"slots_{mode}"]) if "data-count" in a],
            }
            for mode in MODES
        },
        "inset": [c[2] for c in inset if c[0] == "text" and c[1].get("text-anchor") == "end"],
        "per_step": current("per_step"),
        "totals": current("totals"),
        "words": {name: view["text"][name] for name in WORDS},
    }


def expect_the_edited_model(decode: Locator, edit: str) -> None:
    """Every count the decode lab shows is what the model with ``edit`` as costs.py computes for the
    request the page holds now, both modes' grids included, and the chosen mode's grid shades as many
    cells as "This step" says."""
    settled(decode)
    (view,) = edited_views({COSTS: edit}, [request_of(decode, decode_lab.LAB)])
    expect_readouts(decode, decode_lab.LAB, view["text"])
    shown: dict[str, Any] = decode.evaluate(SHOWN)
    shown["words"] = {name: shown["words"][name] for name in WORDS}
    assert shown == counts(view)
    this_step = decode.get_by_label("This step", exact=True).inner_text().split("\xa0")[0].replace(",", "")
    (mode,) = [mode for mode, name in MODE_NAMES.items() if name == view["text"]["chosen"]]
    assert shown["grids"][mode]["now"] == (int(this_step) if this_step.isdigit() else 0)
    if this_step.isdigit():
        assert f"{int(this_step):,} cells paid this step" in shown["words"][f"grid_words_{mode}"]


def forward(decode: Locator, times: int) -> None:
    for _ in range(times):
        decode.get_by_role("button", name="Forward").click()
        settled(decode)


@pytest.mark.parametrize("site_url", ["http"], indirect=True)
def test_a_causal_prefill_and_a_doubled_decode_row_move_every_count(audited: tuple[Page, str]) -> None:
    page, url = audited
    decode, _ = open_chapter(page, url)
    forward(decode, 1)
    edit_costs(decode, CAUSAL)
    decode.get_by_role("button", name="Run").click()
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(COSTS)
    expect_the_edited_model(decode, CAUSAL)  # step 1: the prefill, a triangle
    forward(decode, 4)
    expect_the_edited_model(decode, CAUSAL)
    decode.get_by_role("radio", name=dict(decode_lab.MODE.options)["recompute"]).check()
    forward(decode, 3)
    expect_the_edited_model(decode, CAUSAL)  # recomputing: the triangle again, no slot kept

    run_costs(decode, DOUBLED)
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(COSTS)
    expect_the_edited_model(decode, DOUBLED)
    decode.get_by_role("radio", name=dict(decode_lab.MODE.options)["kv"]).check()
    forward(decode, 6)
    expect_the_edited_model(decode, DOUBLED)  # the KV cache's row paid twice a step
