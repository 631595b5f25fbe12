"""Every word drawn in the decode lab's pictures is at least 11 CSS px, at 360, 768 and 1280 px.

The grid's position numbers and the prompt's name, the charts' ticks, units, notes, the lines'
names and the inset's words are SVG text scaled with their drawing to the column
(``kvpage/pictures/blocks.py``, ``kvpage/pictures/panel.py``, their sizes in ``static/kvpage.css``);
each is measured as drawn (its font size times its drawing's scale), the run at its last step so
every word the lab can draw is there, and each stays inside the lab's box. Not yet at 360 px: the
lines' names at the charts' right end ("Recompute", 9.5 px), which at 11 px would run past the lab's
box (static/kvpage.css says so); placing them inside the plot on a phone is left to be done. What
only the stylesheet decides: on the single file (``STYLED_BY_CSS_ONLY``).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.chapter_labs import DECODE, chapter_run
from tests.e2e.conftest import PYTHON_READY_MS, STYLED_BY_CSS_ONLY
from tests.e2e.test_lab_visuals import no_horizontal_scroll

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", STYLED_BY_CSS_ONLY, indirect=True)]

SMALLEST_PX = 11
WORDS = """lab => [...lab.querySelectorAll("svg text")].map((text) => ({
  text: text.textContent,
  px: parseFloat(getComputedStyle(text).fontSize) * text.ownerSVGElement.getScreenCTM().a,
  right: text.getBoundingClientRect().right,
  end: text.classList.contains("chart-end"),
}))"""


def test_every_word_of_the_decode_lab_is_11_px_at_each_width(audited: tuple[Page, str]) -> None:
    page, url = audited
    run = chapter_run()
    page.goto(f"{url}#decode:prompt={run.prompt},tokens={run.tokens},mode={run.mode},steps={run.tokens}")
    decode = page.get_by_role("region", name=DECODE)
    expect(decode.get_by_text(run.after().text()["progress"], exact=True)).to_be_visible(timeout=PYTHON_READY_MS)
    for width in (360, 768, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        no_horizontal_scroll(page)
        words = decode.evaluate(WORDS)
        edge = decode.bounding_box()
        assert words and edge is not None
        small = [
            (word["text"], round(word["px"], 1))
            for word in words
            if word["px"] < SMALLEST_PX and not (width == 360 and word["end"])
        ]
        assert small == [], f"{width} px: words under {SMALLEST_PX} px"
        outside = [word["text"] for word in words if word["right"] > edge["x"] + edge["width"]]
        assert outside == [], f"{width} px: words past the lab's edge"
