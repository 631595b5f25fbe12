"""What a reader can reach, in Chromium: a phone by touch, and every target, text box and readout.

On a phone (360 × 740, a touch screen) the decode lab's step controls stay in view with the grid
they move, Back is disabled where it would do nothing (step 0), the next-request lab opens with
its first difference in view (its token rows scrolled sideways, not the reader), and a tap on a
token shows what it is (a finger has no hover). Then, on one more visit, the page's own rules for
every reader, each measured from what the browser lays out and paints (never from a list kept by
hand): every link and control a target of at least 24 × 24 px or spaced as WCAG 2.2 SC 2.5.8
allows, at 360 and 1280 px; every text box's border 3:1 against what is inside and around it
(SC 1.4.11) and the native controls in the page's accent colour, light and dark; the readouts
holding still (no readout moves sideways) while a run's numbers arrive.

What only the stylesheet and the labs' own scripts decide, so on the single file
(``STYLED_BY_CSS_ONLY`` says why).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Locator, Page, ViewportSize, expect

from kvpage.labs import decode as decode_lab
from kvpage.prefix import shared_prefix_length
from kvpage.tokenizer import tokenize
from tests.browser_fixtures import Where
from tests.chapter_labs import chapter_run, chip_words
from tests.e2e.conftest import STYLED_BY_CSS_ONLY, audit_page
from tests.e2e.test_figure import contrast
from tests.e2e.test_labs import REQUEST_1, REQUEST_2, expect_run, open_chapter

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", STYLED_BY_CSS_ONLY, indirect=True)]

PHONE: ViewportSize = {"width": 360, "height": 740}
TARGET = 24
"""WCAG 2.2 SC 2.5.8 (Target Size, Minimum): a target at least 24 × 24 CSS px, or spaced so that a
24 px circle centred on it touches no other target nor another undersized target's circle."""
GRAPHICS = 3.0
"""WCAG 2.2 SC 1.4.11: a text box's border against the colours beside it."""


@pytest.fixture
def phone(browser: Browser, site_url: Where) -> Iterator[Page]:
    """A touch screen of 360 × 740 px, with the page's audit attached."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        with audit_page(page, site_url.origin):
            yield page
    finally:
        context.close()


def in_view(page: Page, element: Locator) -> bool:
    """Whether ``element`` is wholly on the screen, as it is now scrolled."""
    box = element.bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["y"] >= -1 and box["y"] + box["height"] <= size["height"] + 1  # a pixel for rounding


def test_on_a_phone_the_step_controls_stay_with_the_grid_and_a_tap_shows_a_token(phone: Page, site_url: Where) -> None:
    decode, lab = open_chapter(phone, site_url.chapter)
    back, forward = (decode.get_by_role("button", name=name) for name in ("Back", "Forward"))
    steps = decode.get_by_role("slider", name=decode_lab.STEPS.label)
    grid = decode.locator(".grid-one-kv .grid-frame")  # the first of the two, the mode chosen at the start
    expect(back).to_be_disabled()  # step 0: nothing to go back to
    # The reader scrolls down until the whole grid is on the screen, its bottom near the screen's.
    grid.evaluate("(grid) => window.scrollBy(0, grid.getBoundingClientRect().bottom - innerHeight + 8)")
    for control in (back, forward, steps):
        assert in_view(phone, control), f"{control} is off the screen while the grid is on it"
    assert in_view(phone, grid)
    controls, drawn = forward.bounding_box(), grid.bounding_box()
    assert controls is not None and drawn is not None
    assert controls["y"] + controls["height"] <= drawn["y"], "the step controls cover the grid"  # pinned above it
    forward.tap()
    expect_run(decode, chapter_run().after(1))
    assert in_view(phone, grid)  # the tap moved the drawing, not the page
    back.tap()
    expect_run(decode, chapter_run())
    expect(back).to_be_disabled()

    rows = lab.get_by_role("group", name="Tokens of both requests, position by position")
    rows.scroll_into_view_if_needed()
    shared = shared_prefix_length(tokenize(REQUEST_1), tokenize(REQUEST_2))
    first = lab.get_by_role("list", name="Tokens of request 2").get_by_role("listitem").nth(shared)
    seen = rows.bounding_box()
    chip = first.bounding_box()
    assert seen is not None and chip is not None
    assert seen["x"] <= chip["x"] and chip["x"] + chip["width"] <= seen["x"] + seen["width"], (
        "the first difference is outside the token rows' visible part"
    )
    first.tap()
    expect(lab.locator('[data-chip-info="tokens2"]')).to_have_text(chip_words()[shared])


TARGETS = """(size) => {
  const shown = (element) => element.checkVisibility({ visibilityProperty: true });
  // A link inside a sentence is exempt (SC 2.5.8's "inline"); a control inside its label is one
  // target with it (a tap on the label is a tap on the control).
  const inline = (element) => element.tagName === "A" && element.parentElement.closest("p") !== null;
  const found = [...document.querySelectorAll(
    "a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1']), [data-part^=tokens] .chip"
  )].filter((element) => shown(element) && !inline(element)).map((element) => element.closest("label") ?? element);
  const targets = [...new Set(found)].map((element) => {
    const box = element.getBoundingClientRect();
    const words = element.textContent || element.getAttribute("aria-label") || element.id;
    const name = `${element.tagName.toLowerCase()} “${words.trim().slice(0, 40)}”`;
    return { name, left: box.left, top: box.top, right: box.right, bottom: box.bottom,
      small: box.width < size || box.height < size };
  });
  const centre = (t) => [(t.left + t.right) / 2, (t.top + t.bottom) / 2];
  const reach = (point, t) => Math.hypot(
    Math.max(t.left - point[0], 0, point[0] - t.right), Math.max(t.top - point[1], 0, point[1] - t.bottom));
  const failing = [];
  for (const t of targets.filter((t) => t.small)) {
    const c = centre(t);
    const near = targets.find((o) => o !== t && (reach(c, o) < size / 2 ||
      (o.small && Math.hypot(c[0] - centre(o)[0], c[1] - centre(o)[1]) < size)));
    const measured = `${Math.round(t.right - t.left)}×${Math.round(t.bottom - t.top)} px`;
    if (near) failing.push(`${t.name} ${measured}, too near ${near.name}`);
  }
  return { count: targets.length, failing };
}"""
"""Every link and control on the page, and each undersized one's nearest trouble (SC 2.5.8)."""

FIELDS = """() => {
  const style = (element) => getComputedStyle(element);
  const behind = (element) => {
    let back = element;
    while (back && style(back).backgroundColor === "rgba(0, 0, 0, 0)") back = back.parentElement;
    return style(back ?? document.documentElement).backgroundColor;
  };
  const boxes = [...document.querySelectorAll("textarea, input[type=text], input[type=number], input[type=search]")]
    .filter((box) => box.getBoundingClientRect().width > 0);
  const accent = style(document.documentElement).getPropertyValue("--accent").trim();
  const probe = document.createElement("span");
  probe.style.color = accent;
  document.body.append(probe);
  const palette = style(probe).color;
  probe.remove();
  return {
    boxes: boxes.map((box) => ({ name: box.id || box.name, border: style(box).borderTopColor,
      inside: behind(box), around: behind(box.parentElement) })),
    palette,
    accents: [...document.querySelectorAll("input[type=range], input[type=radio], input[type=checkbox], progress")]
      .map((control) => ({ name: control.id || control.name || control.tagName, accent: style(control).accentColor })),
  };
}"""
"""Each text box's border colour with the colours inside and around it; each native control's
accent colour, and the page's own (its ``--accent``, as the browser resolves it)."""

READOUTS = """(section) => [...section.querySelectorAll("output[data-field]")]
  .filter((output) => output.getBoundingClientRect().width > 0)
  .map((output) => [output.id, Math.round(output.getBoundingClientRect().left)])"""
"""Where each readout of a lab starts, across: a readout that moves sideways moves this."""


def check_fields(page: Page, scheme: Literal["light", "dark"]) -> list[str]:
    page.emulate_media(color_scheme=scheme)
    seen: dict[str, Any] = page.evaluate(FIELDS)
    assert seen["boxes"] and seen["accents"], seen
    wrong = [
        f"{scheme}: {box['name']}'s border {box['border']} is {contrast(box['border'], colour):.2f}:1 on {colour}"
        for box in seen["boxes"]
        for colour in (box["inside"], box["around"])
        if contrast(box["border"], colour) < GRAPHICS
    ]
    return wrong + [
        f"{scheme}: {control['name']} is drawn in {control['accent']}, not the page's {seen['palette']}"
        for control in seen["accents"]
        if control["accent"] != seen["palette"]
    ]


def test_targets_fields_and_readouts_hold_to_the_pages_rules(audited: tuple[Page, str]) -> None:
    page, url = audited
    page.set_viewport_size({"width": 1280, "height": 900})
    decode, _ = open_chapter(page, url)
    problems = check_fields(page, "light") + check_fields(page, "dark")
    page.emulate_media(color_scheme="light")
    before = decode.evaluate(READOUTS)
    decode.get_by_role("button", name="Generate").click()
    expect_run(decode, chapter_run().after())
    after = decode.evaluate(READOUTS)
    problems += [
        f"readout {a[0]} moved from x={b[1]} to x={a[1]}" for b, a in zip(before, after, strict=True) if a != b
    ]
    for width in (1280, PHONE["width"]):
        page.set_viewport_size({"width": width, "height": 900})
        targets: dict[str, Any] = page.evaluate(TARGETS, TARGET)
        assert targets["count"] > 20, targets  # the header, the contents, both labs' controls
        problems += [f"at {width} px: {failing}" for failing in targets["failing"]]
    assert problems == [], "\n".join(problems)
