"""The chapter's "Try this", performed in Chromium by role and label.

The Try this runs from the unzipped zip (file://), as in Firefox and WebKit (``FLOW_WAYS``); its
steps are tests/browsers/flows.py's, which they perform too, done here by tests/e2e/steps.py.
The lab's behaviour past them (a step, a control resetting the run, Back and Forward, the presets)
is the labs' script on the same DOM in either document, finding what it draws within its lab and
reading no id: those tests run over http, on one page (``one_page``), each from a link that sets
the labs as a fresh page has them (``follow_link``; a fresh page restores Python, about 2 CPU-s:
issue 47). Where the single file differs, it is checked elsewhere: its lab links written and
followed (test_links.py), its prefixed ids (test_accessibility.py's axe-core and keyboard), every lab
moved in it (test_every_lab.py). What each readout should show is the model's, run in CPython on
the chapter's own lab parameters and on what the test typed, or the seed's (tests/chapter_labs.py).
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Mapping
from typing import cast

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage.costs import MODES, step_cost
from kvpage.lab import Lab
from kvpage.labs import decode as decode_lab
from kvpage.labs import next_request
from kvpage.labs.grid import grid_view
from tests.browsers import flows
from tests.chapter_labs import (
    DECODE,
    NEXT,
    Run,
    chapter_run,
    chip_words,
    compared,
    one_letter_changed,
    requests,
    seed_has,
    seed_readout,
)
from tests.e2e import steps
from tests.e2e.conftest import PYTHON_READY_MS, Audit, follow_link, lab_link

pytestmark = pytest.mark.e2e
from_the_zip = pytest.mark.parametrize("site_url", flows.FLOW_WAYS["try-this"], indirect=True)
"""The Try this where Firefox and WebKit run it, from the unzipped zip (file://): what the labs do once
Python is up is the same every way. Where loading differs, the chapter goes live and answers in each
way: over http and from Cache Storage (test_loading.py), as the single file and under the sub-path
(test_every_lab.py, test_subpath.py)."""
on_one_page_over_http = pytest.mark.parametrize("one_page", ["http"], indirect=True)

REQUEST_1, REQUEST_2 = requests()


def open_chapter(page: Page, url: str) -> tuple[Locator, Locator]:
    page.goto(url)
    decode = page.get_by_role("region", name=DECODE)
    expect(decode.get_by_role("button", name="Generate")).to_be_enabled(timeout=PYTHON_READY_MS)
    return decode, page.get_by_role("region", name=NEXT)


def cold_decode(page: Page, url: str) -> Locator:
    """The decode lab as a fresh page has it (the chapter's values, its cold run), by its link, on the
    module's page."""
    run = chapter_run()
    follow_link(page, url, lab_link("decode", prompt=run.prompt, tokens=run.tokens, mode=run.mode, steps=0))
    decode = page.get_by_role("region", name=DECODE)
    expect_run(decode, run)
    return decode


def live_clock(page: Page) -> None:
    """Playwright's clock on the page, running as usual until the test moves or stops it. Installed
    on the live page (Python ready), never before it opens: the clock's stand-in ``performance``
    lists no entries, so a page opened under it never sees its first paint (its loader waits for
    its 5-second fallback before it starts Python, a load no reader's page makes) and the workers'
    marks (test_worker's SPARE_READY) never hold. Timers set from now on are the clock's, a call's
    time limit among them."""
    page.clock.install()


def stop_the_clock(page: Page) -> None:
    """From now on the page's timers fire only when the test moves its clock (``page.clock.run_for``).

    :func:`live_clock` must have been called, which lets time flow as usual until this call. A
    Generate run takes its next step on a timer, so with the clock stopped it stays where it is
    for as long as the test needs: a test can press Pause mid-run on any machine, however loaded,
    instead of racing the animation.
    Python's worker keeps real time (its calls are answered as ever).
    """
    now = datetime.datetime.fromtimestamp(page.evaluate("Date.now()") / 1000, tz=datetime.UTC)
    page.clock.pause_at(now + datetime.timedelta(seconds=1))


def settled(region: Locator) -> None:
    """Wait until the lab in ``region`` has no call out to Python and none waiting (its handle's ``busy()``)."""
    region.page.wait_for_function("(section) => !kvpageLabs.lab(section).busy()", arg=region.element_handle())


def labelled_readouts(region: Locator, lab: Lab, texts: Mapping[str, str]) -> tuple[Locator, list[str]]:
    """Every labelled readout of ``lab`` in ``region``, each found by its label, joined with ``or_``,
    and what each should show (``texts``, by output), in the page's order: the ``readouts`` macro of
    site_template/labs/controls.html writes them in the order of ``lab.outputs``."""
    labelled = [(output.label, output.name) for output in lab.outputs if output.kind == "text" and output.label]
    readouts = [region.get_by_label(label, exact=True) for label, _ in labelled]
    return functools.reduce(Locator.or_, readouts), [texts[name] for _, name in labelled]


def expect_readouts(region: Locator, lab: Lab, texts: Mapping[str, str]) -> None:
    """Every labelled readout of ``lab`` in ``region`` shows what the model computed (``texts``, by output).

    One ``expect`` for all of them (:func:`labelled_readouts`): ``to_have_text`` with a list waits
    until there is exactly one element per label, each showing its text. One round trip where there
    was one a readout: called at every step of a run, those were much of a test's time."""
    readouts, shows = labelled_readouts(region, lab, texts)
    expect(readouts).to_have_text(shows)


def expect_run(region: Locator, run: Run) -> None:
    """The decode lab shows ``run``: its readouts, its status line and how far it has come.

    The status and the progress, each found by its exact text, and the readouts by their labels, in
    one ``expect`` (site_template/labs/decode.html puts the status line, which holds the two in that
    order, before the readouts): exactly one element for each, showing its text; then both lines
    visible."""
    texts = run.text()
    lines = [texts[line] for line in ("status", "progress")]
    status = functools.reduce(Locator.or_, [region.get_by_text(line, exact=True) for line in lines])
    readouts, shows = labelled_readouts(region, decode_lab.LAB, texts)
    expect(status.or_(readouts)).to_have_text([*lines, *shows])
    expect(status.filter(visible=True)).to_have_count(len(lines))


def expect_seed_readouts(region: Locator, lab: Lab) -> None:
    """Every labelled readout the seed chapter states shows its figure (with its unit, if it has one)."""
    for output in lab.outputs:
        if output.kind == "text" and output.label and seed_has(output.label):
            figure = re.escape(seed_readout(output.label))
            expect(region.get_by_label(output.label, exact=True)).to_have_text(re.compile(rf"^{figure}(\xa0cells?)?$"))


@from_the_zip
def test_try_this(audited: tuple[Page, str], page_audit: Audit) -> None:
    """The chapter's Try this, both labs on one visit (the labs are independent): the steps Firefox
    and WebKit perform too (tests/browsers/flows.py's ``try_this_flow``), by tests/e2e/steps.py."""
    page, url = audited
    outcome = steps.run(page, flows.try_this_flow(url), page_audit)
    assert not outcome.verdict(), outcome.verdict()


@on_one_page_over_http
def test_step_pays_the_prefill_then_a_line_and_a_changed_control_resets_the_run(
    on_one_page: tuple[Page, str],
) -> None:
    """Two flows, the second starting where the first ends (a run two steps in): each Forward pays the
    prefill, then a line; a control changed mid-run starts the run again at the new values, and
    Generate runs them."""
    page, url = on_one_page
    decode = cold_decode(page, url)
    step = decode.get_by_role("button", name="Forward")
    for taken in (1, 2):
        step.click()
        expect_run(decode, chapter_run().after(taken))

    prompt = chapter_run().prompt + 4
    decode.get_by_label("Prefix length").fill(str(prompt))
    expect_run(decode, chapter_run(prompt=prompt))
    decode.get_by_label("Tokens to generate").fill("2")
    decode.get_by_role("button", name="Generate").click()
    expect_run(decode, chapter_run(prompt=prompt, tokens=2).after())


STEP_DRAWN = """(lab, mode) => ({
  now: [...lab.querySelectorAll(`[data-part="grid_${mode}"] rect[data-kind="now"]`)].map(
    (r) => r.width.baseVal.value * r.height.baseVal.value),
  points: Object.fromEntries(["per_step", "totals"].map(
    (chart) => [chart, lab.querySelectorAll(`svg[data-chart="${chart}"] circle[data-series="current"]`).length])),
  rows: lab.querySelectorAll('[data-part="table"] tbody tr').length,
})"""
"""Which step the decode lab's pictures draw: the cells of each "now" row of the mode's grid, the
current series' points of each chart, and the numbers table's rows."""


def expect_step(decode: Locator, run: Run) -> None:
    """Everything the decode lab shows is at ``run``'s step: readouts, the step slider, the grid's paid
    cells, both charts' points and the numbers table's rows, all from the model.

    The readouts and the slider are waited for by role and label, as a reader finds them; the
    pictures and the table are then read in one call (:data:`STEP_DRAWN`) rather than one round trip
    each: the lab draws them and writes its readouts in one task (``render`` in
    static/kvpage/lab.js), so once the readouts show the step, so do they."""
    expect_run(decode, run)
    slider = decode.get_by_role("slider", name=decode_lab.STEPS.label)
    expect(slider).to_have_value(str(run.steps))
    expect(slider).to_have_attribute("aria-valuetext", run.text()["progress"])
    drawn = decode.evaluate(STEP_DRAWN, run.mode)
    assert drawn["now"] == ([run.step_cost()] if run.steps else []), (run, "the grid's paid cells", drawn)
    assert drawn["points"] == {"per_step": run.steps, "totals": run.steps}, (run, "the charts' points", drawn)
    assert drawn["rows"] == len(run.table_rows()), (run, "the numbers table's rows", drawn)


@on_one_page_over_http
def test_back_forward_and_the_step_slider_move_the_whole_lab_together(on_one_page: tuple[Page, str]) -> None:
    """Issue 39, point 3: after Generate, Back, the slider (by its keys) and Forward each show one step,
    the same one in every part of the lab, and the link carries it: the page's own URL, followed,
    sets the lab to that mode and step again, from the other mode's cold run; in each mode. Both
    modes in turn: choosing a mode keeps the step (issue 45), so each mode's flow starts with Reset,
    from its cold run, as on a page opened afresh. The link is followed on the open page
    (``follow_link``), as a reader's is, not reloaded (a fresh page restores Python, about 2 CPU-s:
    issue 47); a link opened in a fresh page is test_links.py's, on both documents."""
    page, url = on_one_page
    decode = cold_decode(page, url)
    at = 0
    for mode, label in decode_lab.MODE.options:
        decode.get_by_role("radio", name=label).check()
        run = chapter_run(mode)  # type: ignore[arg-type]
        expect_step(decode, run.after(at))
        decode.get_by_role("button", name="Reset").click()
        expect_step(decode, run)
        back = decode.get_by_role("button", name="Back")
        expect(back).to_be_disabled()  # a cold run has no step to go back to (issue 45)
        expect_step(decode, run)
        decode.get_by_role("button", name="Generate").click()
        expect_step(decode, run.after())
        back.click()
        expect_step(decode, run.after(run.tokens - 1))
        slider = decode.get_by_role("slider", name=decode_lab.STEPS.label)
        slider.focus()
        slider.press("Home")
        expect_step(decode, run.after(0))
        for _ in range(3):
            slider.press("ArrowRight")
        expect_step(decode, run.after(3))
        decode.get_by_role("button", name="Forward").click()
        expect_step(decode, run.after(4))
        expect(page).to_have_url(re.compile(rf"#decode:.*,mode={mode},steps=4(&|$)"))
        written = page.url.split("#", 1)[1]
        decode.get_by_role("button", name="Reset").click()
        other_mode, other_label = next(option for option in decode_lab.MODE.options if option[0] != mode)
        decode.get_by_role("radio", name=other_label).check()
        expect_step(decode, chapter_run(other_mode))  # type: ignore[arg-type]
        follow_link(page, url, written)  # the link sets the mode and the step
        expect(decode.get_by_role("radio", name=label)).to_be_checked()
        expect_step(decode, run.after(4))
        at = 4


GRIDS_DRAWN = """lab => Object.fromEntries(["kv", "recompute"].map((mode) => {
  const area = (kind) => [...lab.querySelectorAll(`[data-part="grid_${mode}"] rect[data-kind="${kind}"]`)].reduce(
    (sum, r) => sum + r.width.baseVal.value * r.height.baseVal.value, 0);
  const slots = [...lab.querySelectorAll(`[data-part="slots_${mode}"] rect[data-kind]`)].reduce(
    (sum, r) => sum + Number(r.dataset.count), 0);
  return [mode, { now: area("now"), held: area("held"), slots }];
}))"""
"""What each of the decode lab's two grids draws: cells paid now, cells held, and KV slots kept."""


def expect_both_grids(decode: Locator, steps: int) -> None:
    """Both grids of the decode lab are at step ``steps``, each its own mode's, as the model computes
    them (:func:`kvpage.labs.grid.grid_view` for each mode) and as its words say, whichever mode is chosen."""
    wanted = {}
    for mode in MODES:
        grid = grid_view(chapter_run().prompt, chapter_run().tokens, steps, mode)
        wanted[mode] = {
            "now": sum(rows * cols for _, _, rows, cols in cast(list[list[int]], grid["now"])),
            "held": sum(rows * cols for _, _, rows, cols in cast(list[list[int]], grid["held"])),
            "slots": sum(cast(int, run["count"]) for run in cast(list[dict[str, int]], grid["slots"])),
        }
        expect(decode.get_by_text(cast(str, grid["text"]), exact=True)).to_be_visible()
    assert wanted["kv"]["now"] == step_cost(chapter_run().prompt, steps, "kv"), "the KV cache's step: one line"
    assert wanted["recompute"]["now"] == step_cost(chapter_run().prompt, steps, "recompute"), "the square again"
    assert wanted["recompute"]["slots"] == wanted["recompute"]["held"] == 0, "recomputing keeps nothing"
    assert decode.evaluate(GRIDS_DRAWN) == wanted


@on_one_page_over_http
def test_switching_mode_keeps_the_step_and_both_grids_show_the_models_cells(on_one_page: tuple[Page, str]) -> None:
    """Issue 45, point 5: at step N with the KV cache, choosing Recompute keeps step N (it no longer
    starts the run over), and both grids, side by side under the one step control, show step N of
    their own mode before and after the switch, as the model counts it; switching back keeps it too."""
    page, url = on_one_page
    decode = cold_decode(page, url)
    at = chapter_run().tokens // 2 + 1
    slider = decode.get_by_role("slider", name=decode_lab.STEPS.label)
    slider.focus()
    for _ in range(at):
        slider.press("ArrowRight")
    expect_step(decode, chapter_run().after(at))
    expect_both_grids(decode, at)
    decode.get_by_role("radio", name="Recompute").check()
    expect_step(decode, chapter_run("recompute").after(at))
    expect_both_grids(decode, at)
    decode.get_by_role("radio", name="KV cache").check()
    expect_step(decode, chapter_run().after(at))


ALIGNED = """rows => {
  const lefts = (list) => [...list.children].map((chip) => Math.round(chip.getBoundingClientRect().left));
  return rows.map(lefts);
}"""
"""The left edge of every chip of each request's list, in order."""


@on_one_page_over_http
def test_presets_set_request_2_and_the_tokens_stand_in_columns(on_one_page: tuple[Page, str]) -> None:
    """Issue 39, point 4: each preset is a button that sets request 2 to the model's text for it (the
    chapter's experiments), and the lab compares as after typing; position k of request 1 stands over
    position k of request 2; the tokens after the first difference with the same text are marked."""
    page, url = on_one_page
    follow_link(page, url, lab_link("next-request", request1=REQUEST_1, request2=REQUEST_2))
    lab = page.get_by_role("region", name=NEXT)
    expect(lab.get_by_label("Request 2", exact=True)).to_have_value(REQUEST_2)
    box = lab.get_by_label("Request 2", exact=True)
    made = next_request.presets(REQUEST_1)
    assert made["one_letter"] == one_letter_changed(REQUEST_1)  # the chapter's experiment, by another hand
    for name, label in next_request.PRESETS:
        lab.get_by_role("button", name=label).click()
        expect(box).to_have_value(made[name])
        expect_readouts(lab, next_request.LAB, compared(request2=made[name]))
        settled(lab)
        lists = lab.locator("[data-part=tokens1], [data-part=tokens2]")
        first, second = lists.evaluate_all(ALIGNED)
        shared = min(len(first), len(second))
        assert first[:shared] == second[:shared], (name, first, second)
        same = [words for words in chip_words(request2=made[name]) if "same text" in words]
        expect(lab.locator('[data-part=tokens2] [data-kind="same"]')).to_have_count(len(same))
    lab.get_by_role("button", name=dict(next_request.PRESETS)["one_letter"]).click()
    expect(lab.locator('[data-part=tokens2] [data-kind="same"]').first).to_be_visible()
