"""Python in a Web Worker, in Chromium: it starts there, a runaway call is stopped, a stale answer dropped.

The test book ``tests/books/runaway/`` has a lab whose button loops forever beside the example lab.
Each test runs three ways: over http, from the unzipped zip (file://) and as the single file, with
the network, console and CSP audit. Firefox and WebKit run the same steps (tests/browsers/flows.py).
The time limit is the book's own ``call_timeout``; the one assumption on timing is that the other
lab's quick call is answered within it while the loop runs (it goes to the page's spare Python,
which a slow call before the loop makes the page start, and which the tests wait for). Once the
test has seen all it checks while the call runs, it moves the page's clock (Playwright's
``page.clock``, installed once Python is up and otherwise running as usual: ``live_clock``) on by
that ``call_timeout``, instead of waiting the seconds out while the worker loops on a core: the page's
timer is all that stops the call, and it fires as it would for a reader, only sooner.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from kvpage.labs import runaway, square
from tests.browser_fixtures import WAYS
from tests.browsers.flows import (
    IN_A_WORKER,
    RECORD,
    RUNAWAY,
    RUNAWAY_CHAPTER,
    SPARE_READY,
    SQUARE,
    call_timeout,
    lab_params,
    shown_seconds,
)
from tests.conftest import Built
from tests.e2e.conftest import PYTHON_READY_MS, opened_book
from tests.e2e.test_labs import live_clock

pytestmark = pytest.mark.e2e


@pytest.fixture(params=WAYS)
def opened(
    request: pytest.FixtureRequest, runaway_built: Built, page: Page, tmp_path: Path
) -> Iterator[tuple[Page, str]]:
    """The runaway chapter opened one of the three ways, Python live, with the audit attached; and the way."""
    with opened_book(request.param, runaway_built, "runaway.html", page, tmp_path) as (_, url):
        page.goto(url)
        expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=PYTHON_READY_MS)
        yield page, request.param


SLIDE = """([region, values]) => {
  const slider = region.querySelector("input[type=range]");
  for (const value of values) {
    slider.value = value;
    slider.dispatchEvent(new Event("input", { bubbles: true }));
  }
}"""
"""The slider moved through ``values`` in one task, one input event each, as a quick drag does."""


def squared(n: int) -> str:
    return str(runaway.compute({"n": n})["text"]["square"])  # type: ignore[index]


def test_python_in_a_worker_drops_a_stale_answer_and_stops_a_runaway_call(opened: tuple[Page, str]) -> None:
    """One page a way (each load starts Python): the worker, then a stale answer, then a runaway call;
    over http, then an update that never returns."""
    page, way = opened
    # Python runs in a worker, made from a Blob, and none of Pyodide's JavaScript ran on the page.
    assert page.evaluate(IN_A_WORKER)
    assert page.workers and all(worker.url.startswith("blob:") for worker in page.workers)
    stuck, other = page.get_by_role("region", name=RUNAWAY), page.get_by_role("region", name=SQUARE)

    # Two moves of the slider in one task: the first call goes at once, the second waits; the first
    # answer, arriving after the second move, is dropped, and only the second's number is ever shown.
    region = stuck.element_handle()
    page.evaluate(RECORD, region)
    page.evaluate(SLIDE, [region, ["7", "8"]])
    expect(stuck.get_by_label("Its square")).to_have_text(squared(8))
    assert page.evaluate("window.__seen") == [squared(8)]

    # A slow call that returns: the page starts its spare Python meanwhile.
    stuck.get_by_role("button", name="Think for a second").click()
    page.wait_for_function(SPARE_READY)  # the loop's click below waits in the lab for its answer
    live_clock(page)

    # A call that never returns: the page scrolls and the other lab answers meanwhile, from the
    # spare; after the book's call_timeout the call is stopped, the lab's values kept.
    page.set_viewport_size({"width": 360, "height": 400})  # the chapter scrolls
    start = int(lab_params("runaway", RUNAWAY_CHAPTER)["n"])
    stuck.get_by_role("button", name="Loop forever").click()
    page.mouse.wheel(0, 200)
    page.wait_for_function("() => scrollY > 0")  # the main thread scrolled the page meanwhile
    other.get_by_label("Tokens").fill("20")
    cells = square.compute({"tokens": 20})["text"]["cells"]  # type: ignore[index]
    expect(other.get_by_label("Cells a cold prefill pays")).to_have_text(cells)
    expect(stuck.get_by_text("Python is still working on this…")).to_be_visible()
    assert stuck.get_by_role("alert").is_hidden(), "the other lab answered only after the loop was stopped"

    page.clock.fast_forward(round(call_timeout() * 1000))  # the page's timer that stops the call fires
    seconds = shown_seconds(call_timeout())
    expect(stuck.get_by_role("alert")).to_have_text(
        f"The model took longer than {seconds} s and was stopped; the lab keeps your values."
    )
    expect(stuck.get_by_label("Its square")).to_have_text("—")
    expect(stuck.get_by_label("Number")).to_have_value("8")  # where the reader left it
    stuck.get_by_label("Number").fill(str(start + 2))
    expect(stuck.get_by_label("Its square")).to_have_text(squared(start + 2))
    expect(stuck.get_by_role("alert")).to_be_hidden()
    expect(other.get_by_label("Cells a cold prefill pays")).to_have_text(cells)

    # A view JSON cannot carry: the lab says which action returned what, not that Python is out of reach,
    # and not what the lab's author should do about it (the build and the console say that).
    stuck.get_by_role("button", name="Answer with NaN").click()
    expect(stuck.get_by_role("alert")).to_have_text(
        "the model failed: action 'nan' returned NaN (at view.state.ratio); the lab keeps your values."
    )
    expect(stuck.get_by_label("Its square")).to_have_text("—")
    stuck.get_by_label("Number").fill(str(start))
    expect(stuck.get_by_label("Its square")).to_have_text(squared(start))
    expect(stuck.get_by_role("alert")).to_be_hidden()
    if way == "http":
        an_update_stopped_at_a_value_the_sweep_never_tried_keeps_the_readers_values(page)


def an_update_stopped_at_a_value_the_sweep_never_tried_keeps_the_readers_values(page: Page) -> None:
    """The slider at the one value whose update never returns (this book's sweep is off, as it is
    for a value the sweep cannot reach): the page stops it after call_timeout and says so in the lab,
    the slider stays where the reader put it, the URL keeps it, and the next value is computed. On
    the page the runaway call left, its clock already the test's (``live_clock``)."""
    stuck = page.get_by_role("region", name=RUNAWAY)
    number = stuck.get_by_label("Number")
    number.fill(str(runaway.STALLS_AT))
    expect(stuck.get_by_text("Python is still working on this…")).to_be_visible()  # the call is out
    assert stuck.get_by_role("alert").is_hidden()
    page.clock.fast_forward(round(call_timeout() * 1000))  # the page's timer that stops the call fires
    seconds = shown_seconds(call_timeout())
    expect(stuck.get_by_role("alert")).to_have_text(
        f"The model took longer than {seconds} s and was stopped; the lab keeps your values."
    )
    expect(number).to_have_value(str(runaway.STALLS_AT))
    expect(stuck.get_by_label("Its square")).to_have_text("—")
    expect(page).to_have_url(re.compile(rf"[#&]runaway:n={runaway.STALLS_AT}(&|$)"))  # a copied link names it
    number.fill(str(runaway.STALLS_AT - 1))
    expect(stuck.get_by_label("Its square")).to_have_text(squared(runaway.STALLS_AT - 1))
    expect(stuck.get_by_role("alert")).to_be_hidden()
