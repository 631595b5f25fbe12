"""The thesis figure in Chromium: on the first screen at 1280 × 900, whole at 360 px, with no script.

The figure is static HTML and SVG drawn at build time (kvpage/figures.py), so it must be there
before Python starts and with JavaScript off. It is found as a reader's tools find it, by its role
and its name (its caption, read from the chapter), and its totals are the model's, derived here.
It is part of the document, so it is checked on the two documents a reader can be handed
(``DOCUMENTS``: from the unzipped zip it is the chapter page's bytes), and every check with script
on one page a document (``one_page``): each sets the width or colour scheme it needs, which is all
the figure's layout and colours follow (no script draws it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from kvpage.costs import MODE_NAMES, MODES, cumulative_cost
from kvpage.jsonvalue import count
from tests.browser_fixtures import DOCUMENTS, Where
from tests.chapter_labs import CHAPTER, lab_params
from tests.e2e.conftest import audit_page, follow_link
from tests.e2e.test_lab_visuals import no_horizontal_scroll

pytestmark = pytest.mark.e2e
each_document = pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)
on_each_document = pytest.mark.parametrize("one_page", DOCUMENTS, indirect=True)

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


@each_document
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


def opened(page: Page, url: str) -> None:
    """The chapter on the module's page, its labs as they start: the figure's width and colours are set
    by the test after (the page's stylesheet follows them as it would on a page opened so)."""
    follow_link(page, url, f"decode:prompt={lab_params('decode')['prompt']}")


@on_each_document
def test_the_figure_fits_360_px_without_sideways_scroll(on_one_page: tuple[Page, str]) -> None:
    page, url = on_one_page
    opened(page, url)
    page.set_viewport_size(NARROW)
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
    ...each('svg [data-kind="paid"]', "fill"),
    ...each('svg [data-kind="held"]', "stroke"),
    ...each(".thesis-outline", "stroke"),
    ...each(".thesis-key", "backgroundColor"),
  ];
  const quiet = each('svg [data-kind="held"]', "fill").map(([, fill]) => fill);
  return { background: colour(back || document.documentElement, "backgroundColor"), marks, quiet };
}"""
"""Every mark of the figure that carries meaning, with the colour the page paints it, and the page's
background: the paid cells' fill, the kept cells' outline (their fill is a quiet tint, ``quiet``,
which the paid row touches), the square's outline and the keys."""


def luminance(css: str) -> float:
    """WCAG 2.2's relative luminance of an opaque ``rgb(r, g, b)``, or ``color(srgb r g b)`` (a ``color-mix``)."""
    if css.startswith("color(srgb "):
        red, green, blue = (float(part) for part in css.removeprefix("color(srgb ").removesuffix(")").split()[:3])
    else:
        red, green, blue = (int(part) / 255 for part in css.removeprefix("rgb(").removesuffix(")").split(","))
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@on_each_document
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_mark_of_the_figure_is_3_to_1_against_the_page(on_one_page: tuple[Page, str], scheme: str) -> None:
    """WCAG 2.2 SC 1.4.11, from the colours the page computes (not from a list kept by hand)."""
    page, url = on_one_page
    opened(page, url)
    page.emulate_media(color_scheme=scheme)
    seen = thesis(page).evaluate(MARKS)
    assert len(seen["marks"]) >= 2 * len(MODES) + 2, seen  # held, paid (twice), outlines, keys
    for name, colour in seen["marks"]:
        assert colour.startswith("rgb("), (name, colour)  # opaque: nothing blended with what is under it
        ratio = contrast(colour, seen["background"])
        assert ratio >= 3, f"{scheme}: {name} {colour} on {seen['background']} is {ratio:.2f}:1"
    paid = [colour for name, colour in seen["marks"] if "thesis-paid" in name]
    for quiet in seen["quiet"]:  # the paid row lies on the kept cells' tint
        assert all(contrast(colour, quiet) >= 3 for colour in paid), (scheme, quiet, paid)


LABELS = """figure => [...figure.querySelectorAll(".thesis-drawing")].map((drawing) => {
  const box = (element) => element.getBoundingClientRect();
  const svg = box(drawing.querySelector("svg"));
  const mark = (kind) => drawing.querySelector(`svg [data-kind="${kind}"]`);
  return {
    mode: drawing.closest("[data-mode]").dataset.mode,
    labels: [...drawing.querySelectorAll(".thesis-label")].map((label) => {
      const at = box(label);
      const size = parseFloat(getComputedStyle(label).fontSize);
      return { text: label.textContent, size, left: at.left - svg.left, top: at.top - svg.top,
               right: at.right - svg.left, bottom: at.bottom - svg.top };
    }),
    svg: { width: svg.width, height: svg.height },
    paid: mark("paid") && box(mark("paid")).toJSON(),
    held: mark("held") ? box(mark("held")).toJSON() : null,
    fills: { paid: getComputedStyle(mark("paid")).fill, held: mark("held") && getComputedStyle(mark("held")).fill },
    page: (() => {
      let back = drawing;
      while (back && getComputedStyle(back).backgroundColor === "rgba(0, 0, 0, 0)") back = back.parentElement;
      return getComputedStyle(back || document.documentElement).backgroundColor;
    })(),
  };
})"""


@on_each_document
@pytest.mark.parametrize("width", [360, 768, 1280])
def test_the_paid_cells_are_the_dominant_mark_and_the_regions_are_named_on_the_drawing(
    on_one_page: tuple[Page, str], width: int
) -> None:
    """ "A line against a square": the paid cells stand out more from the page than the kept ones (which
    are quiet), and the drawing names its regions, "kept" on the kept cells and "paid now" on or by the
    paid ones, in words of at least 11 CSS px, inside the panel's width."""
    page, url = on_one_page
    opened(page, url)
    page.set_viewport_size({"width": width, "height": 900})
    drawings = thesis(page).evaluate(LABELS)
    assert [drawing["mode"] for drawing in drawings] == list(MODES)
    for drawing in drawings:
        words = {label["text"]: label for label in drawing["labels"]}
        assert all(label["size"] >= 11 for label in words.values()), drawing
        assert all(label["left"] >= 0 and label["right"] <= drawing["svg"]["width"] + 1 for label in words.values())
        paid = next(label for text, label in words.items() if "paid now" in text)
        if drawing["mode"] == "kv":
            kept, held, row = words["kept"], drawing["held"], drawing["paid"]
            assert kept["bottom"] <= held["height"] / 2, "kept sits in the kept cells' top corner"
            assert row["height"] < drawing["svg"]["height"] / 10, "with the cache the last step pays a row"
            assert drawing["svg"]["height"] <= paid["top"] <= drawing["svg"]["height"] + 8, "paid now under the row"
            page_colour = drawing["page"]
            assert contrast(drawing["fills"]["paid"], page_colour) > 2 * contrast(drawing["fills"]["held"], page_colour)
        else:
            assert paid["top"] > 0 and paid["bottom"] < drawing["svg"]["height"], "paid now on the paid square"
