"""Chromium's adapter for the browser-neutral flows of tests/browsers/flows.py, in Playwright.

Firefox (``firefox_driver.mjs``) and WebKit (``test_webkit.py``) perform the same steps, so a flow
is written once and the three engines cannot drift apart. Each ``op`` is done as a reader would:
a region by its role and name, a control by its role and accessible name, a readout by its role
and label; every wait is Playwright's (an ``expect``, or ``wait_for_function`` for a flow's own
JavaScript check), never a sleep. :func:`run` reports as the other adapters do, an ``Outcome``: the
step that failed, and what the page's audit (``audited`` in tests/e2e/conftest.py: requests,
console, page errors, CSP) found meanwhile.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import Error, Locator, Page, expect
from playwright.sync_api import TimeoutError as Timeout

from tests.browsers.conftest import Outcome
from tests.browsers.flows import Step
from tests.e2e.conftest import PYTHON_READY_MS, Audit, csp_violations, painted

CHECK_MS = 60_000
"""How long a flow's alert and its own JavaScript checks may take to hold: a bound on a hang, as
the other adapters' (Firefox's EXPECT_MS, WebKit's EXPECT_S), past the runaway book's call_timeout
(20 s) that the worker flow's alert waits out. Every other wait is an ``expect`` of EXPECT_MS
(tests/e2e/conftest.py)."""

LAB_SAYS = """(lab) => {
  const [alert, runtime] = [lab.querySelector("[data-role=error]"), lab.querySelector("[data-role=runtime]")];
  return [alert && !alert.hidden ? alert.textContent.trim() : "", runtime ? runtime.textContent.trim() : ""];
}"""
"""A lab's alert (hidden: none) and runtime line (site_template/labs/runtime-status.html), for the
message of a step that failed."""


def run(page: Page, steps: list[Step], audit: Audit) -> Outcome:
    """Perform ``steps`` on ``page`` until one fails; the outcome holds that failure and the audit's
    problems, taken out of ``audit`` (so the fixture's own check at the end does not say them twice)."""
    error = None
    for number, step in enumerate(steps, 1):
        try:
            perform(page, step)
        except (AssertionError, Error) as failure:
            error = f"step {number} of {len(steps)}, {describe(step)}: {first_lines(str(failure))}"
            break
    problems = [*audit.problems, *csp_violations(page)]
    audit.problems.clear()
    return Outcome(error, problems, list(audit.requests))


def perform(page: Page, step: Step) -> None:
    """One step of a flow (its ``op``: see the step builders of tests/browsers/flows.py)."""
    op = step["op"]
    if op in ("open", "reload", "open_copied"):
        opened(page, step)
    elif not page_step(page, step):
        region_step(page.get_by_role("region", name=step["region"], exact=True), step)


def opened(page: Page, step: Step) -> None:
    """Load a page (the step's URL, this one again, or the link a lab's text box holds) and wait for Python."""
    if step["op"] == "open":
        page.goto(step["url"])
    elif step["op"] == "reload":
        page.reload()
    else:  # afresh, as a new tab would: the link differs from this page's URL only in its fragment
        region = page.get_by_role("region", name=step["region"], exact=True)
        link = region.get_by_role(step["role"], name=step["label"], exact=True).input_value()
        page.goto("about:blank")
        page.goto(link)
    expect(page.locator("html"), "Python should be ready").to_have_attribute(
        "data-python", "ready", timeout=PYTHON_READY_MS
    )


def page_step(page: Page, step: Step) -> bool:
    """The steps that need no region (flows.search_flow's, across pages); False for any other."""
    op = step["op"]
    if op == "goto":
        page.goto(step["url"])
        expect(page.get_by_role("combobox", name=step["label"], exact=True)).to_be_visible(timeout=PYTHON_READY_MS)
    elif op == "key":
        painted(page)  # Chromium drops a key the page gets before its first paint
        page.keyboard.press(step["key"])
    elif op == "type":
        page.keyboard.type(step["text"])
    elif op == "set_query":
        page.get_by_role("combobox", name=step["label"], exact=True).fill(step["text"])
    elif op == "expect_focused":
        expect(page.get_by_role(step["role"], name=step["name"], exact=True)).to_be_focused()
    elif op == "expect_page":
        until(page, f"() => ({step['js']})() === true", None, step["what"], lambda: page.evaluate(step["js"]))
    else:
        return False
    return True


def region_step(region: Locator, step: Step) -> None:
    """A step in a lab's region (``step["region"]``, found by its heading's name)."""
    op = step["op"]
    if op == "click":
        region.get_by_role(step["role"], name=step["name"], exact=True).click()
    elif op in ("fill", "paste"):  # Playwright's fill is one input event, as a paste is
        region.get_by_role(step["role"], name=step["label"], exact=True).fill(step["text"])
    elif op == "find":
        expect(region.get_by_role(step["role"], name=step["label"], exact=True)).to_have_count(1)
    elif op == "expect_text":
        readout = region.get_by_role(step["role"], name=step["label"], exact=True)
        try:
            expect(readout, f"{step['label']!r} should read {step['text']!r}").to_have_text(step["text"])
        except AssertionError as failure:
            alert, runtime = region.evaluate(LAB_SAYS)
            raise AssertionError(
                f"{first_lines(str(failure))} (the lab's alert: {alert!r}; its runtime line: {runtime!r})"
            ) from None
    elif op == "expect_alert":
        expect(region.get_by_role("alert")).to_have_text(step["text"], timeout=CHECK_MS)
    elif op == "expect_disabled":
        target = region.get_by_role(step["role"], name=step["name"], exact=True)
        if step["disabled"]:
            expect(target).to_be_disabled()
        else:
            expect(target).to_be_enabled()
    elif op == "expect_js":
        target = region.get_by_role(step["role"], name=step["name"], exact=True)
        assert target.evaluate(step["js"]), f"{step['role']} {step['name']!r} fails {step['js']}"
    elif op == "js":

        def seen() -> object:
            """What the check returns, for the message."""
            answer: object = region.evaluate(step["js"])
            return answer

        if step["until"]:
            until(region.page, f"(el) => ({step['js']})(el) === true", region, f"{short(step['js'])} should hold", seen)
        else:
            assert (answer := seen()) is True, f"{short(step['js'])} does not hold: {answer!r}"
    elif op == "screenshot":
        region.screenshot(path=step["path"])
    else:
        raise AssertionError(f"unknown step {step}")


def until(page: Page, check: str, region: Locator | None, what: str, seen: Callable[[], object]) -> None:
    """Wait (Playwright's polling in the page, by animation frame) until the JavaScript function
    ``check`` of ``region``'s element (None: of nothing) is true; else fail with what it returns."""
    arg = region.element_handle() if region is not None else None
    try:
        page.wait_for_function(check, arg=arg, timeout=CHECK_MS)
    except Timeout:
        raise AssertionError(f"{what}, but it shows {seen()!r}") from None


def describe(step: Step) -> str:
    """A step as its message names it: its op and what it acts on, without its JavaScript."""
    shown = {key: short(value) for key, value in step.items() if key not in ("js", "op")}
    return f"{step['op']} {json.dumps(shown, ensure_ascii=False)}"


def short(value: object) -> object:
    """A step's value as a message shows it: a text of more than 80 characters cut (a hostile query is
    100,000; a JavaScript check's own answer says what it found), its white space collapsed."""
    if not isinstance(value, str) or len(value) <= 80:
        return value
    return f"{' '.join(value.split())[:80]}… ({len(value):,} characters)"


def first_lines(message: str) -> str:
    """Playwright's message without its call log (every poll of a wait, one line each)."""
    return message.split("\nCall log:")[0].strip()
