"""Every mark of the labs that carries meaning is readable: WCAG 2.2 SC 1.4.11 (3:1), light and dark.

axe-core does not check the contrast of drawings, so this test does, from the colours the page
paints (getComputedStyle), never from a list kept by hand: each mark of the decode lab (the grid's
cells and slots, both modes' lines, points, names and the legend's keys) and of the next-request
lab (its bars) against the lab's background; and where two marks touch (this step's cells and
the earlier ones, the new KV slot and the held ones) each against the line drawn between them,
which must be what keeps them apart since the two are under 3:1 against each other.

The colours are the stylesheet's alone (``prefers-color-scheme`` rules, no script picks one), so
each state of the labs is read in light and then in dark on one visit: switching the scheme
repaints the same marks with the other rules (test_lab_visuals checks that a switch repaints), as a
page opened dark paints them. Unlike the other tests of what only CSS decides
(``STYLED_BY_CSS_ONLY``), it runs in every way of opening the book: issue 39 asks for the contrast
in Chromium three ways, and a visit per way is three page loads where there were six.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser_fixtures import WAYS
from tests.chapter_labs import chapter_run
from tests.e2e.test_figure import contrast
from tests.e2e.test_labs import open_chapter

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", WAYS, indirect=True)]

GRAPHICS = 3.0
"""WCAG 2.2 SC 1.4.11: a mark that carries meaning, against what is beside it."""
TEXT = 4.5
"""WCAG 2.2 SC 1.4.3: the lines' names and the notes are text, at 10 px."""

MARKS = """async (section) => {
  await Promise.all(section.getAnimations({ subtree: true }).map((animation) => animation.finished));
  const style = (element) => getComputedStyle(element);
  let back = section;
  while (back && style(back).backgroundColor === "rgba(0, 0, 0, 0)") back = back.parentElement;
  const each = (selector, property) =>
    [...section.querySelectorAll(selector)]
      .filter((mark) => style(mark).display !== "none")
      .map((mark) => ({ name: mark.getAttribute("class"), colour: style(mark)[property],
        opacity: style(mark).opacity }));
  return {
    background: style(back).backgroundColor,
    graphics: [
      ...each("[data-part^=grid_] [data-kind], [data-part^=slots_] [data-kind]", "fill"),
      ...each(".grid-prompt, .grid-outline", "stroke"),
      ...each("polyline.series, polyline.series-preview", "stroke"),
      ...each("circle.point", "fill"),
      ...each(".legend .swatch:not(.swatch-empty):not(.swatch-line)", "backgroundColor"),
      ...each(".legend .swatch-line", "borderTopColor"),
      ...each(".bar-fill", "fill"),
    ],
    text: [...each(".chart-end", "fill")],
    gaps: {
      lines: [...each("[data-part^=grid_] .grid-lines, [data-part^=grid_] .grid-gap", "stroke")],
      slots: [...each("[data-part^=slots_] .grid-lines, [data-part^=slots_] .grid-gap", "stroke")],
    },
  };
}"""
"""The lab's marks with the colours the page paints them once their animations have ended, its
background, and the lines between cells."""


def painted(lab: Locator) -> dict[str, Any]:
    seen: dict[str, Any] = lab.evaluate(MARKS)
    return seen


def check_marks(seen: dict[str, Any], where: str) -> list[str]:
    """The marks under their ratio against the lab's background, as messages (none: all readable)."""
    failures = []
    for kind, least in (("graphics", GRAPHICS), ("text", TEXT)):
        for mark in seen[kind]:
            assert mark["colour"].startswith("rgb("), mark  # opaque: nothing blended with what is under it
            assert mark["opacity"] == "1", mark
            ratio = contrast(mark["colour"], seen["background"])
            if ratio < least:
                failures.append(f"{where}: {mark['name']} {mark['colour']} on {seen['background']} is {ratio:.2f}:1")
    return failures


def check_touching(seen: dict[str, Any], kinds: tuple[str, ...], gaps: str, where: str) -> list[str]:
    """Marks of ``kinds`` that touch: each against the line drawn between them, where they are under 3:1."""
    colours = {mark["name"]: mark["colour"] for mark in seen["graphics"] if any(k in mark["name"] for k in kinds)}
    found = list(colours.values())
    if len(set(found)) < 2 or all(contrast(a, b) >= GRAPHICS for a in found for b in found if a != b):
        return []
    lines = {mark["colour"] for mark in seen["gaps"][gaps]}
    assert lines, f"{where}: {sorted(colours)} touch with no line between them"
    for line in lines:  # a see-through line blends with the cells: it keeps nothing apart
        assert line.startswith("rgb("), f"{where}: the line between {sorted(colours)} is {line}, not opaque"
    return [
        f"{where}: {name} {colour} against the line {line} between cells is {contrast(colour, line):.2f}:1"
        for name, colour in colours.items()
        for line in lines
        if contrast(colour, line) < GRAPHICS
    ]


SCHEMES = ("light", "dark")


def in_each_scheme(lab: Locator) -> dict[str, dict[str, Any]]:
    """The lab's marks as painted (:func:`painted`) in each of SCHEMES, by scheme."""
    seen = {}
    for scheme in SCHEMES:
        lab.page.emulate_media(color_scheme=scheme)
        seen[scheme] = painted(lab)
    assert seen["light"]["background"] != seen["dark"]["background"], "the scheme did not change"
    return seen


def test_every_mark_of_the_labs_is_3_to_1_against_what_it_touches(audited: tuple[Page, str]) -> None:
    page, url = audited
    decode, following = open_chapter(page, url)
    failures: list[str] = []
    run = chapter_run()
    decode.get_by_role("button", name="Generate").click()
    expect(decode.get_by_text(run.after().text()["progress"], exact=True)).to_be_visible()
    decode.get_by_role("button", name="Back").click()
    expect(decode.get_by_text(run.after(run.tokens - 1).text()["progress"], exact=True)).to_be_visible()
    for scheme, seen in in_each_scheme(decode).items():
        kinds = {mark["name"].split()[0] for mark in seen["graphics"]}
        assert {"grid-now", "grid-held", "slot-new", "slot-held", "series", "series-preview", "point"} <= kinds, kinds
        failures += check_marks(seen, f"{scheme}, KV cache")
        failures += check_touching(seen, ("grid-now", "grid-held"), "lines", f"{scheme}, grid")
        failures += check_touching(seen, ("slot-new", "slot-held"), "slots", f"{scheme}, slots")
    decode.get_by_role("radio", name="Recompute").check()
    decode.get_by_role("button", name="Forward").click()
    expect(decode.get_by_text(chapter_run("recompute").after().text()["progress"], exact=True)).to_be_visible()
    for scheme, seen in in_each_scheme(decode).items():
        assert any("grid-recompute" in mark["name"] for mark in seen["graphics"]), seen["graphics"]
        failures += check_marks(seen, f"{scheme}, Recompute")
    for scheme, seen in in_each_scheme(following).items():
        assert len([mark for mark in seen["graphics"] if "bar-fill" in mark["name"]]) >= 2, seen
        failures += check_marks(seen, f"{scheme}, next request")
    assert failures == []
