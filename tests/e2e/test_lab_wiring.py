"""The page's script against a stand-in for Python's worker: what it sends, what it draws, what it drops.

The real model cannot be made to fail, stall or answer out of turn on purpose inside the built page
(its code is in the memory snapshot), so these tests run the page's own script
(``static/kvpage.js``, its modules bundled as the build bundles them) on a page of their own whose
``Worker`` is a stand-in: it answers "ready" at once, records each call and answers it only when
the test says so, in the order the test chooses. Everything on the page's side is real: the labs
wired from the schema, the queue of calls, the pool of workers and its time limit, the loader
handing over the packed bytes. The real worker is tested end to end in test_worker.py and
tests/browsers/; the real bridge's side of the contract in tests/kvpage/test_bridge.py.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from kvpage.lab import Button, Checkbox, Choice, Lab, Output, Slider, Text, Whole
from sitegen.site.page_script import page_script
from tests.conftest import ROOT

pytestmark = pytest.mark.e2e

LAB = Lab(
    "fake",
    {"compute": lambda args: args, "grow": lambda args: args, "at": lambda args: args},
    "compute",
    linked_state=(Whole("k", "K", 0, 99, 1),),
    resume="at",
    controls=(
        Slider("n", "Count", 1, 9, 3),
        Checkbox("c", "Cached", True),
        Choice("m", "Mode", (("a", "A"), ("b", "B")), "a"),
        Text("t", "Words", 50, "hi"),
    ),
    outputs=(Output("total", "Total"), Output("said", kind="summary"), Output("shape", kind="picture")),
    buttons=(Button("more", "More", "grow"),),
)
TIMEOUT_S = 1
"""The stand-in page's call_timeout: the least a book may set."""

PAGE = """
<base href="http://localhost/">
<section class="lab" data-lab="fake" data-state='{"k": 1}' aria-labelledby="h">
<h2 id="h">Lab · fake</h2>
<p data-role="runtime" role="status">not started</p>
<p data-role="error" role="alert" hidden></p>
<p data-role="note" hidden></p>
<button type="button" data-role="copy">Copy link</button> <span data-role="copied" role="status"></span>
<div hidden><label for="link">Link</label><input id="link" data-role="link" readonly></div>
<p data-role="address" hidden></p>
<label for="n">Count</label><input type="range" id="n" data-control="n" min="1" max="9" value="3" disabled>
<span data-shows="n">3</span>
<input type="checkbox" id="c" data-control="c" checked disabled><label for="c">Cached</label>
<fieldset><legend>Mode</legend>
<label><input type="radio" name="m" data-control="m" value="a" checked disabled> A</label>
<label><input type="radio" name="m" data-control="m" value="b" disabled> B</label></fieldset>
<label for="t">Words</label><textarea id="t" data-control="t" disabled>hi</textarea>
<button type="button" data-action="more" disabled>More</button>
<label for="o">Total</label> <output id="o" data-field="total" aria-live="off">9</output>
<p data-field="said" role="status" aria-atomic="true">said at start</p>
<div data-part="shape"><svg viewBox="0 0 1 1" aria-hidden="true"><rect width="1" height="1"></rect></svg></div>
</section>
"""

FAKE_WORKER = """
window.sent = [];
window.held = [];
window.workers = [];
// answer(request) returns the reply for a call, or undefined to hold it until release(index).
window.answer = (request) => ({ok: true, result: {state: {k: request.args.state.k + 1},
  text: {total: String(request.args.n * 10)}, parts: {shape: [["p", {}, `n=${request.args.n}`]]}}});
window.Worker = class extends EventTarget {
  constructor(url) { super(); this.url = url; this.terminated = false; workers.push(this); }
  emit(data) { if (!this.terminated) this.dispatchEvent(new MessageEvent("message", {data})); }
  postMessage(message) {
    if (message.type === "start") setTimeout(() => this.emit({type: "ready", version: "fake"}));
    if (message.type === "asset") {
      // The lent bytes go back once all three are in, as a worker does.
      (this.lent ??= {})[message.name] = message.bytes;
      const lent = this.lent;
      if (Object.keys(lent).length === 3) setTimeout(() => this.emit({type: "returned", assets: lent}));
    }
    if (message.type !== "call") return;
    const request = JSON.parse(message.request);
    sent.push(request);
    const reply = answer(request);
    // A text is sent as it is (a reply that is not JSON); anything else as JSON.
    const send = (value) => this.emit({type: "reply", id: message.id,
      reply: typeof value === "string" ? value : JSON.stringify(value)});
    if (reply === undefined) held.push({request, send});
    else setTimeout(() => send(reply));
  }
  terminate() { this.terminated = true; }
};
window.release = (index) => { const [call] = held.splice(index, 1); call.send(window.answer(call.request, true)); };
"""


def packed_script(name: str, data: bytes) -> str:
    """The asset script the build writes for a binary (sitegen.runtime.bundle.asset_script)."""
    payload = base64.b64encode(gzip.compress(data, mtime=0)).decode("ascii")
    return f'(globalThis.kvpageAssets??=new Map()).set("{name}",{{type:"application/gzip",base64:"{payload}"}});'


BINARIES = {"code": b"// Pyodide stands aside here", "wasm": b"w", "snapshot": b"s", "wheel": b"k", "stdlib": b"z"}


def config() -> dict[str, Any]:
    python = {
        "pyodide": "fake",
        "index_url": "pyodide/",
        "lock": {},
        "scripts": [],
        **{name: name for name in BINARIES},
        "snapshot_size": 1,
        "stdlib_path": "/lib/stdlib.zip",
        "wheel_path": "/lib/kvpage/x.whl",
        "env": {},
        "packed": {name: f"{name}.bin" for name in BINARIES},
        "encoding": {name: "gzip" for name in BINARIES},
        "decoder_size": 0,
        "unpacked": {name: len(data) for name, data in BINARIES.items()},
        "sizes": {},
    }
    return {"labs": {"fake": LAB.schema()}, "call_timeout": TIMEOUT_S, "inline": True, "python": python}


def wire(page: Page, fragment: str = "", answer: str = "") -> Page:
    """The stand-in page opened at ``fragment``, its worker answering by ``answer`` if given, until live."""
    page.set_content(PAGE)
    if fragment:
        run(page, f"history.replaceState(null, '', 'about:blank' + {json.dumps(fragment)})")
    page.add_script_tag(content=FAKE_WORKER)
    if answer:
        run(page, answer)
    config_tag = f"s = document.createElement('script'); s.type = 'application/json'; s.id = 'kvpage-config'; \
s.textContent = {json.dumps(json.dumps(config()))}; document.head.append(s);"
    page.add_script_tag(content=config_tag)
    for name, data in BINARIES.items():  # before the script: this page is parsed already, nothing more will come
        page.add_script_tag(content=packed_script(name, data))
    page.add_script_tag(content=page_script(ROOT / "site_template" / "static" / "kvpage").decode("utf-8"))
    expect(page.get_by_label("Count")).to_be_enabled()
    return page


@pytest.fixture
def wired(page: Page) -> Page:
    return wire(page)


def run(page: Page, statements: str) -> None:
    """Run ``statements`` in the page (a bare expression would be called if it were a function)."""
    page.evaluate(f"() => {{ {statements}; }}")


def sent(page: Page) -> list[dict[str, Any]]:
    return json.loads(page.evaluate("JSON.stringify(sent)"))  # type: ignore[no-any-return]


def test_nothing_is_sent_at_start_and_every_control_goes_as_its_kind_with_the_state(wired: Page) -> None:
    expect(wired.get_by_role("status").first).to_have_text(
        "Live: these numbers are computed by kvpage's Python model, running in your browser."
    )
    assert sent(wired) == []  # the build's view is on the page: nothing to recompute
    expect(wired.get_by_label("Total")).to_have_text("9")
    wired.get_by_label("Cached").uncheck()
    expect(wired.get_by_label("Total")).to_have_text("30")
    assert sent(wired) == [
        {"lab": "fake", "action": "compute", "args": {"n": 3, "c": False, "m": "a", "t": "hi", "state": {"k": 1}}}
    ]
    wired.get_by_role("radio", name="B").check()
    wired.wait_for_function("kvpageLabs.lab(document.querySelector('section')).state().k === 3")
    wired.get_by_label("Count").fill("5")
    expect(wired.get_by_label("Total")).to_have_text("50")
    assert sent(wired)[-1]["args"] == {"n": 5, "c": False, "m": "b", "t": "hi", "state": {"k": 3}}
    wired.get_by_role("button", name="More").click()
    expect(wired.get_by_text("n=5", exact=True)).to_be_visible()
    assert sent(wired)[-1]["action"] == "grow"


def test_a_tree_is_built_as_dom_and_text_stays_text(wired: Page) -> None:
    run(
        wired,
        """window.answer = () => ({ok: true, result: {text: {total: "<b>1</b>"},
           parts: {shape: [["svg", {"viewBox": "0 0 2 2"}, ["rect", {"data-kind": "<i>", "width": "2"}]]]}}})""",
    )
    wired.get_by_label("Count").fill("4")
    expect(wired.get_by_label("Total")).to_have_text("<b>1</b>")
    rect = wired.locator('[data-part="shape"] svg rect')
    expect(rect).to_have_attribute("data-kind", "<i>")
    assert rect.evaluate("r => r.namespaceURI") == "http://www.w3.org/2000/svg"
    assert wired.locator("b, i").count() == 0


@pytest.mark.parametrize(
    "part",
    [
        '[["script", {}, "alert(1)"]]',
        '[["svg", {"onload": "alert(1)"}]]',
        '[["span", {"style": "color: red"}]]',
        '[["rect", {}]]',
        '[["svg", {}, ["div", {}]]]',
        '[["span", {"x": 1}]]',
        '"<b>markup</b>"',
    ],
)
def test_a_part_that_is_not_a_tree_is_refused_and_shown_as_an_error(wired: Page, part: str) -> None:
    active = "script, [onload], [style], b"
    before = wired.locator(active).count()
    wired.evaluate(f"window.answer = () => ({{ok: true, result: {{text: {{total: '7'}}, parts: {{shape: {part}}}}}}})")
    with wired.expect_console_message(lambda message: message.type == "warning") as logged:
        wired.get_by_label("Count").fill("4")
    expect(wired.get_by_role("alert")).to_have_text(DRAWING_FAILED)  # what happened; why, in the console
    assert logged.value.text.startswith("kvpage lab fake: not a drawing the page can show: ")
    expect(wired.get_by_label("Total")).to_have_text("—")
    assert wired.locator(active).count() == before


def test_an_update_answer_is_dropped_when_the_reader_has_moved_on(wired: Page) -> None:
    """Hold the answer for 4, move the slider to 5 and 6, release: 4 is never drawn, then 6 is."""
    run(
        wired,
        "window.answer = (request, released) => released || request.args.n !== 4 ? window.real(request) : undefined",
    )
    run(
        wired,
        "window.real = (request) => "
        "({ok: true, result: {text: {total: String(request.args.n * 10)}, parts: {shape: []}}})",
    )
    run(
        wired,
        """window.seen = []; new MutationObserver(() => seen.push(document.querySelector("#o").textContent))
           .observe(document.querySelector("#o"), {childList: true, characterData: true, subtree: true})""",
    )
    slider = wired.get_by_label("Count")
    slider.fill("4")
    wired.wait_for_function("held.length === 1")
    slider.fill("5")
    slider.fill("6")
    assert [call["args"]["n"] for call in sent(wired)] == [4]  # one call out per lab; the update waits
    wired.evaluate("release(0)")
    expect(wired.get_by_label("Total")).to_have_text("60")
    assert [call["args"]["n"] for call in sent(wired)] == [4, 6]  # one waiting update stands for 5 and 6
    assert wired.evaluate("seen") == ["60"]  # 40 arrived first, and was dropped


def test_the_summary_is_said_once_the_answer_is_settled_and_never_again_unchanged(wired: Page) -> None:
    """Hold the update for 4, press More behind it, release: the update's view is drawn but not said
    (More's call still waits), More's is; More again, with the same answer: nothing rewritten."""
    run(
        wired,
        "window.answer = (request, released) => released || request.action !== 'compute' ? real(request) : undefined",
    )
    run(
        wired,
        "window.real = (request) => ({ok: true, result: {state: {k: 1}, parts: {shape: []}, "
        "text: {total: String(request.args.n), said: `said ${request.action} ${request.args.n}`}}})",
    )
    run(
        wired,
        """window.said = []; const summary = document.querySelector("[data-field=said]");
           new MutationObserver(() => said.push(summary.textContent))
           .observe(summary, {childList: true, characterData: true, subtree: true})""",
    )
    wired.get_by_label("Count").fill("4")
    wired.wait_for_function("held.length === 1")
    wired.get_by_role("button", name="More").click()
    wired.evaluate("release(0)")
    summary = wired.get_by_role("status").filter(has_text="said")
    expect(summary).to_have_text("said grow 4")
    assert wired.evaluate("said") == ["said grow 4"]
    wired.get_by_role("button", name="More").click()
    wired.wait_for_function("sent.length === 3 && !kvpageLabs.lab(document.querySelector('section')).busy()")
    assert wired.evaluate("said") == ["said grow 4"]


def test_the_answer_to_the_last_key_typed_is_in_the_url_the_moment_it_is_drawn(wired: Page) -> None:
    """Typed key by key, each answer drawn as it comes, the last one the whole text: each is in the
    URL when it is drawn (not 200 ms later), so a reload or a bookmark right after it keeps it (issue
    39, point 7: WebKit's link flow reloaded in that moment and got a partial request)."""
    run(
        wired,
        "window.answer = (request) => "
        "({ok: true, result: {state: request.args.state, text: {total: request.args.t}, parts: {shape: []}}})",
    )
    run(
        wired,
        """window.seen = []; const total = document.querySelector("#o");
           new MutationObserver(() => seen.push([total.textContent, location.hash]))
             .observe(total, {childList: true, characterData: true, subtree: true})""",
    )
    box = wired.get_by_label("Words")
    box.select_text()
    box.press_sequentially("hello")
    expect(wired.get_by_label("Total")).to_have_text("hello")
    seen = wired.evaluate("seen")
    assert seen[-1][0] == "hello"
    # Each view drawn was the answer to the box as it was then: each is in the URL as it is drawn.
    assert [shown for shown, url in seen if f",t={shown}," not in url] == [], seen


def test_a_click_is_never_lost_and_moves_on_from_the_last_answer(wired: Page) -> None:
    run(
        wired,
        "window.real = window.answer; window.answer = (request, released) => released ? real(request) : undefined",
    )
    more = wired.get_by_role("button", name="More")
    more.click()
    more.click()
    wired.wait_for_function("held.length === 1")
    run(wired, "window.answer = (request) => real(request); release(0)")
    expect(wired.get_by_label("Total")).to_have_text("30")
    assert [call["args"]["state"] for call in sent(wired)] == [{"k": 1}, {"k": 2}]  # the second from the first's answer


DRAWING_FAILED = "the model's drawing could not be shown; the lab keeps your values."
"""What a reader is told of a part the page refuses to draw: no word of trees or tags, which are the author's
(issue 46); the page's reason goes to the console."""

FAILURES = (
    (
        """() => ({ok: false, error: "the model failed: ZeroDivisionError: boom", traceback: "Traceback"})""",
        "the model failed: ZeroDivisionError: boom; the lab keeps your values.",
    ),
    ("""() => "{not JSON" """, "the lab could not read Python's answer"),
    (
        """() => ({ok: true, result: {text: {total: "1"}, parts: {shape: [["script", {}, "alert(1)"]]}}})""",
        DRAWING_FAILED,
    ),
    ("() => undefined", f"The model took longer than {TIMEOUT_S} s and was stopped; the lab keeps your values."),
)
"""Every way a call can fail on the page, as the stand-in worker answers it, and what the lab says:
the model's exception (a picture the bridge refuses as too big comes back the same way, a value
with ``ok: false``), a reply that is not JSON, a picture the page refuses to draw, no answer within
the book's call_timeout."""


def test_every_failure_is_shown_in_the_lab_with_the_readers_values_kept(wired: Page) -> None:
    """At a value the build's sweep never tried, a failure leaves the controls, the lab's state and
    the URL where the reader had them, and the next call goes on from there (a fresh worker after a
    time-out)."""
    run(wired, "window.real = window.answer")
    count = wired.get_by_label("Count")
    count.fill("5")
    expect(wired.get_by_label("Total")).to_have_text("50")
    k = 2  # the stand-in model adds one to the state at every answer
    for n, (answer, message) in enumerate(FAILURES, start=6):
        run(wired, f"window.answer = {answer}")
        count.fill(str(n))
        expect(wired.get_by_role("alert")).to_contain_text(message)
        expect(wired.get_by_label("Total")).to_have_text("—")
        expect(count).to_have_value(str(n))
        assert wired.evaluate("kvpageLabs.lab(document.querySelector('section')).state()") == {"k": k}
        wired.wait_for_function(f"location.hash === '#fake:n={n},c=on,m=a,t=hi,k={k}'")
        run(wired, "window.answer = window.real")
        wired.get_by_role("button", name="More").click()
        expect(wired.get_by_label("Total")).to_have_text(str(n * 10))
        expect(wired.get_by_role("alert")).to_be_hidden()
        assert sent(wired)[-1]["args"] == {"n": n, "c": True, "m": "a", "t": "hi", "state": {"k": k}}
        k += 1
    workers = wired.evaluate("workers.map(w => w.terminated)")
    assert workers[0] is True and workers[1:] and not any(workers[1:])  # a fresh worker answered


def test_a_model_failure_is_shown_in_the_lab_and_its_traceback_goes_to_the_console(wired: Page) -> None:
    run(
        wired,
        """window.answer = () => ({ok: false, error: "the model failed: ZeroDivisionError: boom",
                                 traceback: "Traceback (most recent call last):\\nZeroDivisionError: boom"})""",
    )
    with wired.expect_console_message(lambda message: message.type == "error") as logged:
        wired.get_by_label("Count").fill("4")
    expect(wired.get_by_role("alert")).to_have_text(
        "the model failed: ZeroDivisionError: boom; the lab keeps your values."
    )
    expect(wired.get_by_label("Total")).to_have_text("—")
    assert logged.value.text.startswith("kvpage lab fake: the model failed: ZeroDivisionError: boom\nTraceback")


def test_a_refusal_is_shown_without_a_console_error(wired: Page) -> None:
    errors: list[ConsoleMessage] = []
    wired.on("console", lambda message: errors.append(message) if message.type == "error" else None)
    run(wired, """window.answer = () => ({ok: false, error: "Count must be between 1 and 9, not 12"})""")
    wired.get_by_label("Words").fill("<img src=x onerror=alert(1)>")
    expect(wired.get_by_role("alert")).to_have_text("Count must be between 1 and 9, not 12")
    assert errors == []
    assert wired.locator("img").count() == 0


def test_the_lab_is_plain_json_and_back(wired: Page) -> None:
    """What a link could carry: every control and the state, set back through the update action."""
    saved = wired.evaluate("kvpageLabs.lab(document.querySelector('section')).saved()")
    assert saved == {"controls": {"n": 3, "c": True, "m": "a", "t": "hi"}, "state": {"k": 1}}
    wired.evaluate(
        """kvpageLabs.lab(document.querySelector('section'))
           .restore({controls: {n: 8, c: false, m: "b", t: "yo"}, state: {k: 41}})"""
    )
    expect(wired.get_by_label("Total")).to_have_text("80")
    assert sent(wired)[-1]["args"] == {"n": 8, "c": False, "m": "b", "t": "yo", "state": {"k": 41}}
    expect(wired.get_by_role("radio", name="B")).to_be_checked()


def test_a_link_is_resumed_once_python_is_live_with_its_state_and_a_note_for_what_did_not_fit(page: Page) -> None:
    wire(page, "#fake:n=5,k=7,zz=1,m=c")
    expect(page.get_by_label("Count")).to_have_value("5")
    expect(page.get_by_label("Total")).to_have_text("50")
    assert sent(page) == [
        {"lab": "fake", "action": "at", "args": {"n": 5, "c": True, "m": "a", "t": "hi", "state": {"k": 7}}}
    ]
    expect(page.get_by_text("From this page's link, ignored:")).to_have_text(
        "From this page's link, ignored: zz (this lab has no such setting); m=c (Mode is one of a, b)."
    )
    # The URL follows what the lab shows: its controls and the state the model answered with.
    page.wait_for_function("location.hash === '#fake:n=5,c=on,m=a,t=hi,k=8'")


def test_a_link_state_the_model_refuses_is_noted_and_the_controls_view_shown(page: Page) -> None:
    refuse = """window.real = window.answer;
      window.answer = (request) => request.action === "at" ? {ok: false, error: "K is too big for 6"} : real(request)"""
    wire(page, "#fake:n=6,k=99", refuse)
    expect(page.get_by_label("Total")).to_have_text("60")
    expect(page.get_by_text("From this page's link, ignored:")).to_have_text(
        "From this page's link, ignored: k=99 (K is too big for 6)."
    )
    assert [call["action"] for call in sent(page)] == ["at", "compute"]
    expect(page.get_by_role("alert")).to_be_hidden()
