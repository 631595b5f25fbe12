"""The thesis figure in Chromium, three ways: on the first screen at 1280 × 900, whole at 360 px, with no script.

The figure is static HTML and SVG drawn at build time (kvpage/figures.py), so it must be there
before Python starts and with JavaScript off. It is found as a reader's tools find it, by its role
and its name (its caption, read from the chapter), and its totals are the model's, derived here.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from kvpage.costs import MODE_NAMES, MODES, cumulative_cost
from kvpage.jsonvalue import count
from tests.browser_fixtures import WAYS, Where
from tests.chapter_labs import CHAPTER, lab_params
from tests.e2e.conftest import audit_page
from tests.e2e.test_lab_visuals import no_horizontal_scroll

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", WAYS, indirect=True)]

FIRST_SCREEN = {"width": 1280, "height": 900}
NARROW = {"width": 360, "height": 800}


def caption() -> str:
    """The figure's caption as the chapter writes it: the line after ``::: figure``."""
    lines = CHAPTER.read_text(encoding="utf-8").splitlines()
    return next(lines[i + 1] for i, line in enumerate(lines) if line.startswith("::: figure "))


def thesis(page: Page) -> Locator:
    figure = page.get_by_role("figure", name=caption())
    prompt, tokens = (int(lab_params("decode")[name]) for name in ("prompt", "tokens"))
    for mode in MODES:
        expect(figure).to_contain_text(MODE_NAMES[mode])
        expect(figure).to_contain_text(f"{count(cumulative_cost(prompt, tokens, mode))} cells")
    return figure


@pytest.fixture
def without_script(browser: Browser, site_url: Where) -> Iterator[tuple[Page, str]]:
    """A page with JavaScript off (the audit attached): what a reader without script, or before it runs, sees."""
    context = browser.new_context(java_script_enabled=False, viewport=FIRST_SCREEN)
    page = context.new_page()
    try:
        with audit_page(page, site_url.origin):
            yield page, site_url.chapter
    finally:
        context.close()


def test_the_figure_is_on_the_first_screen_with_no_script(without_script: tuple[Page, str]) -> None:
    page, url = without_script
    page.goto(url)
    figure = thesis(page)
    expect(figure).to_be_in_viewport(ratio=1)
    drawings = figure.locator("svg")
    expect(drawings).to_have_count(len(MODES))
    for drawing in drawings.all():
        box = drawing.bounding_box()
        assert box is not None and box["width"] >= 100 and box["y"] + box["height"] <= FIRST_SCREEN["height"]


def test_the_figure_fits_360_px_without_sideways_scroll(audited: tuple[Page, str]) -> None:
    page, url = audited
    page.set_viewport_size(NARROW)
    page.goto(url)
    figure = thesis(page)
    no_horizontal_scroll(page)
    box = figure.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= NARROW["width"]
    for words in figure.locator("p").all():
        inner = words.bounding_box()
        assert inner is not None and inner["x"] + inner["width"] <= NARROW["width"], words.inner_text()


MARKS = """figure => {
  const colour = (element, property) => getComputedStyle(element)[property];
  let back = figure;
  while (back && colour(back, "backgroundColor") === "rgba(0, 0, 0, 0)") back = back.parentElement;
  const each = (selector, property) =>
    [...figure.querySelectorAll(selector)].map((mark) => [mark.getAttribute("class"), colour(mark, property)]);
  const marks = [
    ...each("svg [data-kind]", "fill"),
    ...each(".thesis-outline", "stroke"),
    ...each(".thesis-key", "backgroundColor"),
  ];
  return { background: colour(back || document.documentElement, "backgroundColor"), marks };
}"""
"""Every mark of the figure that carries meaning, with the colour the page paints it, and the page's background."""


def luminance(css: str) -> float:
    """WCAG 2.2's relative luminance of an opaque ``rgb(r, g, b)``."""
    red, green, blue = (int(part) / 255 for part in css.removeprefix("rgb(").removesuffix(")").split(","))
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_mark_of_the_figure_is_3_to_1_against_the_page(audited: tuple[Page, str], scheme: str) -> None:
    """WCAG 2.2 SC 1.4.11, from the colours the page computes (not from a list kept by hand)."""
    page, url = audited
    page.emulate_media(color_scheme=scheme)
    page.goto(url)
    seen = thesis(page).evaluate(MARKS)
    assert len(seen["marks"]) >= 2 * len(MODES) + 2, seen  # held, paid (twice), outlines, keys
    for name, colour in seen["marks"]:
        assert colour.startswith("rgb("), (name, colour)  # opaque: nothing blended with what is under it
        ratio = contrast(colour, seen["background"])
        assert ratio >= 3, f"{scheme}: {name} {colour} on {seen['background']} is {ratio:.2f}:1"
