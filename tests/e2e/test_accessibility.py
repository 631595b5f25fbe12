"""The chapter by keyboard alone, and axe-core's verdict on the page before and after the labs run.

axe-core and the keyboard flows that read a label's ``for`` or an ``aria-*`` reference (the sliders,
then the next-request lab's Try this: a refused request's description) run on the site's chapter
page and on the single file, whose ids (and so every such reference) are chapter-prefixed
(``DOCUMENTS``); a colour scheme changes colours alone, the stylesheet's, so axe-core in dark and
the focus rings run in the single file only (``STYLED_BY_CSS_ONLY`` says why that one). The decode
lab's Try this by keyboard (Tab order, the focus kept by a spent button, what the live regions say,
Pause) is the same script on the same DOM in either document, and finds its controls by role and
name alone: it runs over http (a fresh page restores Python, about 2 CPU-s, and its run is seconds
more: issue 47), the single file's references being axe-core's and the sliders' test's.
"""

from __future__ import annotations

import itertools
import json
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage import bridge
from kvpage.labs import decode as decode_lab
from kvpage.labs import next_request
from kvpage.prefix import shared_prefix_length
from kvpage.tokenizer import tokenize
from tests.browser_fixtures import DOCUMENTS, Where
from tests.chapter_labs import DECODE, NEXT, Run, chapter_run, chip_words, compared, one_letter_changed, request_args
from tests.conftest import ROOT
from tests.e2e.test_figure import contrast
from tests.e2e.test_labs import (
    REQUEST_1,
    REQUEST_2,
    expect_readouts,
    expect_run,
    live_clock,
    open_chapter,
    settled,
    stop_the_clock,
)

pytestmark = pytest.mark.e2e
each_document = pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)
over_http = pytest.mark.parametrize("site_url", ["http"], indirect=True)

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
MOST_TABS = 80
"""More Tab presses than the page has stops: a control this far away is out of reach."""


def tab_to(page: Page, target: Locator, key: str = "Tab") -> None:
    """Press ``key`` until ``target`` has the focus, as a keyboard user would.

    ``target`` is found once, by its role and name as before, and that element is asked after each
    press: finding it again by its accessible name at every press (dozens a call) was most of a
    keyboard test's round-trip time. Nothing a press does redraws the element pressed towards; were
    it replaced, it would never have the focus and this fails, never passes."""
    element = target.element_handle()
    try:
        for _ in range(MOST_TABS):
            page.keyboard.press(key)
            if element.evaluate("element => element === document.activeElement"):
                return
    finally:
        element.dispose()
    raise AssertionError(f"{key} never reached {target}")


LIVE = """() => {
  const live = '[aria-live]:not([aria-live=off]), [role=status]:not([aria-live=off]), '
    + '[role=alert]:not([aria-live=off]), [role=log], output:not([aria-live=off])';
  window.__live = [];
  new MutationObserver((records) => {
    for (const record of records) {
      const node = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      const region = node?.closest(live);
      const name = region?.dataset.role ?? region?.dataset.field ?? region?.id;
      if (region) window.__live.push({ region: name, text: region.textContent });
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: false });
}"""
"""Records every change inside a live region of the page (what a screen reader may announce), as
{region, text}: a region by its data-role or data-field. Computed live: aria-live other than off,
or a role or element that is live by default (status, alert, log, <output>)."""


def watch_live_regions(page: Page) -> None:
    """From now on, every change in a live region is recorded (LIVE); :func:`announced` reads them."""
    page.evaluate(LIVE)


def announced(page: Page) -> list[tuple[str, str]]:
    """The live regions' changes since :func:`watch_live_regions` or the last call, as (region, text),
    and forget them. The runtime line is left out unless it was rewritten with what it said already:
    a call slower than a second is told there ("still working"), by design, on a loaded machine."""
    changes = [(change["region"], change["text"]) for change in page.evaluate("window.__live.splice(0)")]
    said = [text for region, text in changes if region == "runtime"]
    assert all(one != two for one, two in itertools.pairwise(said)), f"the runtime line repeated: {said}"
    return [change for change in changes if change[0] != "runtime"]


def spent_keeps_the_focus(decode: Locator, button: Locator, run: Run, key: str = "Enter") -> None:
    """``button`` cannot act now (the run is done) yet keeps the focus, and ``key`` on it does nothing:
    the run stays as it is (the focus once went to Reset, and the next Enter wiped the run)."""
    expect(button).to_be_disabled()  # aria-disabled: said so, and still focused
    expect(button).to_be_focused()
    decode.page.keyboard.press(key)
    settled(decode)
    expect_run(decode, run)
    expect(button).to_be_focused()


@over_http
@pytest.mark.motion
def test_keyboard_only_try_this_decode(audited: tuple[Page, str]) -> None:
    """Generate by keyboard to the end of the run, in motion (one summary, at its end), then preferring
    reduced motion (the run in one answer); Forward to the end; each spent button keeps the focus and
    ignores the next key; then, in motion with the page's clock stopped, Pause and a step by keyboard
    (all on one visit)."""
    page, base = audited
    decode, _ = open_chapter(page, base)
    generate = decode.get_by_role("button", name="Generate")

    watch_live_regions(page)
    tab_to(page, generate)
    page.keyboard.press("Enter")
    done = chapter_run().after()
    expect_run(decode, done)
    settled(decode)
    assert announced(page) == [("summary", done.text()["summary"])], "one summary for the whole run, at its end"
    spent_keeps_the_focus(decode, generate, done)
    reset = decode.get_by_role("button", name="Reset")
    tab_to(page, reset)
    page.keyboard.press("Enter")
    expect_run(decode, chapter_run())

    # Under reduced motion the first Generate ends the run in one answer: Generate keeps the focus.
    page.emulate_media(reduced_motion="reduce")
    tab_to(page, decode.get_by_role("radio", name="KV cache"), key="Shift+Tab")
    page.keyboard.press("ArrowRight")
    expect(decode.get_by_role("radio", name="Recompute")).to_be_checked()
    tab_to(page, generate)
    page.keyboard.press("Space")
    recomputed = chapter_run("recompute").after()
    expect_run(decode, recomputed)
    spent_keeps_the_focus(decode, generate, recomputed, key="Space")

    page.keyboard.press("Tab")  # Back, then Forward to the end again
    expect(decode.get_by_role("button", name="Back")).to_be_focused()
    page.keyboard.press("Enter")
    expect_run(decode, recomputed.after(recomputed.steps - 1))
    page.keyboard.press("Tab")
    forward = decode.get_by_role("button", name="Forward")
    expect(forward).to_be_focused()
    page.keyboard.press("Enter")
    expect_run(decode, recomputed)
    spent_keeps_the_focus(decode, forward, recomputed)

    tab_to(page, reset, key="Shift+Tab")
    page.keyboard.press("Enter")
    expect_run(decode, chapter_run("recompute"))
    page.emulate_media(reduced_motion="no-preference")
    pause_and_step_by_keyboard(page, decode, chapter_run("recompute"))


def pause_and_step_by_keyboard(page: Page, decode: Locator, run: Run) -> None:
    """From ``run`` (cold), in motion: Generate by keyboard takes a step and the focus goes to Pause; Enter
    on it stops the run there (the page's clock stopped, so the run waits for the test, never races it)
    and gives the focus back to Generate; Forward by keyboard takes the next step."""
    live_clock(page)
    stop_the_clock(page)
    tab_to(page, decode.get_by_role("button", name="Generate"))
    page.keyboard.press("Enter")
    pause = decode.get_by_role("button", name="Pause")
    expect(pause).to_be_focused()
    expect_run(decode, run.after(1))  # the next step waits for the clock, which only the test moves
    page.keyboard.press("Enter")
    expect(decode.get_by_role("button", name="Generate")).to_be_focused()
    page.clock.run_for(60_000)  # longer than any whole run: a run Pause did not stop moves on
    settled(decode)
    expect_run(decode, run.after(1))
    tab_to(page, decode.get_by_role("button", name="Forward"))
    page.keyboard.press("Enter")
    expect_run(decode, run.after(2))


@each_document
def test_sliders_answer_their_keys_then_try_this_next_request_by_keyboard(audited: tuple[Page, str]) -> None:
    """Two flows on one visit, one lab each: the decode lab's slider by its keys, then the next-request
    lab's Try this by keyboard alone, tabbing on from that slider (the next lab comes after it)."""
    page, base = audited
    decode, lab = open_chapter(page, base)
    sliders_answer_their_keys(page, decode)
    try_this_next_request_by_keyboard(page, lab)


def sliders_answer_their_keys(page: Page, decode: Locator) -> None:
    slider = decode.get_by_label("Prefix length")
    low, high = decode_lab.PROMPT.low, decode_lab.PROMPT.high
    tab_to(page, slider)
    keys = (("End", high), ("Home", low), ("ArrowRight", low + 1), ("ArrowUp", low + 2), ("ArrowLeft", low + 1))
    for key, value in keys:
        page.keyboard.press(key)
        expect(slider).to_have_value(str(value))
        expect_run(decode, chapter_run(prompt=value))
    page.keyboard.press("PageUp")
    jumped = int(slider.input_value())
    assert jumped > low + 2
    expect_run(decode, chapter_run(prompt=jumped))
    page.keyboard.press("PageDown")
    expect(slider).to_have_value(str(low + 1))


def try_this_next_request_by_keyboard(page: Page, lab: Locator) -> None:
    box = lab.get_by_label("Request 2", exact=True)
    tab_to(page, box)
    page.keyboard.press("Control+Home")
    for _ in range(REQUEST_2.index("precise") + len("preci")):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.type("z")
    edited = one_letter_changed(REQUEST_2)
    expect(box).to_have_value(edited)
    expect_readouts(lab, next_request.LAB, compared(request2=edited))

    chips = lab.get_by_role("list", name="Tokens of request 2").get_by_role("listitem")
    info = lab.locator('[data-chip-info="tokens2"]')
    words = chip_words(request2=edited)
    the_token_line_stays_while_the_pointer_moves_onto_it(chips, info, words)
    tab_to(page, chips.first)  # past the presets and request 1's tokens
    expect(info).to_have_text(words[0])
    page.keyboard.press("End")
    expect(chips.last).to_be_focused()
    expect(info).to_have_text(words[-1])
    differs = shared_prefix_length(tokenize(REQUEST_1), tokenize(edited))  # the first chip after the prefix
    page.keyboard.press("Home")
    for _ in range(differs):
        page.keyboard.press("ArrowRight")
    expect(chips.nth(differs)).to_be_focused()
    expect(info).to_have_text(words[differs])
    up_and_down_move_between_the_requests(page, lab, chips, differs, edited)

    tab_to(page, box, key="Shift+Tab")
    page.keyboard.press("Control+Home")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.type("y")
    expect(box).to_have_value("y" + edited[1:])
    expect_readouts(lab, next_request.LAB, compared(request2="y" + edited[1:]))
    a_request_refused_is_invalid_and_says_why(lab, box)
    typing_announces_only_the_settled_answer(page, lab, box)


def the_token_line_stays_while_the_pointer_moves_onto_it(chips: Locator, info: Locator, words: list[str]) -> None:
    """WCAG 1.4.13: what hovering a token shows stays while the pointer moves onto it (no chip focused)."""
    chips.nth(1).hover()
    expect(info).to_have_text(words[1])
    info.hover()
    expect(info).to_have_text(words[1])


def up_and_down_move_between_the_requests(page: Page, lab: Locator, chips: Locator, at: int, request2: str) -> None:
    """From request 2's token ``at``, Up goes to request 1's token at that position (its last if it is
    shorter), Down back; Left and Right stay in their row."""
    above = lab.get_by_role("list", name="Tokens of request 1").get_by_role("listitem")
    info = lab.locator('[data-chip-info="tokens1"]')
    column = min(at, len(chip_words(request2=request2, which="tokens1")) - 1)
    page.keyboard.press("ArrowUp")
    expect(above.nth(column)).to_be_focused()
    expect(info).to_have_text(chip_words(request2=request2, which="tokens1")[column])
    page.keyboard.press("ArrowUp")  # the first row: nowhere higher
    expect(above.nth(column)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(chips.nth(at)).to_be_focused()


def a_request_refused_is_invalid_and_says_why(lab: Locator, box: Locator) -> None:
    """A request over the limit: the model's refusal in the lab's alert, the box aria-invalid and
    described by its limit and that refusal; back under it, valid again."""
    kept = box.input_value()
    over = "a" * (next_request.MAX_REQUEST_CHARS + 1)
    reply = json.loads(
        bridge.handle(json.dumps({"lab": "next-request", "action": "compare", "args": request_args(request2=over)}))
    )
    assert not reply["ok"]
    box.fill(over)
    expect(lab.get_by_role("alert")).to_have_text(reply["error"])
    expect(box).to_have_attribute("aria-invalid", "true")
    limit = lab.get_by_text(re.compile(r"^Each request may be up to ")).inner_text()
    expect(box).to_have_accessible_description(f"{limit} {reply['error']}")
    box.fill(kept)
    expect_readouts(lab, next_request.LAB, compared(request2=kept))
    expect(box).to_have_attribute("aria-invalid", "false")
    expect(box).to_have_accessible_description(limit)


TYPED = " And keep it short"
"""18 characters typed into request 2 in one go (the review counted 108 live rewrites for as many)."""


def typing_announces_only_the_settled_answer(page: Page, lab: Locator, box: Locator) -> None:
    """Typing TYPED at the end of request 2 says one thing: the lab's summary of the last answer,
    named ("Request 2: … tokens shared …"); no readout, prose number or status line is live.
    The page's clock stopped, so the typing debounce waits for the test, however slow the machine:
    every key lands before the one answer the lab asks for."""
    settled(lab)
    live_clock(page)
    stop_the_clock(page)
    watch_live_regions(page)
    page.keyboard.press("Control+End")
    page.keyboard.type(TYPED)
    page.clock.run_for(1000)  # the debounce goes: one update, for the whole text
    final = box.input_value()
    assert final.endswith(TYPED)
    expect_readouts(lab, next_request.LAB, compared(request2=final))
    settled(lab)
    assert announced(page) == [("summary", compared(request2=final)["summary"])]


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


SCHEMES = ("light", "dark")


def axe_in_each_scheme(page: Page, schemes: tuple[str, ...] = SCHEMES) -> dict[str, list[str]]:
    """axe-core's violations (:func:`axe_violations`) with the page in each of ``schemes``, by scheme.

    One visit serves both: the page's colours are its stylesheet's ``prefers-color-scheme`` rules
    (no script reads the scheme), so switching it repaints the page as one opened in that scheme,
    and axe reads the colours as painted when it runs."""
    found = {}
    for scheme in schemes:
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        found[scheme] = axe_violations(page)
    return found


RING = 3.0
"""WCAG 2.2 SC 1.4.11: the focus indicator against what it is drawn on."""
RINGS = """() => {
  const back = (element) => {
    while (element && getComputedStyle(element).backgroundColor === "rgba(0, 0, 0, 0)") element = element.parentElement;
    return getComputedStyle(element ?? document.documentElement).backgroundColor;
  };
  const focusable = "a[href], button, input, textarea, select, summary, [tabindex]";
  const seen = [];
  for (const element of document.querySelectorAll(focusable)) {
    if (element.disabled || element.getClientRects().length === 0) continue;
    element.focus();
    if (document.activeElement !== element) continue;
    const style = getComputedStyle(element);
    const words = (element.textContent ?? "").trim().slice(0, 30);
    const name = `${element.tagName.toLowerCase()} ${element.className} ${words}`;
    seen.push({ name, visible: element.matches(":focus-visible"), style: style.outlineStyle,
      ring: style.outlineColor, background: back(element.parentElement) });
  }
  return seen;
}"""
"""Every element of the page that takes the focus, focused in turn: its focus ring's colour, and the
background it is drawn on (its parent's painted background: the ring is outside the element)."""


def ring_problems(page: Page) -> list[str]:
    """Every focusable element whose focus ring is missing or under RING against its background.

    A key pressed first, so that the page's focus is a keyboard's and each element the script focuses
    after it shows ``:focus-visible`` as it would by Tab (the ring a keyboard reader sees)."""
    page.keyboard.press("Shift")
    seen = page.evaluate(RINGS)
    assert len(seen) > 20, seen  # the labs' controls, chips, links, the search box
    problems = []
    for element in seen:
        if not element["visible"] or element["style"] == "none":
            problems.append(f"{element['name']}: no focus ring")
        elif (ratio := contrast(element["ring"], element["background"])) < RING:
            problems.append(f"{element['name']}: ring {element['ring']} on {element['background']} is {ratio:.2f}:1")
    return problems


def each_labs_buttons_are_told_apart(page: Page) -> None:
    """A button every lab has one of is named with its lab's heading after its text, so a list of the
    page's buttons tells the two apart: "Copy link Lab · the next request". Leaves both labs' Python
    disclosures open."""
    for region in (DECODE, NEXT):
        page.get_by_role("region", name=region).get_by_text("Python: the code behind this lab").click()
    for text in ("Copy link", "Edit", "Run"):
        for region in (DECODE, NEXT):
            expect(page.get_by_role("button", name=f"{text} {region}", exact=True)).to_have_count(1)


@each_document
def test_axe_finds_no_violations_before_and_after(audited: tuple[Page, str], site_url: Where) -> None:
    """axe-core before the labs run and after (with both Python disclosures open, each lab's buttons
    told apart by name); after, each focus ring of the page (every control, chip, link and box) at
    least RING against what it is drawn on. In light and dark in the single file; over http in light
    only, with no ring: a scheme changes colours alone, which only the stylesheet decides, the same
    rules in both documents (``STYLED_BY_CSS_ONLY`` says why the single file is the one kept), while
    the ids axe-core follows differ (issue 47: each pass over the page is seconds)."""
    page, base = audited
    schemes = SCHEMES if site_url.chapter == site_url.origin else SCHEMES[:1]
    page.add_init_script(path=str(AXE))
    decode, lab = open_chapter(page, base)
    assert axe_in_each_scheme(page, schemes) == {scheme: [] for scheme in schemes}, "before the labs run"

    decode.get_by_role("button", name="Generate").click()
    expect_run(decode, chapter_run().after())
    decode.get_by_text("Numbers by step", exact=True).click()
    edited = one_letter_changed(REQUEST_2)
    lab.get_by_label("Request 2", exact=True).fill(edited)
    expect_readouts(lab, next_request.LAB, compared(request2=edited))
    lab.get_by_role("list", name="Tokens of request 2").get_by_role("listitem").nth(3).focus()
    each_labs_buttons_are_told_apart(page)
    assert axe_in_each_scheme(page, schemes) == {scheme: [] for scheme in schemes}, "after the labs ran"
    if schemes != SCHEMES:
        return
    rings = {}
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        rings[scheme] = ring_problems(page)
    assert rings == {scheme: [] for scheme in SCHEMES}
