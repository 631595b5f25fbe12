"""The chapter at 320 CSS px (a 1280 px window at 400 % zoom) with the largest value every control of
its labs allows, then with WCAG 2.2 SC 1.4.12's text spacing: nothing overlaps or is clipped, and the
page never scrolls sideways (SC 1.4.10); drawings, code, the token rows and the numbers table scroll
in their own boxes, as they may.

The text spacing is a stylesheet the test adds (a reader's own, as a browser extension would): the
page's CSP refuses an inline style, so it is served from the site's own origin (``page.route``) and
linked, which the policy allows. Over http only: a stylesheet of the single file's origin is a file,
which cannot be routed; the rules the spacing meets are the same ``kvpage.css`` either way.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Route, expect

from kvpage.labs import decode as decode_lab
from kvpage.labs import next_request
from tests.chapter_labs import Run, compared
from tests.e2e.test_labs import expect_readouts, expect_run, open_chapter, settled

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", ["http"], indirect=True)]

NARROW = {"width": 320, "height": 800}
"""WCAG 2.2 SC 1.4.10: 320 CSS px, what a 1280 px window shows at 400 %."""
SPACING = """
* { line-height: 1.5 !important; letter-spacing: 0.12em !important; word-spacing: 0.16em !important; }
p { margin-bottom: 2em !important; }
"""
"""WCAG 2.2 SC 1.4.12's text spacing: line height 1.5, paragraphs 2 em apart, letters 0.12 em, words 0.16 em."""
SPACING_URL = "**/static/text-spacing.css"

OWN_BOXES = "svg, pre, .token-rows, .chart-table, .table-scroll, .math-display, .python-editor, .visually-hidden"
"""What may scroll (or is drawn) in a box of its own, and what is not shown: not looked inside."""
LAYOUT = """(own) => {
  const shown = (element) => !element.closest(own) && !element.closest("[hidden]") && element.checkVisibility();
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim() || !shown(node.parentElement)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const rect of range.getClientRects()) {
      if (rect.width > 0 && rect.height > 0) boxes.push({ rect, text: node.textContent.trim().slice(0, 30) });
    }
  }
  const width = document.documentElement.clientWidth;
  const problems = [];
  const wide = document.documentElement.scrollWidth;
  if (wide > width) problems.push(`the page is ${wide} px wide`);
  for (const { rect, text } of boxes) {
    if (rect.left < -0.5 || rect.right > width + 0.5) problems.push(`"${text}" leaves the page`);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [a, b] = [boxes[i].rect, boxes[j].rect];
      const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      const over = across > 2 && down > Math.min(a.height, b.height) / 3;
      if (over) problems.push(`"${boxes[i].text}" over "${boxes[j].text}"`);
    }
  }
  for (const element of document.body.querySelectorAll("*")) {
    if (!shown(element)) continue;
    const style = getComputedStyle(element);
    const clips = (overflow) => overflow === "hidden" || overflow === "clip";
    const cut = (clips(style.overflowX) && element.scrollWidth > element.clientWidth + 1)
      || (clips(style.overflowY) && element.scrollHeight > element.clientHeight + 1);
    const words = element.textContent.trim().slice(0, 30);
    if (cut) problems.push(`${element.tagName.toLowerCase()}.${element.className} clips "${words}"`);
  }
  return problems;
}"""
"""What is wrong with the page's layout now: a sideways scroll, text off the page, text over other
text (a third of a line or more: neighbouring lines' boxes may touch), an element that cuts its own
content off. Outside OWN_BOXES; every text of the page is looked at, the labs' and the prose's."""


@pytest.fixture
def spaced(audited: tuple[Page, str]) -> Iterator[tuple[Page, str]]:
    """The audited page, with SPACING served at SPACING_URL from the site's origin."""
    page, url = audited
    page.route(SPACING_URL, lambda route: fulfil(route))
    yield page, url


def fulfil(route: Route) -> None:
    route.fulfill(status=200, content_type="text/css", body=SPACING)


def layout_problems(page: Page) -> list[str]:
    problems: list[str] = page.evaluate(LAYOUT, OWN_BOXES)
    return problems


def test_the_labs_at_their_largest_reflow_at_320_px_and_with_text_spacing(spaced: tuple[Page, str]) -> None:
    """Decode at prompt 128, 64 tokens, recompute, run to its end with the numbers table open; both
    requests at their longest, one token each (the shared prefix quotes all of it). Checked as the
    page is, then with the text spacing added, on one visit."""
    page, url = spaced
    page.set_viewport_size(NARROW)
    decode, lab = open_chapter(page, url)
    page.emulate_media(reduced_motion="reduce")  # Generate ends the run in one answer
    for label in ("Prefix length", "Tokens to generate"):
        decode.get_by_label(label).press("End")
    decode.get_by_role("radio", name="Recompute").check()
    decode.get_by_role("button", name="Generate").click()
    largest = Run(decode_lab.PROMPT.high, decode_lab.TOKENS.high, "recompute", decode_lab.TOKENS.high)
    expect_run(decode, largest)
    decode.get_by_text("Numbers by step", exact=True).click()

    longest = "a" * next_request.MAX_REQUEST_CHARS
    for name in ("Request 1", "Request 2"):
        lab.get_by_label(name, exact=True).fill(longest)
    expect_readouts(lab, next_request.LAB, compared(request1=longest, request2=longest))
    settled(lab)

    assert layout_problems(page) == [], "at 320 px"
    page.add_style_tag(url="static/text-spacing.css")
    expect(page.locator("body")).to_have_css("letter-spacing", "1.92px")  # 0.12 em of the body's 16 px
    assert layout_problems(page) == [], "at 320 px with WCAG 1.4.12's text spacing"
