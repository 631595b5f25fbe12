"""The chapter's "Try this" in Firefox (Debian's firefox-esr), driven over WebDriver BiDi.

``firefox_driver.mjs`` (Node, puppeteer-core) holds one browser for the whole session and performs
the steps of ``flows.py`` in a fresh page per test; BiDi reports console messages, page errors
and every request, and ``capture.js`` (a preload script) CSP violations.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_fixtures import Book, Where
from tests.browsers import flows
from tests.browsers.conftest import Outcome, missed_by
from tests.browsers.flows import FLOWS, WORKER_FLOWS, Step, kitchen_sink_flow, open_page, search_flow
from tests.conftest import TWO_CHAPTERS
from tests.search_targets import search_targets

pytestmark = pytest.mark.browsers

FIREFOX = Path("/usr/bin/firefox-esr")
DRIVER = Path(__file__).with_name("firefox_driver.mjs")
ANSWER_S = 300
"""Longest wait for one flow's answer: the driver's own waits (60 s for Python, 15 s a readout) end sooner."""


class Firefox:
    """The Node driver process: one JSON command per line in, one JSON answer per line out."""

    def __init__(self) -> None:
        env = {**os.environ, "FIREFOX": str(FIREFOX)}
        self.process = subprocess.Popen(
            ["node", str(DRIVER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        self.selector = selectors.DefaultSelector()
        assert self.process.stdout is not None
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    def send(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        if not self.selector.select(timeout=ANSWER_S):
            raise TimeoutError(f"the Firefox driver did not answer within {ANSWER_S} s")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Firefox driver exited ({self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, origin: str, steps: list[Step]) -> Outcome:
        answer = self.send({"cmd": "run", "origin": origin, "steps": steps})
        return Outcome(answer["error"], answer["problems"], answer["requests"])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="session")
def firefox() -> Iterator[Firefox]:
    if not FIREFOX.exists() or not shutil.which("node"):
        pytest.fail("Firefox tests need /usr/bin/firefox-esr and node: run make test-deps")
    browser = Firefox()
    yield browser
    browser.close()


@pytest.mark.parametrize(("where", "flow"), flows.cases(flows.FLOW_WAYS), indirect=["where"])
def test_try_this(firefox: Firefox, where: Where, flow: str) -> None:
    outcome = firefox.run(where.origin, FLOWS[flow](where.chapter))
    assert not outcome.verdict(), outcome.verdict()


@pytest.mark.parametrize(("runaway_where", "flow"), flows.cases(flows.WORKER_CASES), indirect=["runaway_where"])
def test_pythons_worker(firefox: Firefox, runaway_where: Where, flow: str) -> None:
    """A runaway call stopped while the page and another lab answer; a stale answer never drawn."""
    outcome = firefox.run(runaway_where.origin, WORKER_FLOWS[flow](runaway_where.chapter))
    assert not outcome.verdict(), outcome.verdict()


@pytest.mark.parametrize("where", ["file"], indirect=True)
def test_a_lab_link_goes_live_with_the_pages_timers_stopped(firefox: Firefox, where: Where) -> None:
    """Python is asked for once a frame after the link's scroll is painted, not after a timer: Firefox
    reports no first paint for a page scrolled before it (``flows.stopped_link_flow``). From the
    unzipped zip, as the link flow: the loader waits for the paint over http alike, not in the single file."""
    outcome = firefox.run(where.origin, flows.stopped_link_flow(where.chapter))
    assert not outcome.verdict(), outcome.verdict()


def test_kitchen_sink_renders(firefox: Firefox, kitchen_sink_where: Where) -> None:
    """Every construct of the Markdown laid out (tests/browsers/renders.js), the lab live, the audit clean."""
    outcome = firefox.run(kitchen_sink_where.origin, kitchen_sink_flow(kitchen_sink_where.chapter))
    assert not outcome.verdict(), outcome.verdict()


def test_search_lands_on_each_chapters_heading_and_keeps_queries_as_text(firefox: Firefox, book: Book) -> None:
    steps = search_flow(book.first, search_targets(TWO_CHAPTERS), book.pages, book.single)
    outcome = firefox.run(book.origin, steps)
    assert not outcome.verdict(), outcome.verdict()


def test_audit_fails_a_page_that_breaks_the_rules(firefox: Firefox, control_page: Where) -> None:
    outcome = firefox.run(control_page.origin, [open_page(control_page.chapter)])
    assert outcome.error is None
    assert missed_by(outcome) == [], "\n".join(outcome.problems)
    assert any(p.startswith("firefox console error: control: console.error") for p in outcome.problems), (
        "BiDi's own console events saw nothing"
    )
    # The control's fraction has one child, for good: Firefox's complaint, checked against the final
    # document (firefox_driver.mjs, WRONG_CHILDREN), is still a problem.
    assert "firefox page error: Invalid markup: 1 <mfrac> with the wrong number of children" in outcome.problems
