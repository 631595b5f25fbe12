"""The unzipped book, opened by path with networking disabled, and the page's CSP."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from kvpage.labs import next_request
from tests.browser_fixtures import Server
from tests.chapter_labs import DECODE, NEXT, chapter_run, compared, requests
from tests.conftest import book_chapter, index_link_name
from tests.e2e.conftest import PYTHON_READY_MS
from tests.e2e.test_labs import expect_readouts, expect_run

pytestmark = pytest.mark.e2e


def test_unzipped_index_opens_the_book_offline(browser: Browser, unzipped_site: Path) -> None:
    # Reduced motion: Generate ends its run in one answer, the state its animation ends in (issue 47).
    context = browser.new_context(offline=True, reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.on("requestfailed", lambda request: errors.append(f"failed: {request.url}"))
    page.goto((unzipped_site / "index.html").as_uri())
    page.get_by_role("link", name=index_link_name(book_chapter("cache")), exact=True).click()

    decode = page.get_by_role("region", name=DECODE)
    expect(decode.get_by_role("button", name="Generate")).to_be_enabled(timeout=PYTHON_READY_MS)
    decode.get_by_role("button", name="Generate").click()
    expect_run(decode, chapter_run().after())

    lab = page.get_by_role("region", name=NEXT)
    request2 = requests()[1].replace("3+3?", "4+4?")
    lab.get_by_label("Request 2", exact=True).fill(request2)
    expect_readouts(lab, next_request.LAB, compared(request2=request2))
    assert errors == []
    context.close()


def test_csp_refuses_code_the_site_did_not_ship(browser: Browser, http_site: Server) -> None:
    """A positive control for the audit: the policy is really enforced."""
    page = browser.new_page()
    page.goto(http_site.base + "cache.html")
    violated = page.evaluate(
        """() => new Promise((resolve) => {
            document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective));
            const script = document.createElement("script");
            script.textContent = "window.injected = true";
            document.body.append(script);
        })"""
    )
    assert violated.startswith("script-src")
    assert page.evaluate("window.injected === undefined")
    # A worker only from a Blob the page made (Python's), never from anywhere else.
    refused = page.evaluate(
        """(url) => new Promise((resolve) => {
            document.addEventListener("securitypolicyviolation", (e) => resolve(e.violatedDirective), {once: true});
            try {
                new Worker(url);
            } catch (error) {
                resolve(`threw ${error.name}`);
            }
        })""",
        http_site.base + "static/kvpage.js",
    )
    assert refused.startswith("worker-src"), refused
    page.close()
