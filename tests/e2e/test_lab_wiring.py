"""static/labs.js against a stand-in for Python: what it sends, and what it shows when the model fails.

The real model cannot be made to fail on purpose inside the built page (its
code is in the memory snapshot), so these tests give labs.js a fake Pyodide
whose bridge records each request and answers as told. The real bridge's side
of the contract (a model failure comes back with its traceback) is tested in
tests/kvpage/test_bridge.py; the real page end to end in test_labs.py and
test_turns_lab.py.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

LAB = """
<section class="lab" data-lab="fake" data-update="compute" aria-labelledby="h">
<h2 id="h">Lab · fake</h2>
<p data-role="error" role="alert" hidden></p>
<label for="n">Count</label><input type="range" id="n" data-control="n" min="1" max="9" value="3" disabled>
<input type="checkbox" id="c" data-control="c" checked disabled><label for="c">Cached</label>
<fieldset><legend>Mode</legend>
<label><input type="radio" name="m" data-control="m" value="a" checked disabled> A</label>
<label><input type="radio" name="m" data-control="m" value="b" disabled> B</label></fieldset>
<label for="t">Words</label><textarea id="t" data-control="t" disabled>hi</textarea>
<button type="button" data-action="more" data-calls="grow" disabled>More</button>
<label for="o">Total</label> <output id="o" data-field="total">9</output>
<script type="application/json" data-view>{"state": {"k": 1}, "text": {"total": "9"}}</script>
</section>
"""

FAKE_PYTHON = """
window.sent = [];
window.answer = (request) => ({ok: true, result: {state: {k: 2}, text: {total: String(request.args.n * 10)}}});
window.fakePyodide = {
  pyimport: () => ({
    handle: {copy: () => (text) => {
      const request = JSON.parse(text);
      sent.push(request);
      return JSON.stringify(answer(request));
    }},
    destroy: () => {},
  }),
};
"""


@pytest.fixture
def wired(page: Page) -> Page:
    page.set_content(LAB)
    page.add_script_tag(content=FAKE_PYTHON)
    page.add_script_tag(content=(ROOT / "site_template/static/labs.js").read_text(encoding="utf-8"))
    page.evaluate("kvpageLabs.start(fakePyodide)")
    return page


def sent(page: Page) -> list[dict[str, object]]:
    return json.loads(page.evaluate("JSON.stringify(sent)"))  # type: ignore[no-any-return]


def test_every_control_is_sent_as_its_kind_with_the_last_state(wired: Page) -> None:
    expect(wired.get_by_label("Total")).to_have_text("30")
    assert sent(wired)[0] == {
        "lab": "fake",
        "action": "compute",
        "args": {"n": 3, "c": True, "m": "a", "t": "hi", "state": {"k": 1}},
    }
    wired.get_by_label("Cached").uncheck()
    wired.get_by_role("radio", name="B").check()
    wired.get_by_label("Count").fill("5")
    expect(wired.get_by_label("Total")).to_have_text("50")
    assert sent(wired)[-1]["args"] == {"n": 5, "c": False, "m": "b", "t": "hi", "state": {"k": 2}}
    wired.get_by_role("button", name="More").click()
    assert sent(wired)[-1]["action"] == "grow"


def test_a_model_failure_is_shown_in_the_lab_and_its_traceback_goes_to_the_console(wired: Page) -> None:
    wired.evaluate(
        """window.answer = () => ({ok: false, error: "the model failed: ZeroDivisionError: boom",
                                 traceback: "Traceback (most recent call last):\\nZeroDivisionError: boom"})"""
    )
    with wired.expect_console_message(lambda message: message.type == "error") as logged:
        wired.get_by_label("Count").fill("4")
    expect(wired.get_by_role("alert")).to_have_text("the model failed: ZeroDivisionError: boom")
    expect(wired.get_by_label("Total")).to_have_text("—")
    assert logged.value.text.startswith("kvpage lab fake: the model failed: ZeroDivisionError: boom\nTraceback")


def test_a_refusal_is_shown_without_a_console_error(wired: Page) -> None:
    errors: list[ConsoleMessage] = []
    wired.on("console", lambda message: errors.append(message) if message.type == "error" else None)
    wired.evaluate("""window.answer = () => ({ok: false, error: "Count must be between 1 and 9, not 12"})""")
    wired.get_by_label("Words").fill("<img src=x onerror=alert(1)>")
    expect(wired.get_by_role("alert")).to_have_text("Count must be between 1 and 9, not 12")
    assert errors == []
    assert wired.locator("img").count() == 0
