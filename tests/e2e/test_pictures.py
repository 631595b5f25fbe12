"""kvpage/pictures/basic.py in Chromium, with the page's own stylesheet: at 360 and 1280 pixels the words keep
their size and never overlap, nothing scrolls sideways, and every mark is at least 3:1 against the page
in light and in dark (WCAG 2.2 SC 1.4.11), from the colours the browser paints."""

from __future__ import annotations

import shutil

import pytest
from playwright.sync_api import Page

from kvpage.pictures import Series, bar_chart, cell_grid, line_chart
from sitegen.labs.trees import to_html
from tests.conftest import ROOT
from tests.e2e.test_figure import contrast

pytestmark = pytest.mark.e2e

PICTURES = {
    "bars": bar_chart(
        [("score 1 (2)", 0.659, "65.9%"), ("a much longer name for score 2 (1)", 0.242, "24.2%"), ("s3", 0, "0.0%")],
        "The shares of 3 scores at temperature 1.0.",
        top=1,
    ),
    "lines": line_chart(
        [
            Series("KV cache", ((0, 1), (8, 9))),
            Series("Recompute", ((0, 1), (8, 81))),
            Series("Half", ((0, 1), (8, 40))),
        ],
        "Cells paid per step.",
        "step",
        "cells",
    ),
    "grid": cell_grid([[1, 0, 0], [1, 1, 0], [1, 1, 2]], "The square at step 3.", ("not computed", "paid", "new")),
}

WORDS = """() => [...document.querySelectorAll("[data-picture] *")]
  .filter((element) => element.closest("svg") === null)
  .filter((element) => [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim()))
  .map((element) => ({
    text: element.textContent.trim(),
    size: getComputedStyle(element).fontSize,
    box: element.getBoundingClientRect().toJSON(),
  }))"""
"""Every element of the pictures that holds words (outside an svg): its text, font size and box."""

MARKS = """() => ({
  background: [document.body, document.documentElement]
    .map((element) => getComputedStyle(element).backgroundColor)
    .find((colour) => colour.startsWith("rgb(")),
  marks: [...document.querySelectorAll(".pic-bar-fill, .pic-bar-back, .pic-line, .pic-axis, .pic-cell")].map((mark) => {
    const style = getComputedStyle(mark);
    const filled = mark.matches(".pic-bar-fill, .pic-cell-on, .pic-cell-mark");
    return [mark.getAttribute("class"), filled ? style.fill : style.stroke];
  }),
})"""
"""Every mark with the colour it is painted in (its fill if filled, else its stroke), and the page's background."""


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("pictures")
    shutil.copy(ROOT / "site_template" / "static" / "kvpage.css", folder / "kvpage.css")
    parts = "\n".join(f'<div data-picture="{name}">{to_html(part)}</div>' for name, part in PICTURES.items())
    html = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="stylesheet" href="kvpage.css"><title>Pictures</title></head><body><main><p>Prose.</p>{parts}'
        "</main></body></html>"
    )
    (folder / "pictures.html").write_text(html, encoding="utf-8")
    return (folder / "pictures.html").as_uri()


def overlapping(one: dict[str, float], other: dict[str, float]) -> bool:
    return not (
        one["right"] <= other["left"]
        or other["right"] <= one["left"]
        or one["bottom"] <= other["top"]
        or other["bottom"] <= one["top"]
    )


def test_the_words_keep_their_size_from_360_to_1280_and_never_overlap(page: Page, document: str) -> None:
    sizes = []
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(document)
        words = page.evaluate(WORDS)
        assert {word["text"] for word in words} >= {"65.9%", "KV cache", "paid", "step: 0 to 8", "cells: 81"}
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"sideways scroll at {width}"
        for index, word in enumerate(words):
            for other in words[index + 1 :]:
                assert not overlapping(word["box"], other["box"]), (width, word["text"], other["text"])
        sizes.append({word["text"]: word["size"] for word in words})
    assert sizes[0] == sizes[1], "a word's size changed with the column"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_mark_is_3_to_1_against_the_page(page: Page, document: str, scheme: str) -> None:
    page.emulate_media(color_scheme=scheme)
    page.goto(document)
    seen = page.evaluate(MARKS)
    assert len(seen["marks"]) >= 20, seen
    for name, colour in seen["marks"]:
        assert colour.startswith("rgb("), (name, colour)
        ratio = contrast(colour, seen["background"])
        assert ratio >= 3, f"{scheme}: {name} {colour} on {seen['background']} is {ratio:.2f}:1"
