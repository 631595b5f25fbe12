"""Hostile text typed into the request boxes is shown as text, and the numbers stay the model's.

Every input goes into a box, one after the other. After each: no dialog
opened, nothing but text chips appeared, no console error, the readouts equal
what kvpage computes in CPython for the very string the box holds, and the page
still answers the next input.

Run on the two documents a reader can be handed (``DOCUMENTS``): the chapter page, whose
Content-Security-Policy is the same ``<meta>`` over http and from the unzipped folder (the same
bytes), and the single file, whose policy and scripts are its own. How Python's files arrive,
the one thing file:// changes, is not what hostile text can reach. Each document takes every
input in one box, the other box in the other document (``BOX_IN``): the two boxes are drawn by
the same code, so every input meets each box and each document's policy once, and a document
is typed into half as long as when it took every input in both boxes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage.labs import next_request
from kvpage.labs.next_request import MAX_REQUEST_CHARS, compare
from tests.browser_fixtures import DOCUMENTS
from tests.chapter_labs import NEXT, compared, requests
from tests.e2e.conftest import PYTHON_READY_MS
from tests.e2e.test_labs import expect_readouts

BOX_IN = dict(zip(DOCUMENTS, ("Request 2", "Request 1"), strict=True))
"""The box each document takes every hostile input in: between them, both boxes."""
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize(("site_url", "box_name"), list(BOX_IN.items()), indirect=["site_url"]),
]

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<iframe src=javascript:alert(1)></iframe>",
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    "</textarea><script>alert(1)</script>",
    "</output><b>bold</b>",
    "<!-- a comment --> <![CDATA[x]]>",
    "javascript:alert(1)",
    '<a href="javascript:alert(1)">x</a>',
    "{{7*7}} ${7*7} #{7*7}",
    "&lt;b&gt;escaped&lt;/b&gt; &amp; &#60;",
    '{"lab": "decode", "action": "start"}',
    "\\u003cscript\\u003e",
    "\x00NUL in the middle\x00",
    "control \x01\x02\x07\x08\x1b[31m red \x7f",
    "\u202eRTL override: txet sdrawkcab",
    "\u200f\u200e\u2066isolates\u2069",
    "emoji 👩‍👩‍👧‍👦 🏳️‍🌈 😀",
    "combining e\u0301\u0301\u0301 Z̷̛͇a̸l̵g̶o",
    "漢字とかな、한국어",
    "   ",
    "\n\n\t\n",
    "",
    "You are a precise assistant.\u00a0Answer briefly User: 2+2?",
    "You are a precise assistant. Answer briefly User: 2+2?\r\nsecond line",
    "a" * MAX_REQUEST_CHARS,
    "word " * 400,
    "🙂" * 500,
    "<" * 1000,
    "%00%3Cscript%3E",
    "__proto__ constructor prototype",
]

LONE_SURROGATES = ["\ud800", "high \ud83d alone", "low \ude00 alone"]

SHOWS = """([expected, timeout]) => new Promise((resolve, reject) => {
    const want = JSON.stringify(JSON.parse(expected));  // sent as ASCII JSON: lone surrogates survive
    const lab = document.querySelector("section[data-lab=next-request]");
    const chips = (n) => [...lab.querySelectorAll(`[data-part=tokens${n}] .chip-text`)].map((c) => c.textContent);
    const started = performance.now();
    const poll = () => JSON.stringify([chips(1), chips(2)]) === want ? resolve(true)
        : performance.now() - started > timeout ? reject(new Error("the chips never showed the model's tokens"))
        : requestAnimationFrame(poll);
    poll();
})"""

DRAWN_BY_REQUEST = ":is([data-part=layers], [data-part=square]) svg"
"""The drawings whose number of svgs follows request 2 (none when it is empty): counted against the model's."""
COUNT_ACTIVE = f"""() => document.querySelectorAll(
    'script:not([src]):not([type]), img, iframe, object, embed, svg:not({DRAWN_BY_REQUEST}), a[href^="javascript"], b, '
    + '[onerror], [onload]'
).length"""


def svgs(node: Any) -> int:
    """How many svg elements a model's tree (or list of trees) holds."""
    if not isinstance(node, list) or not node:
        return 0
    if isinstance(node[0], str):
        return (node[0] == "svg") + sum(svgs(child) for child in node[2:])
    return sum(svgs(child) for child in node)


def set_value(box: Locator, text: str) -> None:
    """Put ``text`` in the box as typing would, lone surrogates included (they cannot cross CDP as UTF-8)."""
    box.evaluate(
        "(box, text) => { box.value = JSON.parse(text); box.dispatchEvent(new Event('input', {bubbles: true})); }",
        json.dumps(text),
    )


def model_of(request1: str, request2: str) -> tuple[dict[str, Any], list[list[str]]]:
    """The readouts and chip texts kvpage computes, in CPython, for what the boxes hold."""
    view: dict[str, Any] = compare({"request1": request1, "request2": request2})
    text = view["text"]
    chips = [[chip[2][2] for chip in view["parts"][f"tokens{n}"]] for n in (1, 2)]  # each chip's drawn text
    drawn = svgs([view["parts"]["layers"], view["parts"]["square"]])
    return {"shared": text["shared"], "cold": text["cold"], "cached": text["cached"], "svgs": drawn}, chips


@pytest.fixture
def lab(audited: tuple[Page, str]) -> Locator:
    page, url = audited
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(url)
    lab = page.get_by_role("region", name=NEXT)
    expect(lab.get_by_label("Request 2", exact=True)).to_be_enabled(timeout=PYTHON_READY_MS)
    yield lab
    assert dialogs == []


def test_hostile_inputs_are_text_in_the_box_and_an_overlong_one_is_capped(lab: Locator, box_name: str) -> None:
    """Two flows on one visit, each ending with the lab as it opened (the box given back its
    chapter text, the readouts the chapter's): every hostile input in ``box_name``, then an
    overlong request capped with a message."""
    hostile_inputs_are_text(lab, box_name)
    overlong_input_is_capped_with_a_message(lab)


PUT = """(box, text) => {
  box.value = JSON.parse(text);
  box.dispatchEvent(new Event("input", {bubbles: true}));
  return [...box.closest("section").querySelectorAll("textarea")].map((each) => JSON.stringify(each.value));
}"""
""":func:`set_value`, then what both boxes hold (each as JSON: lone surrogates survive), in one call."""
SHOWN = f"""async ([expected, timeout]) => {{
  await ({SHOWS})([expected, timeout]);
  const lab = document.querySelector("section[data-lab=next-request]");
  return {{
    active: ({COUNT_ACTIVE})(),
    svgs: lab.querySelectorAll("{DRAWN_BY_REQUEST}").length,
    plain: [...lab.querySelectorAll("[data-part^=tokens] .chip-text")].every(
      (item) => item.childNodes.length <= 1 && !item.children.length),
  }};
}}"""
"""Once the chips show ``expected`` (:data:`SHOWS`): how many active elements the page holds
(:data:`COUNT_ACTIVE`), how many svgs the drawings that follow request 2 hold, and whether every
chip's text is one text node. One call where there were four, for each input."""


def hostile_inputs_are_text(lab: Locator, box_name: str) -> None:
    page = lab.page
    box = lab.get_by_label(box_name, exact=True)
    active = page.evaluate(COUNT_ACTIVE)
    labelled = [lab.get_by_label(label) for label in ("Shared prefix", "Cold prefill", "With prefix cache")]
    shown = labelled[0].or_(labelled[1]).or_(labelled[2])
    for text in [*HOSTILE, *LONE_SURROGATES]:
        request1, request2 = (json.loads(value) for value in box.evaluate(PUT, json.dumps(text)))
        want, chips = model_of(request1, request2)
        # The lab updates after a short debounce; it is done when its chips show the tokens
        # kvpage computes for these very boxes. Chips rendered as markup never would: this times out.
        found = page.evaluate(SHOWN, [json.dumps(chips), 5000])
        expect(shown).to_have_text([want["shared"], want["cold"], want["cached"]])  # in the page's order
        assert found["svgs"] == want["svgs"], (box_name, repr(text))
        assert found["active"] == active, f"elements injected by {text!r} in {box_name}"
        assert found["plain"], (box_name, repr(text))
    request1, request2 = requests()
    set_value(box, request1 if box_name == "Request 1" else request2)
    expect_readouts(lab, next_request.LAB, compared())


def overlong_input_is_capped_with_a_message(lab: Locator) -> None:
    box = lab.get_by_label("Request 2", exact=True)
    set_value(box, "x" * 100_000)
    expect(lab.get_by_role("alert")).to_have_text(
        f"Request 2 is 100,000 characters; the lab takes at most {MAX_REQUEST_CHARS:,}"
    )
    expect(lab.get_by_label("Cold prefill")).to_have_text("—")
    expect(lab.get_by_text(f"up to {MAX_REQUEST_CHARS:,} characters")).to_be_visible()
    set_value(box, requests()[1])
    expect_readouts(lab, next_request.LAB, compared())
    expect(lab.get_by_role("alert")).to_be_hidden()
