"""The chapter by keyboard alone, and axe-core's verdict on the page before and after the labs run.

Each test runs on the site's chapter page and on the single file, whose ids (and so every label's
``for`` and ``aria-*`` reference) are chapter-prefixed (``DOCUMENTS``).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.conftest import ROOT
from tests.e2e.conftest import DOCUMENTS
from tests.e2e.test_labs import REQUEST_2, open_chapter

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
MOST_TABS = 80
"""More Tab presses than the page has stops: a control this far away is out of reach."""


def tab_to(page: Page, target: Locator, key: str = "Tab") -> None:
    """Press ``key`` until ``target`` has the focus, as a keyboard user would."""
    for _ in range(MOST_TABS):
        page.keyboard.press(key)
        if target.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError(f"{key} never reached {target}")


def test_keyboard_only_try_this_decode(audited: tuple[Page, str]) -> None:
    page, base = audited
    decode, _ = open_chapter(page, base)
    paid = decode.get_by_label("Paid so far")
    generate = decode.get_by_role("button", name="Generate")

    tab_to(page, generate)
    page.keyboard.press("Enter")
    expect(paid).to_have_text("616")
    reset = decode.get_by_role("button", name="Reset")
    expect(reset).to_be_focused()  # Generate is spent; focus moved on instead of vanishing
    page.keyboard.press("Enter")
    expect(paid).to_have_text("0")

    tab_to(page, decode.get_by_role("radio", name="KV cache"), key="Shift+Tab")
    page.keyboard.press("ArrowRight")
    expect(decode.get_by_role("radio", name="Recompute")).to_be_checked()
    tab_to(page, generate)
    page.keyboard.press("Space")
    expect(paid).to_have_text("9,176")
    expect(generate).to_be_disabled()
    expect(reset).to_be_focused()


def test_keyboard_pauses_and_steps(audited: tuple[Page, str]) -> None:
    page, base = audited
    decode, _ = open_chapter(page, base)
    tab_to(page, decode.get_by_role("button", name="Generate"))
    page.keyboard.press("Enter")
    pause = decode.get_by_role("button", name="Pause")
    expect(pause).to_be_focused()
    page.keyboard.press("Enter")
    expect(decode.get_by_role("button", name="Generate")).to_be_focused()
    expect(decode).to_have_attribute("aria-busy", "false")  # a step asked for before Pause is drawn
    progress = decode.locator("[data-field=progress]")
    stopped = int(progress.inner_text().split()[1])
    assert stopped < 16
    tab_to(page, decode.get_by_role("button", name="Step"))
    page.keyboard.press("Enter")
    expect(progress).to_have_text(f"step {stopped + 1} of 16")


def test_sliders_answer_their_keys(audited: tuple[Page, str]) -> None:
    page, base = audited
    decode, _ = open_chapter(page, base)
    slider = decode.get_by_label("Prefix length")
    square = decode.get_by_label("If every step recomputed")
    tab_to(page, slider)
    for key, value in (("End", 128), ("Home", 1), ("ArrowRight", 2), ("ArrowUp", 3), ("ArrowLeft", 2)):
        page.keyboard.press(key)
        expect(slider).to_have_value(str(value))
        expect(square).to_have_text(f"{value * value:,}")
    page.keyboard.press("PageUp")
    jumped = int(slider.input_value())
    assert jumped > 3
    expect(square).to_have_text(f"{jumped * jumped:,}")
    page.keyboard.press("PageDown")
    expect(slider).to_have_value("2")


def test_keyboard_only_try_this_next_request(audited: tuple[Page, str]) -> None:
    page, base = audited
    _, lab = open_chapter(page, base)
    shared = lab.get_by_label("Shared prefix")

    box = lab.get_by_label("Request 2", exact=True)
    tab_to(page, box)
    page.keyboard.press("Control+Home")
    for _ in range(len("You are a preci")):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.type("z")
    expect(box).to_have_value(REQUEST_2.replace("precise", "precize"))
    expect(shared).to_have_text("3 / 14 · hit through “a”")
    expect(lab.get_by_label("With prefix cache")).to_have_text(f"{196 - 9:,}")

    chips = lab.get_by_role("list", name="Tokens of request 2").get_by_role("listitem")
    info = lab.locator('[data-chip-info="tokens2"]')
    page.keyboard.press("Tab")
    expect(chips.first).to_be_focused()
    expect(info).to_have_text("#1 “You” · reused from the cache")
    page.keyboard.press("End")
    expect(chips.last).to_be_focused()
    expect(info).to_have_text("#14 “?” · paid")
    page.keyboard.press("Home")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(chips.nth(3)).to_be_focused()
    expect(info).to_have_text("#4 “␣precize” · paid; first difference: request 1 has “precise” here")

    page.keyboard.press("Shift+Tab")
    expect(box).to_be_focused()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.type("y")
    expect(shared).to_have_text("0 / 14 · no shared prefix")
    expect(lab.get_by_label("With prefix cache")).to_have_text("196")


def axe_violations(page: Page) -> list[str]:
    """axe-core's violations on the page as it is now, one line each.

    ``preload: false``: axe would otherwise re-fetch the stylesheets with XHR, which a
    page opened from disk may not do (and the audit fails on the refused request).
    axe arrives as an init script (see the test): the page's CSP rightly refuses a
    script tag it did not ship.
    """
    assert page.evaluate("typeof axe !== 'undefined'"), "axe-core was not injected"
    found: list[str] = page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"], preload: false})).violations.map(
            (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)"""
    )
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violations_before_and_after(audited: tuple[Page, str], scheme: str) -> None:
    page, base = audited
    page.add_init_script(path=str(AXE))
    page.emulate_media(color_scheme=scheme)
    decode, lab = open_chapter(page, base)
    assert axe_violations(page) == []

    decode.get_by_role("button", name="Generate").click()
    expect(decode.get_by_label("Paid so far")).to_have_text("616")
    decode.get_by_text("Numbers by step").click()
    lab.get_by_label("Request 2", exact=True).fill(REQUEST_2.replace("precise", "precize"))
    expect(lab.get_by_label("Shared prefix")).to_have_text("3 / 14 · hit through “a”")
    lab.get_by_role("list", name="Tokens of request 2").get_by_role("listitem").nth(3).focus()
    assert axe_violations(page) == []
