"""The chapter's "Try this" in WebKit (WebKitGTK, Safari's engine), driven by selenium.

WebKitWebDriver runs under ``xvfb-run`` and starts ``webkit_browser.py`` as its browser: the
system's WebKitGTK with ``capture.js`` as a user script and the engine's request signals, both
logged to a file this module reads (WebKitWebDriver has no BiDi to report them). One browser
session serves every test but the worker flows, which get one each (``webkit_of_its_own`` says
why). Steps come from ``flows.py``; elements are found as a reader finds them: a region by its
heading, a button by its text, a control through its <label>, and each is checked against
WebKit's computed accessibility role and name.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.wait import WebDriverWait

from tests.browser_fixtures import Book, Where
from tests.browsers import flows
from tests.browsers.conftest import Outcome, missed_by
from tests.browsers.flows import FLOWS, WORKER_FLOWS, Step, kitchen_sink_flow, open_page, search_flow
from tests.conftest import TWO_CHAPTERS
from tests.search_targets import search_targets

pytestmark = pytest.mark.browsers

DRIVER = Path("/usr/bin/WebKitWebDriver")
BROWSER = Path(__file__).with_name("webkit_browser.py")
READY_S = 120
"""Deadline for Python to start (a bound on a hang, not a wait: WebKit's single file is the slowest, ~9 s
median but past 60 s on a 2-core machine under a load of 20)."""
LAB_SAYS = """const [lab, shown] = [arguments[0], (element) => element?.textContent.trim() ?? ""];
const [alert, runtime] = [lab.querySelector("[data-role=error]"), lab.querySelector("[data-role=runtime]")];
return { alert: alert && !alert.hidden ? shown(alert) : "", runtime: shown(runtime) };"""
"""A lab's alert (hidden: none) and runtime line (site_template/labs/runtime-status.html)."""
EXPECT_S = 60
"""Deadline for a step's condition (a bound on a hang too: a step ends as soon as it holds). Some steps
wait on a Python starting: the worker flow's spare, restored in WebKit's single file, took over 15 s
in CI under the suite's own load (TimeoutException at its SPARE_READY step)."""
BASELINE_WASM = {"JSC_useOMGJIT": "false"}
"""WebKit's page runs its WebAssembly (Python) with JavaScriptCore's baseline tier, BBQ, and never
compiles hot functions a second time with OMG, its optimizing tier (the web process reads ``JSC_``
options from its environment, which it inherits from WebKitWebDriver's). As in Chromium's tests
(tests/e2e/conftest.py, BASELINE_WASM): the optimizing compiles were CPU that the other tests of a
2-core machine wait for, and what the page computes does not change. Firefox's optimizing tier cost
nothing measurable here, so its driver leaves it on (docs/performance.md, "The test suite")."""
KEYS = {"ArrowDown": Keys.ARROW_DOWN, "ArrowUp": Keys.ARROW_UP, "Enter": Keys.ENTER, "Escape": Keys.ESCAPE}


class AuditBrowser(ArgOptions):
    """Capabilities that start webkit_browser.py instead of MiniBrowser (no browserName: it is ours)."""

    def __init__(self, log: Path) -> None:
        super().__init__()
        self.log = log

    @property
    def default_capabilities(self) -> dict[str, Any]:
        return {}

    def to_capabilities(self) -> dict[str, Any]:
        args = ["--automation", f"--audit-log={self.log}"]
        return {"webkitgtk:browserOptions": {"binary": str(BROWSER), "args": args}}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class WebKit:
    """One WebKitWebDriver (under its own X server) and one browser session."""

    def __init__(self, log: Path) -> None:
        self.log = log
        port = free_port()
        env = {**os.environ, "WEBKIT_DISABLE_COMPOSITING_MODE": "1", **BASELINE_WASM}
        self.server = subprocess.Popen(
            ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", str(DRIVER), f"--port={port}"],
            env=env,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.server.poll() is not None:
                    self.stop_server()
                    raise RuntimeError("WebKitWebDriver did not start") from None
                time.sleep(0.1)  # polling a port that is not open yet: nothing to wait on
        self.driver = webdriver.Remote(command_executor=url, options=AuditBrowser(log))
        self.driver.set_window_size(1280, 900)
        self.regions: dict[str, WebElement] = {}
        """The regions found in the document open now, by name (a new document: none)."""

    def stop_server(self) -> None:
        os.killpg(self.server.pid, signal.SIGTERM)
        self.server.wait(timeout=30)

    def close(self) -> None:
        try:
            self.driver.quit()
        finally:
            self.stop_server()

    # Finding elements as a reader does.

    def region(self, name: str) -> WebElement:
        """The section labelled by an element whose text is ``name``, checked as a region so named; kept
        for the document (``regions``). Through the label's id (XPath's ``id()``), as comparing
        ``name`` with every element's text took ~0.5 s a lookup in the single file, whose <html>
        holds megabytes of inline script text."""
        if name not in self.regions:
            xpath = f"//section[@aria-labelledby][normalize-space(id(@aria-labelledby)) = {xq(name)}]"
            self.regions[name] = self.checked(self.driver.find_element("xpath", xpath), "region", name)
        return self.regions[name]

    def by_role(self, region: WebElement, role: str, name: str) -> WebElement:
        if role == "button":
            # By its text, or by the start of its name when it is labelled by its text and more (a
            # lab's "Copy link", named "Copy link Lab · …" after its heading); checked() checks the name.
            labelled = f"@aria-labelledby and starts-with({xq(name)}, concat(normalize-space(.), ' '))"
            element = region.find_element("xpath", f".//button[normalize-space(.) = {xq(name)} or ({labelled})]")
        elif role == "radio":
            element = region.find_element("xpath", f".//label[normalize-space(.) = {xq(name)}]//input[@type='radio']")
        else:
            raise ValueError(f"no way to find a {role}")
        return self.checked(element, role, name)

    def labelled(self, region: WebElement | webdriver.Remote, role: str, label: str) -> WebElement:
        tag = region.find_element("xpath", f".//label[normalize-space(.) = {xq(label)}]")
        element = region.find_element("id", tag.get_attribute("for") or "")
        return self.checked(element, role, label)

    def checked(self, element: WebElement, role: str, name: str) -> WebElement:
        """``element``, if WebKit's accessibility tree gives it this role and name."""
        assert (element.aria_role, element.accessible_name) == (role, name)
        return element

    # The steps of flows.py.

    def page_step(self, s: Step) -> bool:
        """The steps that need no region (flows.search_flow), across pages; False for any other."""
        wait = WebDriverWait(self.driver, EXPECT_S, poll_frequency=0.05)
        if s["op"] == "goto":
            self.driver.get(s["url"])
            WebDriverWait(self.driver, READY_S, poll_frequency=0.05).until(
                lambda _: self.labelled(self.driver, "combobox", s["label"]).is_displayed()
            )
        elif s["op"] == "key":
            ActionChains(self.driver).send_keys(KEYS.get(s["key"], s["key"])).perform()
        elif s["op"] == "type":
            ActionChains(self.driver).send_keys(s["text"]).perform()
        elif s["op"] == "set_query":
            box = self.labelled(self.driver, "combobox", s["label"])
            self.driver.execute_script(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
                box,
                s["text"],
            )
        elif s["op"] == "expect_focused":
            box = self.labelled(self.driver, s["role"], s["name"])
            wait.until(lambda _: self.driver.execute_script("return arguments[0] === document.activeElement", box))
        elif s["op"] == "expect_page":
            try:
                wait.until(lambda _: self.answer(s["js"]) is True)
            except TimeoutException as error:
                raise AssertionError(f"{s['what']}, but it shows {self.answer(s['js'])!r}") from error
        else:
            return False
        return True

    def answer(self, js: str) -> object:
        """What the function ``js`` returns in the page; a page being left cannot answer (None)."""
        try:
            return self.driver.execute_script(f"return ({js})()")
        except WebDriverException:
            return None

    def lab_says(self, region: Any) -> str:
        """What the lab itself says, for a failed step's message: its alert (an error) and its
        runtime line, as a reader sees them."""
        said = self.driver.execute_script(LAB_SAYS, region)
        return f" (the lab's alert: {said['alert']!r}; its runtime line: {said['runtime']!r})"

    def step(self, s: Step) -> None:
        wait = WebDriverWait(self.driver, EXPECT_S, poll_frequency=0.05)
        if s["op"] in ("goto", "key"):  # a new document (a key may follow a link): its regions are new
            self.regions.clear()
        if s["op"] in ("open", "reload", "open_copied"):
            if s["op"] == "open":
                # Afresh: one window serves every flow, and a URL that differs from the page's only
                # in its fragment (a lab's state is in it) would be followed within the page.
                if self.driver.current_url.split("#")[0] == s["url"].split("#")[0]:
                    self.driver.get("about:blank")
                self.driver.get(s["url"])
            elif s["op"] == "reload":
                self.driver.refresh()
            else:  # afresh, as a new tab would: the link differs from this page's URL only in its fragment
                link = self.labelled(self.region(s["region"]), s["role"], s["label"]).get_property("value")
                self.driver.get("about:blank")
                self.driver.get(str(link))
            self.regions.clear()  # a new document: its regions are new
            try:
                WebDriverWait(self.driver, READY_S, poll_frequency=0.05).until(
                    lambda d: d.execute_script("return document.documentElement.dataset.python") == "ready"
                )
            except TimeoutException as error:
                state = self.answer("() => document.documentElement.dataset.python || 'not started'")
                raise AssertionError(
                    f"{self.driver.current_url}: Python not ready after {READY_S} s ({state})"
                ) from error
            return
        if self.page_step(s):
            return
        region = self.region(s["region"])
        if s["op"] == "click":
            self.by_role(region, s["role"], s["name"]).click()
        elif s["op"] == "paste":
            box = self.labelled(region, s["role"], s["label"])
            self.driver.execute_script(
                "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
                box,
                s["text"],
            )
        elif s["op"] == "fill":
            box = self.labelled(region, s["role"], s["label"])
            box.click()
            box.send_keys(Keys.CONTROL, "a")
            box.send_keys(s["text"])
        elif s["op"] == "expect_text":
            out = self.labelled(region, s["role"], s["label"])
            try:
                wait.until(lambda _: out.get_property("textContent").strip() == s["text"])
            except TimeoutException as error:
                seen = out.get_property("textContent").strip()
                raise AssertionError(
                    f'"{s["label"]}" should read {s["text"]!r}, but it shows {seen!r}{self.lab_says(region)}'
                ) from error
        elif s["op"] == "expect_js":
            group = region.find_element("xpath", f".//fieldset[legend[normalize-space(.) = {xq(s['name'])}]]")
            target = self.checked(group, s["role"], s["name"])
            if not self.driver.execute_script(f"return ({s['js']})(arguments[0])", target):
                raise AssertionError(f'{s["role"]} "{s["name"]}" fails {s["js"]}')
        elif s["op"] == "find":
            self.labelled(region, s["role"], s["label"])
        elif s["op"] == "expect_alert":
            box = region.find_element("xpath", ".//*[@role='alert']")
            shown = "return arguments[0].hidden ? '' : arguments[0].textContent.trim()"
            try:
                wait.until(lambda _: self.driver.execute_script(shown, box) == s["text"])
            except TimeoutException as error:
                seen = self.driver.execute_script(shown, box)
                raise AssertionError(f"the alert should read {s['text']!r}, but it shows {seen!r}") from error
        elif s["op"] == "js":

            def holds(_: object) -> bool:
                return self.driver.execute_script(f"return ({s['js']})(arguments[0])", region) is True

            if s["until"]:
                try:
                    wait.until(holds)
                except TimeoutException as error:
                    seen = self.driver.execute_script(f"return ({s['js']})(arguments[0])", region)
                    raise AssertionError(f"the check should hold, but it returns {seen!r}") from error
            elif not holds(None):
                raise AssertionError(f"{s['js']} does not hold")
        elif s["op"] == "screenshot":
            region.screenshot(s["path"])
        elif s["op"] == "expect_disabled":
            target = self.by_role(region, s["role"], s["name"])
            off = "return arguments[0].disabled || arguments[0].getAttribute('aria-disabled') === 'true'"
            wait.until(lambda _: self.driver.execute_script(off, target) is s["disabled"])
        else:
            raise ValueError(f"unknown step {s}")

    def run(self, origin: str, steps: list[Step]) -> Outcome:
        start = self.log.stat().st_size if self.log.exists() else 0
        self.regions.clear()
        error = None
        try:
            for s in steps:
                started = time.monotonic()
                self.step(s)
                if os.environ.get("KVPAGE_STEP_TIMES"):
                    print(
                        f"step {round((time.monotonic() - started) * 1000)} ms: {json.dumps(s)[:300]}", file=sys.stderr
                    )
        except Exception as failure:  # noqa: BLE001 - reported with the audit, not instead of it
            error = f"{type(failure).__name__}: {failure}"
        installed = self.driver.execute_script("return Array.isArray(window[Symbol.for('kvpage.audit')])")
        problems, requests = audited(self.events_since(start), origin)
        if not installed:
            problems.insert(0, "the capture script was not installed in the page")
        return Outcome(error, problems, requests)

    def events_since(self, start: int) -> list[dict[str, str]]:
        """The browser's log after ``start``, up to a mark posted now (so every earlier event is in)."""
        mark = f"mark {uuid.uuid4()}"
        self.driver.execute_script(
            "window.webkit.messageHandlers.kvpageAudit.postMessage(arguments[0]);"
            "window[Symbol.for('kvpage.audit')] = window[Symbol.for('kvpage.audit')] || [];",
            mark,
        )

        def read() -> list[dict[str, str]] | None:
            with self.log.open(encoding="utf-8") as log:
                log.seek(start)
                events = [json.loads(line) for line in log if line.endswith("\n")]
            texts = [event["text"] for event in events]
            return events[: texts.index(mark)] if mark in texts else None

        found: list[dict[str, str]] = WebDriverWait(self.driver, EXPECT_S, poll_frequency=0.05).until(lambda _: read())
        return found


def audited(events: list[dict[str, str]], origin: str) -> tuple[list[str], list[str]]:
    """The problems among the browser's logged ``events``, and every request the page made.

    A load the engine cancelled (``webkit_browser.py``: the page was left while it loaded, e.g. a
    search result followed before Python's files were in) is no problem, and neither is the
    element's "failed to load" that the page reports for that same URL: nothing was missing. (An
    element's load that fails once the page is being left, a binary's script the page tried after
    its cancelled download, ``capture.js`` does not report at all.)
    """
    cancelled = {event["text"] for event in events if event["kind"] == "cancelled"}
    problems: list[str] = []
    requests: list[str] = []
    for event in events:
        if event["kind"] == "request":
            requests.append(event["text"])
            if not event["text"].startswith((origin, "data:", "blob:")):
                problems.append(f"request outside the site: {event['text']}")
        elif event["kind"] == "failed":
            problems.append(f"request failed: {event['text']}")
        elif event["kind"] == "page" and event["text"].removeprefix("failed to load: ") not in cancelled:
            problems.append(f"page: {event['text']}")
    return problems, requests


def xq(text: str) -> str:
    """``text`` as an XPath string literal."""
    return f'"{text}"' if '"' not in text else "concat(" + ", '\"', ".join(f'"{p}"' for p in text.split('"')) + ")"


def needs_webkit() -> None:
    for needed in (DRIVER, Path("/usr/bin/xvfb-run")):
        if not needed.exists():
            pytest.fail(f"WebKit tests need {needed}: run make test-deps")


@pytest.fixture(scope="session")
def webkit(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebKit]:
    needs_webkit()
    browser = WebKit(tmp_path_factory.mktemp("webkit") / "audit.jsonl")
    yield browser
    browser.close()


@pytest.mark.parametrize(("where", "flow"), flows.cases(flows.FLOW_WAYS), indirect=["where"])
def test_try_this(webkit: WebKit, where: Where, flow: str) -> None:
    outcome = webkit.run(where.origin, FLOWS[flow](where.chapter))
    assert not outcome.verdict(), outcome.verdict()


@pytest.fixture
def webkit_of_its_own(tmp_path: Path) -> Iterator[WebKit]:
    """A browser session for one test, closed after it: the worker flows' runaway call, though the
    page stops it and goes on, keeps a core busy in WebKitGTK's web process afterwards, even on
    about:blank (about 9.5 CPU-s in 10 s, measured with /proc after the flow). In the session's
    browser that core was lost to every test the worker ran after; closing the session ends it."""
    needs_webkit()
    browser = WebKit(tmp_path / "audit.jsonl")
    yield browser
    browser.close()


@pytest.mark.parametrize(("runaway_where", "flow"), flows.cases(flows.WORKER_CASES), indirect=["runaway_where"])
def test_pythons_worker(webkit_of_its_own: WebKit, runaway_where: Where, flow: str) -> None:
    """A runaway call stopped while the page and another lab answer; a stale answer never drawn."""
    outcome = webkit_of_its_own.run(runaway_where.origin, WORKER_FLOWS[flow](runaway_where.chapter))
    assert not outcome.verdict(), outcome.verdict()


def test_kitchen_sink_renders(webkit: WebKit, kitchen_sink_where: Where) -> None:
    """Every construct of the Markdown laid out (tests/browsers/renders.js), the lab live, the audit clean."""
    outcome = webkit.run(kitchen_sink_where.origin, kitchen_sink_flow(kitchen_sink_where.chapter))
    assert not outcome.verdict(), outcome.verdict()


def test_search_lands_on_each_chapters_heading_and_keeps_queries_as_text(webkit: WebKit, book: Book) -> None:
    steps = search_flow(book.first, search_targets(TWO_CHAPTERS), book.pages, book.single)
    outcome = webkit.run(book.origin, steps)
    assert not outcome.verdict(), outcome.verdict()


def test_audit_fails_a_page_that_breaks_the_rules(webkit: WebKit, control_page: Where) -> None:
    outcome = webkit.run(control_page.origin, [open_page(control_page.chapter)])
    assert outcome.error is None
    assert missed_by(outcome) == [], "\n".join(outcome.problems)


def test_a_load_cancelled_by_leaving_the_page_is_no_problem_but_a_failed_one_is() -> None:
    """The audit's reading of the browser's log (seen in CI: a search result followed while the first
    page still loaded Python's files; WebKit cancelled them and the page's script elements said "failed
    to load"). A failure, or an element's failed load that was not cancelled, is still a problem."""
    site = "file:///book/"
    wasm, snapshot, missing = f"{site}pyodide/a.wasm.bin.js", f"{site}pyodide/b.snapshot.bin.js", f"{site}gone.js"
    events = [
        {"kind": "request", "text": wasm},
        {"kind": "request", "text": snapshot},
        {"kind": "request", "text": missing},
        {"kind": "cancelled", "text": wasm},
        {"kind": "page", "text": f"failed to load: {wasm}"},
        {"kind": "failed", "text": f"{snapshot} (Not found)"},
        {"kind": "page", "text": f"failed to load: {missing}"},
    ]
    problems, requests = audited(events, site)
    assert requests == [wasm, snapshot, missing]
    assert problems == [f"request failed: {snapshot} (Not found)", f"page: failed to load: {missing}"]
