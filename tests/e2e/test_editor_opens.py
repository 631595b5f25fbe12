"""The reader's editor invites editing, in Chromium at 360 px: it opens on the rule, and its errors read.

Edit puts the cursor at the start of the rule a reader changes first (``paid_cells`` in
``kvpage/costs.py``, the line the build marks: ``sitegen/labs/sources.py``, ``OPENS_ON``), with that
line on screen. A model that fails names its frames as the disclosure names its files
(``kvpage/labs/decode.py``), never by the path of the wheel they were imported from, and the message
fits the column at 360 px in words of at least 11 px. One visit, over http: the editor is the same
script in every document (``tests/e2e/test_reader.py`` runs it every way).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from kvpage.labs import decode as decode_lab
from sitegen.labs.sources import OPENS_ON, lab_files
from tests.e2e.test_labs import open_chapter
from tests.e2e.test_reader import run_costs
from tests.reader_model import BOOK_COSTS, COSTS, DECODE_ROW

pytestmark = pytest.mark.e2e

FAILING = BOOK_COSTS.replace(DECODE_ROW, "raise ValueError('a rule that fails')")
"""costs.py with the KV cache's decode rule raising: the decode lab's chart and grid fail through it."""


def rule_line() -> int:
    """The line Edit must open on: the ``def`` of the rule in costs.py, found in the book's text."""
    lines = BOOK_COSTS.splitlines()
    return next(number for number, text in enumerate(lines, 1) if text.startswith(f"def {OPENS_ON[COSTS]}("))


@pytest.mark.parametrize("site_url", ["http"], indirect=True)
def test_edit_opens_on_the_rule_and_a_failure_names_the_disclosures_files_at_360_px(audited: tuple[Page, str]) -> None:
    page, url = audited
    page.set_viewport_size({"width": 360, "height": 740})
    decode, _ = open_chapter(page, url)
    decode.get_by_text("Python: the code behind this lab").click()
    decode.get_by_role("button", name="Edit").click()
    editor = decode.get_by_label(f"Edit {COSTS}")
    expect(editor).to_be_focused()
    line = rule_line()
    start = sum(len(text) + 1 for text in BOOK_COSTS.splitlines()[: line - 1])
    assert editor.evaluate("box => [box.selectionStart, box.selectionEnd]") == [start, start]
    expect(decode.locator(f'figure[data-file="{COSTS}"] .python-lines span').nth(line - 1)).to_be_in_viewport()

    run_costs(decode, FAILING)
    problem = decode.get_by_role("alert").filter(has_text="a rule that fails")
    expect(problem).to_be_visible()
    shown = {file.path for file in lab_files(decode_lab.LAB)} | {"kvpage/labs/grid.py", "kvpage/labs/chart.py"}
    frames = [text.split(", line ")[0] for text in problem.inner_text().splitlines() if ", line " in text]
    assert frames and set(frames) <= shown, frames  # kvpage/costs.py, never …/kvpage-0.1.0-….whl/kvpage/…
    assert frames[-1] == COSTS
    fits = problem.evaluate(
        "box => [box.scrollWidth <= box.clientWidth, box.getBoundingClientRect().right <= innerWidth,"
        " parseFloat(getComputedStyle(box).fontSize)]"
    )
    assert fits[:2] == [True, True] and fits[2] >= 11, fits
