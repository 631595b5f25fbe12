"""The chapter's "Try this", and Python's worker on the runaway book, as browser-neutral steps.

Firefox (``firefox_driver.mjs``) and WebKit (``test_webkit.py``) perform the same steps, and so
does Chromium the Try this (``tests/e2e/steps.py``), so the suites cannot drift apart. Every step
names what a reader sees: a region by its heading, a control by its role and accessible name, a
readout by its label, a lab's message by its role (alert), a line with neither by its text.
Expected numbers come from the model run in CPython on the chapter's own lab parameters, or from
the seed where it states them; the worker's flows (``WORKER_FLOWS``) run on the test book
``tests/books/runaway/``, and their time limit is that book's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kvpage.lab import Lab
from kvpage.labs import decode, next_request, runaway, square
from sitegen.book.source import load_book
from tests.chapter_labs import (
    DECODE,
    NEXT,
    Run,
    chapter_run,
    compared,
    lab_params,
    one_letter_changed,
    requests,
    seed_has,
    seed_readout,
)
from tests.reader_model import BOOK_COSTS, CAUSAL, COSTS, edited_views
from tests.reader_model import SQUARE as SQUARE_LINE
from tests.search_targets import HOSTILE_QUERIES, LONGEST_QUERY, Target, quoted

ROOT = Path(__file__).resolve().parents[2]
RUNAWAY_BOOK = ROOT / "tests" / "books" / "runaway" / "content"
RUNAWAY_CHAPTER = RUNAWAY_BOOK / "01-runaway.md"

Step = dict[str, Any]


def open_page(url: str) -> Step:
    return {"op": "open", "url": url}


def click(region: str, role: str, name: str) -> Step:
    return {"op": "click", "region": region, "role": role, "name": name}


def paste(region: str, label: str, text: str) -> Step:
    """Put ``text`` in the text box at once, as a paste does: one input event. For the model's editor,
    where a reader pastes code; a lab's text box is typed key by key (fill), as a reader types."""
    return {"op": "paste", "region": region, "role": "textbox", "label": label, "text": text}


def fill(region: str, label: str, text: str) -> Step:
    """Replace what the text box labelled ``label`` holds by typing ``text``."""
    return {"op": "fill", "region": region, "role": "textbox", "label": label, "text": text}


def find(region: str, role: str, label: str) -> Step:
    """Look the element up now (Firefox keeps it, so a later step needs no slow accessibility query)."""
    return {"op": "find", "region": region, "role": role, "label": label}


def alert(region: str, text: str) -> Step:
    """The lab's message (role alert) reads ``text``."""
    return {"op": "expect_alert", "region": region, "text": text}


def holds(region: str, js: str, until: bool = True) -> Step:
    """``js``, a function of the region's element, returns true: at once, or ``until`` it does."""
    return {"op": "js", "region": region, "js": js, "until": until}


def shows(region: str, label: str, text: str) -> Step:
    """The readout (an ``<output>``, role status) labelled ``label`` reads ``text``."""
    return {"op": "expect_text", "region": region, "role": "status", "label": label, "text": text}


def named(text: str, lab: str) -> str:
    """The accessible name of a lab's button that each lab has one of (Copy link, Edit, Run, Back to
    the book's model): its text, then the lab's heading (aria-labelledby), so a page's two are told apart."""
    return f"{text} {lab}"


def disabled(region: str, role: str, name: str, is_disabled: bool = True) -> Step:
    return {"op": "expect_disabled", "region": region, "role": role, "name": name, "disabled": is_disabled}


SAME_LINE = """(group) => {
  const [legend, first] = [group.querySelector("legend"), group.querySelector("label")];
  const [a, b] = [legend.getBoundingClientRect(), first.getBoundingClientRect()];
  return Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2) < Math.min(a.height, b.height) / 2;
}"""
"""Whether a group's legend and its first choice sit on one line (JavaScript, given the group)."""


def legend_beside_choices(region: str, group: str) -> Step:
    """The group's legend is on the line of its first choice, as every other control's label is."""
    return {"op": "expect_js", "region": region, "role": "group", "name": group, "js": SAME_LINE}


def screenshot(region: str, path: str) -> Step:
    return {"op": "screenshot", "region": region, "path": path}


READABLE = """() => {
  const rgb = (css) => css.match(/[\\d.]+/g).slice(0, 3).map((part) => Number(part) / 255);
  const lum = (css) => {
    const [r, g, b] = rgb(css).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  const marks = [
    ["[data-part^=grid_] [data-kind], [data-part^=slots_] [data-kind], circle.point, .bar-reused, .bar-fill", "fill"],
    ["polyline.series, polyline.series-preview", "stroke"],
  ];
  const low = [];
  for (const lab of document.querySelectorAll("section.lab")) {
    const back = getComputedStyle(lab).backgroundColor;
    for (const [selector, property] of marks) {
      for (const mark of lab.querySelectorAll(selector)) {
        const style = getComputedStyle(mark);
        const shown = style[property];
        if (style.opacity !== "1" || !shown.startsWith("rgb(") || ratio(shown, back) < 3) {
          low.push(`${mark.getAttribute("class")} ${shown} (opacity ${style.opacity}) on ${back}`);
        }
      }
    }
  }
  return low.length === 0 || low.join("; ");
}"""
"""Every mark of the labs at least 3:1 against its lab's background (WCAG 2.2 SC 1.4.11), from the
colours this browser paints: true, or the marks that are not (as Chromium's test_lab_contrast)."""


def labelled(lab: Lab) -> list[tuple[str, str]]:
    """The labelled readouts of ``lab`` (label, output name), in the page's order: the ``readouts``
    macro of site_template/labs/controls.html writes every text output that has a label."""
    return [(output.label, output.name) for output in lab.outputs if output.kind == "text" and output.label]


SAYS = """(region) => {{
  const norm = (text) => text.replace(/\\s+/g, " ").trim();
  const unseen = (el) => el.parentElement.matches("details:not([open])") && el.localName !== "summary";
  const walk = document.createTreeWalker(region, NodeFilter.SHOW_ELEMENT, {{
    acceptNode: (el) => (unseen(el) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  }});
  const walked = [];
  for (let el = walk.nextNode(); el; el = walk.nextNode()) walked.push(el);
  const said = (text) => (el) => {{
    const seen = norm(el.textContent);
    return ({whole} ? seen === text : seen.includes(text)) && el.getClientRects().length > 0;
  }};
  const missing = {texts}.filter((text) => !walked.some(said(text)));
  return missing.length === 0 || `not shown: ${{JSON.stringify(missing)}}`;
}}"""
"""Whether the region shows each of ``texts`` (JavaScript, given the region): true, or the texts it
does not show. A closed disclosure's content (each lab's Python: most of its elements) is not
walked, as a reader cannot see it."""


def says(region: str, *texts: str, whole: bool = True) -> Step:
    """The region shows each of ``texts`` (white space as the browser collapses it), as a reader reads
    it: the whole text of a visible element (a line of the lab's status, which has no role or label),
    or with ``whole=False`` within one (a sentence of the lab's prose, around its fields)."""
    words = json.dumps([" ".join(text.split()) for text in texts])
    return holds(region, SAYS.format(texts=words, whole=json.dumps(whole)))


def decode_run(run: Run) -> list[Step]:
    """Everything the decode lab says of ``run``, as the model computes it: every labelled readout,
    then its status line (the status, then how far the run has come). The readouts first: a run in
    motion (Firefox and WebKit animate Generate) reaches them at its end, and each wait on one is a
    cheap read; the status line's check reads the whole lab, so it is made once the run is there."""
    text = run.text()
    return [
        *[shows(DECODE, label, text[name]) for label, name in labelled(decode.LAB)],
        says(DECODE, text["status"], text["progress"]),
    ]


def decode_steps() -> list[Step]:
    """On the chapter as it opens (the seed's readouts): Generate with the KV cache; Reset; switch to
    Recompute; Generate; one step back and, by keyboard, forward to the end. At each stop the whole
    run the lab shows: status, progress and every readout (``decode_run``)."""
    cold, recompute = chapter_run(), chapter_run("recompute")
    for label, name in labelled(decode.LAB):
        if seed_has(label):
            assert cold.text()[name].split(decode.NO_BREAK)[0] == seed_readout(label), (
                "the seed's figure, with its unit"
            )
    stepped_back = recompute.after(recompute.tokens - 1).text()
    return [
        legend_beside_choices(DECODE, "Mode"),
        *decode_run(cold),
        click(DECODE, "button", "Generate"),
        *decode_run(cold.after()),
        page_holds(READABLE, "every mark of the labs should be 3:1 against the lab"),  # the KV cache's cells
        click(DECODE, "button", "Reset"),
        *decode_run(cold),
        click(DECODE, "radio", "Recompute"),
        click(DECODE, "button", "Generate"),
        *decode_run(recompute.after()),
        disabled(DECODE, "button", "Generate"),
        # The step control (issue 39): one step back, then forward again.
        click(DECODE, "button", "Back"),
        shows(DECODE, "Paid so far", stepped_back["paid"]),
        shows(DECODE, "KV cache against recomputing", stepped_back["ratio"]),
        page_holds(READABLE, "every mark of the labs should be 3:1 against the lab"),
        # Forward by keyboard to the end (issue 50): spent, it keeps the focus and a second Enter does
        # nothing (the focus once went to Reset, and that Enter wiped the run).
        holds(DECODE, FOCUS_FORWARD, until=False),
        key("Enter"),
        shows(DECODE, "Paid so far", recompute.after().readout("Paid so far")),
        disabled(DECODE, "button", "Forward"),
        key("Enter"),
        holds(DECODE, FORWARD_FOCUSED, until=False),
        shows(DECODE, "Paid so far", recompute.after().readout("Paid so far")),
    ]


FOCUS_FORWARD = """(region) => { region.querySelector("[data-action=step]").focus(); return true; }"""
"""The decode lab's Forward given the focus, as Tab would (how many Tabs reach it differs by engine)."""
FORWARD_FOCUSED = """(region) => document.activeElement === region.querySelector("[data-action=step]")"""


def next_request_steps() -> list[Step]:
    """On the chapter as it opens: the seed's readouts (the model's for the chapter's requests); then
    request 2 typed with its first letter's case changed ("You" to "you": nothing shared), then with
    one letter changed in the system prompt, then set by a preset: every labelled readout each
    time, as the model computes it. Then request 1 typed anew, and the lab's prose says what it paid."""
    request1, request2 = requests()
    chapter = compared()
    for label, name in labelled(next_request.LAB):
        assert chapter[name] == seed_readout(label), f"the model's {label!r} for the chapter's requests is the seed's"
    lowered = request2[:1].swapcase() + request2[1:]
    edited = one_letter_changed(request2)
    leading = next_request.presets(request1)["leading_space"]
    typed1 = "Hello there"
    paid = compared(request1=typed1, request2=leading)
    sentence = f"Request 1 already paid {paid['request1_cost']} for {paid['request1_tokens']} tokens."
    assert paid["request1_cost"] != chapter["request1_cost"], "a sentence the page showed before would prove nothing"

    def readouts(view: dict[str, str]) -> list[Step]:
        return [shows(NEXT, label, view[name]) for label, name in labelled(next_request.LAB)]

    return [
        *[shows(NEXT, label, seed_readout(label)) for label, _ in labelled(next_request.LAB)],
        fill(NEXT, "Request 2", lowered),
        *readouts(compared(request2=lowered)),
        fill(NEXT, "Request 2", edited),
        *readouts(compared(request2=edited)),
        # A preset (issue 39): request 2 set by the model's text for the experiment, as if typed.
        click(NEXT, "button", dict(next_request.PRESETS)["leading_space"]),
        *readouts(compared(request2=leading)),
        fill(NEXT, "Request 1", typed1),
        says(NEXT, sentence, whole=False),
    ]


def reload() -> Step:
    """Load the page's URL afresh, as a reader's new tab would, and wait for Python."""
    return {"op": "reload"}


def open_copied(region: str, label: str) -> Step:
    """Open the link in the text box labelled ``label`` afresh (as a new tab would), and wait for Python."""
    return {"op": "open_copied", "region": region, "role": "textbox", "label": label}


LINK_FIELD = "Link to this lab's state"
LINK_NOTE = "From this page's link, ignored:"
NOTED = """(region) => [...region.querySelectorAll("p")].some((p) => !p.hidden && p.textContent.startsWith({note})
  && {words}.every((word) => p.textContent.includes(word)))"""
UNTOUCHED = "() => window.__injected === undefined && !document.querySelector('section.lab img, section.lab script')"
HOSTILE_FRAGMENT = (
    "#decode:prompt=9999,mode=%3Cimg+src%3Dx+onerror%3Dwindow.__injected%3D1%3E,colour=red,steps=2"
    "&turns:turn=3&%3Cscript%3E:x=1&next-request:request2=" + "x" * 100_000
)
"""A stale and hostile link: a prompt out of range, markup for a mode, a setting and labs the page
lacks, a request of 100,000 characters; only ``steps=2`` fits."""


def decode_view(prompt: int, tokens: int, mode: str, steps: int) -> dict[str, str]:
    """What the decode lab shows ``steps`` into a run: the model's resume action, in CPython."""
    text = decode.resume({"prompt": prompt, "tokens": tokens, "mode": mode, "state": {"steps": steps}})["text"]
    return text  # type: ignore[return-value]


def shows_decode(view: dict[str, str]) -> list[Step]:
    """Two of decode's readouts (which steps and mode both change): Firefox's lookups cost a second each."""
    return [shows(DECODE, label, view[name]) for label, name in DECODE_READOUTS[:2]]


DECODE_READOUTS = (("This step", "this_step"), ("Paid so far", "paid"), ("If every step recomputed", "recompute_total"))
NEXT_READOUTS = (("Shared prefix", "shared"), ("Cold prefill", "cold"), ("With prefix cache", "cached"))


def link_flow(url: str) -> list[Step]:
    """A hostile link: the page works, the field that fits is applied, a quiet note names the
    others, nothing of it runs. Then explore both labs: the page's URL carries both (in one history
    entry), and loaded afresh shows both again; decode's Copy link, opened afresh, shows decode's
    state and next-request as the chapter has it. Three loads of the page in all."""
    decode_at, next_at = lab_params("decode"), lab_params("next-request")
    prompt, tokens = int(decode_at["prompt"]), int(decode_at["tokens"])
    mode = next(value for value, _ in decode.MODE.options if value != decode.MODE.default)
    mode_label = dict(decode.MODE.options)[mode]
    steps = 3
    explored = decode_view(prompt, tokens, mode, steps)
    edited = one_letter_changed(next_at["request2"])
    compared = next_request.compare({"request1": next_at["request1"], "request2": edited})["text"]
    seed = next_request.compare({"request1": next_at["request1"], "request2": next_at["request2"]})["text"]
    shows_next = lambda view: [shows(NEXT, label, view[name]) for label, name in NEXT_READOUTS[:1]]  # noqa: E731
    hostile = decode_view(prompt, tokens, decode.MODE.default, 2)
    in_url = json.dumps([f"mode={mode}", f"steps={steps}", "request2="])
    return [
        open_page(url + HOSTILE_FRAGMENT),
        *shows_decode(hostile),
        *shows_next(seed),
        holds(DECODE, NOTED.format(note=json.dumps(LINK_NOTE), words=json.dumps(["prompt=9999", "colour", "turns"]))),
        holds(NEXT, NOTED.format(note=json.dumps(LINK_NOTE), words=json.dumps(["request2=xxx"]))),
        page_holds(UNTOUCHED, "nothing of the link should have run or become an element"),
        # Explored on from there (another mode keeps the link's step; Reset starts a fresh run):
        page_holds("() => { window.__entries = history.length; return true; }", "history can be counted"),
        click(DECODE, "radio", mode_label),
        *shows_decode(decode_view(prompt, tokens, mode, 2)),
        click(DECODE, "button", "Reset"),
        *[click(DECODE, "button", "Forward") for _ in range(steps)],
        *shows_decode(explored),
        fill(NEXT, "Request 2", edited),
        *shows_next(compared),
        page_holds(
            f"() => {in_url}.every((word) => location.hash.includes(word)) && history.length === window.__entries",
            "the URL should carry both labs, in the page's one history entry",
        ),
        reload(),
        *shows_decode(explored),
        *shows_next(compared),
        click(DECODE, "button", named("Copy link", DECODE)),
        open_copied(DECODE, LINK_FIELD),
        *shows_decode(explored),
        *shows_next(seed),
    ]


def open_stopped(url: str) -> Step:
    """Open ``url`` with the page's clock (:data:`CLOCK`) installed and paused before the page's own
    scripts run, and wait for Python: none of the page's timers fires in this load unless a later
    step moves the clock (Firefox only: WebKitWebDriver cannot add a script at document start)."""
    return {"op": "open_stopped", "url": url}


CLOCK_STOPPED = "() => window[Symbol.for('kvpage.clock')] !== undefined"
"""The page's clock is installed (the page's setTimeout is its): a clock that failed to install would
leave the page's timers running, and the flow would prove nothing."""
SCROLLED = "() => scrollY > 0"
"""The page is scrolled (to the linked lab): a link that no longer scrolled would not be the case the
flow is about."""


def stopped_link_flow(url: str) -> list[Step]:
    """A lab link (``#decode:steps=2``, which the page scrolls to before its first paint) opened with
    the page's timers stopped from its first script: the page goes live all the same, so nothing it
    waits for before asking for Python is a timer. Firefox reports no first-contentful-paint for a
    page scrolled before it, and the loader, which waits for that paint, started Python only at its
    5-second fallback timer: a shared link went live 5 s late (``firstPaint`` in
    site_template/static/kvpage/assets.js; decision 0023's addendum). What the link sets is
    :func:`link_flow`'s to check (each readout looked up costs Firefox seconds)."""
    return [
        open_stopped(f"{url}#decode:steps=2"),
        page_holds(CLOCK_STOPPED, "the page's clock should be installed before its scripts"),
        page_holds(SCROLLED, "the link should have scrolled the page to its lab"),
    ]


PYTHON_CACHE = "document.documentElement.dataset.pythonCache"


def try_this_flow(url: str) -> list[Step]:
    """The chapter's "Try this" on one load of the page: both labs' (``decode_steps``, then
    ``next_request_steps``: the labs are independent). In Firefox and WebKit it runs from file://
    only (``FLOW_WAYS``): how Python's files arrive the other ways, and Cache Storage's second
    visit, are :func:`live_flow`'s. Chromium runs it every way (tests/e2e/test_labs.py)."""
    return [open_page(url), *decode_steps(), *next_request_steps()]


def live_flow(url: str) -> list[Step]:
    """The chapter goes live and answers once: what differs between the ways a page loads is how
    Python's files arrive (fetched and kept in Cache Storage, then read back from it, over http; inline
    in the single file), not what the labs do with Python once it is up, which the whole Try this
    checks from file:// (``FLOW_WAYS``). Over http, a second visit: Python restored from Cache Storage
    (``data-python-cache``: kept, then hit; the browser's session may have kept them already, in
    an earlier flow: then hit both times) answers one Forward with the model's numbers."""
    decode_at = lab_params("decode")
    forward = decode_view(int(decode_at["prompt"]), int(decode_at["tokens"]), decode.MODE.default, 1)
    visits = [open_page(url)]
    if not url.startswith("file:"):
        visits += [
            page_holds(f"() => ['kept', 'hit'].includes({PYTHON_CACHE})", "the unpacked binaries kept"),
            reload(),
            page_holds(f"() => {PYTHON_CACHE} === 'hit'", "the binaries read back from Cache Storage"),
        ]
    return [*visits, click(DECODE, "button", "Forward"), *shows_decode(forward)]


OPEN_PYTHON = """(region) => { const details = region.querySelector("details[data-role=python]");
  details.open = true; return details.open; }"""
EDITING = """(region) => region.querySelector("details[data-role=python] textarea") !== null"""
"""The disclosure is an editor: Edit loads the editor's script the first time, so it may come a moment later."""
PROBLEM_SAYS = """(region) => {{ const box = region.querySelector("[data-role=problem]");
  return !box.hidden && {words}.every((word) => box.textContent.includes(word)); }}"""


RUN_OUT = (
    """(region) => [...region.querySelectorAll("[role=status]")].some((s) => s.textContent === "Running your model…")"""
)
"""The reader's Run is out: its Python up, its time limit set (site_template/static/kvpage/reader.js, RUNNING)."""


def problem_says(region: str, *words: str) -> Step:
    """The Python disclosure's message (why a Run failed) shows, and holds every one of ``words``."""
    return holds(region, PROBLEM_SAYS.format(words=json.dumps(list(words))))


def reader_flow(url: str) -> list[Step]:
    """A lab's Python disclosure: open it, Edit, make the prefill causal, Run: both labs show the edited
    model's numbers (run in CPython on the chapter's values). A syntax error, then a loop (stopped
    by the page's timer at the book's call_timeout, not a moment before, the page's clock moved on by
    the test: clock.js): each says why, and the labs keep the causal model's numbers.
    "Back to the book's model": the book's numbers again."""
    decode_at, next_at = lab_params("decode"), lab_params("next-request")
    values = {"prompt": int(decode_at["prompt"]), "tokens": int(decode_at["tokens"]), "mode": decode.MODE.default}
    requests = [
        json.dumps({"lab": decode.LAB.name, "action": decode.LAB.update, "args": values}),
        json.dumps({"lab": next_request.LAB.name, "action": next_request.LAB.update, "args": next_at}),
    ]
    mine = [view["text"] for view in edited_views({COSTS: CAUSAL}, requests)]
    book = [view["text"] for view in edited_views({}, requests)]
    broken = BOOK_COSTS.replace("def prefill_cost(", "def prefill_cost(:")
    line = next(number for number, text in enumerate(broken.splitlines(), 1) if "prefill_cost(:" in text)
    column = broken.splitlines()[line - 1].index("(:") + 2
    looping = BOOK_COSTS.replace(SQUARE_LINE, "while True:\n        pass")

    def both(views: list[dict[str, str]]) -> list[Step]:
        decode_view, next_view = views
        return [
            *[shows(DECODE, label, decode_view[name]) for label, name in DECODE_READOUTS],
            *[shows(NEXT, label, next_view[name]) for label, name in NEXT_READOUTS],
        ]

    editor = f"Edit {COSTS}"
    limit = chapter_call_timeout()
    return [
        open_page(url),
        holds(DECODE, OPEN_PYTHON, until=False),
        click(DECODE, "button", named("Edit", DECODE)),
        holds(DECODE, EDITING),
        paste(DECODE, editor, CAUSAL),
        click(DECODE, "button", named("Run", DECODE)),
        *both(mine),
        paste(DECODE, editor, broken),
        click(DECODE, "button", named("Run", DECODE)),
        problem_says(DECODE, f"{COSTS}:{line}:{column}: SyntaxError", "^"),
        *both(mine),
        paste(DECODE, editor, looping),
        # Stopped by the page's timer at the chapter's call_timeout, not a moment before: the page's
        # clock paused before Run, and moved by exactly that much once the Run is out (its limit set).
        stop_the_clock(DECODE),
        click(DECODE, "button", named("Run", DECODE)),
        holds(DECODE, RUN_OUT),
        move_clock(DECODE, limit - 0.001, fires=False),
        holds(
            DECODE,
            f"(region) => ({RUN_OUT})(region) && region.querySelector('[data-role=problem]').hidden",
            until=False,
        ),
        move_clock(DECODE, 0.001),
        problem_says(DECODE, f"longer than {shown_seconds(limit)} s and was stopped"),
        resume_clock(DECODE),
        *both(mine),
        click(DECODE, "button", named("Back to the book's model", DECODE)),
        *both(book),
    ]


def chapter_call_timeout() -> float:
    book, errors = load_book(ROOT / "content" / "book.toml", "book.toml")
    assert book is not None, errors
    return book.call_timeout


FLOWS = {"try-this": try_this_flow, "live": live_flow, "link": link_flow, "reader": reader_flow}

FLOW_WAYS = {
    "try-this": ("file",),
    "live": ("http", "single-file"),
    "link": ("file",),
    "reader": ("single-file",),
}
"""The ways each flow runs in Firefox and WebKit. The chapter's whole Try this runs once, from the
unzipped zip (file://): what the labs do once Python is up is the same every way. Each other way is
checked where its loading differs: the page goes live and answers once (``live_flow``: over http,
from Cache Storage on the second visit; the single file, its binaries inline). The others run in the
way where they are most fragile, having run every way in Chromium (tests/e2e/test_links.py,
test_reader.py): a lab link in a file:// URL (its fragment kept across a reload from disk), the
reader's editor in the single file (its script inline, run by its CSP hash on the first Edit)."""


# ---- Python's worker, on the runaway book --------------------------------------------------

RUNAWAY = "Lab · a call that never returns"
SQUARE = "Lab · the square"
"""The square lab's heading (the runaway book and the kitchen-sink book have it)."""

SPARE_READY = """() => performance.getEntriesByName("kvpage:worker-ready").length >= 2"""
"""The page's second Python, which it starts when a call has been out a moment and no worker is free, is up."""
IN_A_WORKER = """() => document.documentElement.dataset.python === "ready"
  && typeof globalThis.loadPyodide === "undefined" && typeof globalThis._createPyodideModule === "undefined"
  && typeof globalThis.WebAssembly === "object" """
"""Python is up, and none of Pyodide's JavaScript ran on the page: it is in the worker."""
SCROLLS_AND_ASKS = """(region) => {{
  const before = scrollY;
  scrollBy(0, before > 0 ? -40 : 40);
  const box = region.querySelector("input[type=number]");
  box.value = "{value}";
  box.dispatchEvent(new Event("input", {{ bubbles: true }}));
  return scrollY !== before;
}}"""
"""The page still scrolls (this ran on the main thread, and moved it), and the lab's number box gets
a new value. One step, so that on a loaded machine no driver round trips stand between the loop's
start and the other lab's question."""
NO_ALERT = """(region) => region.querySelector("[role=alert]").hidden"""
STILL_WORKING = """(region) => region.textContent.includes("Python is still working on this…")"""
"""The lab says its call is out (site_template/static/kvpage/lab.js, STILL_WORKING), as test_worker checks."""
SLIDER_TO = """(region) => {{ const slider = region.querySelector("input[type=range]");
  {moves} return true; }}"""
RECORD = """(region) => { const readout = region.querySelector("output");
  window.__seen = [];
  new MutationObserver(() => window.__seen.push(readout.textContent))
    .observe(readout, { childList: true, characterData: true, subtree: true });
  return true; }"""


CLOCK = (Path(__file__).with_name("clock.js")).read_text(encoding="utf-8")
"""The page's clock (see clock.js): a function that installs it, once."""
THE_CLOCK = "window[Symbol.for('kvpage.clock')]"


def live_clock(region: str) -> Step:
    """The page's clock installed (clock.js): timers set from now on are its, running as usual."""
    return holds(region, CLOCK.strip().rstrip(";"), until=False)


def stop_the_clock(region: str) -> Step:
    """The page's clock installed and paused: its timers fire only when :func:`move_clock` moves it."""
    return holds(region, f"() => ({CLOCK.strip().rstrip(';')})() && {THE_CLOCK}.pause()", until=False)


def move_clock(region: str, seconds: float, fires: bool = True) -> Step:
    """The page's clock moved ``seconds`` on, at once: the timers due by then fire (at least one, if
    ``fires``; else none), as they would for a reader that long later, before the next step."""
    count = f"{THE_CLOCK}.forward({round(seconds * 1000)})"
    return holds(region, f"() => {count} {'> 0' if fires else '=== 0'}", until=False)


def resume_clock(region: str) -> Step:
    """The page's clock running as usual again, from where it was moved to."""
    return holds(region, f"() => {THE_CLOCK}.resume()", until=False)


def slide(region: str, *values: int) -> Step:
    """Move the region's slider through ``values`` in one task, as a quick drag does: one input event each."""
    moves = " ".join(
        f'slider.value = "{value}"; slider.dispatchEvent(new Event("input", {{ bubbles: true }}));' for value in values
    )
    return holds(region, SLIDER_TO.format(moves=moves), until=False)


def call_timeout() -> float:
    book, errors = load_book(RUNAWAY_BOOK / "book.toml", "book.toml")
    assert book is not None, errors
    return book.call_timeout


def shown_seconds(seconds: float) -> str:
    """How the page writes a number of seconds (JavaScript's String(): 6, 2.5)."""
    return f"{seconds:g}"


def worker_flow(url: str) -> list[Step]:
    """Python is in a worker, not on the page. Two moves of the slider in one task: the first answer
    comes back after the second move and is dropped, never drawn. A slow call, during which the
    page starts its spare Python. Then a loop forever in that lab: the page scrolls and the other
    lab answers meanwhile (from the spare); the loop is stopped after the book's call_timeout, the
    lab's values kept, and it works again. The time limit is not waited out: once the test has seen
    the other lab answer while the loop's call is out, it moves the page's clock on by call_timeout
    (clock.js), and the page's own timer stops the call, as Chromium's test_worker does."""
    start = int(lab_params("runaway", RUNAWAY_CHAPTER)["n"])
    first, second = (squared(n) for n in (7, 8))
    tokens = int(lab_params("square", RUNAWAY_CHAPTER)["tokens"]) + 4
    cells = square.compute({"tokens": tokens})["text"]["cells"]  # type: ignore[index]
    seconds = shown_seconds(call_timeout())
    return [
        open_page(url),
        holds(RUNAWAY, IN_A_WORKER, until=False),
        # A stale answer
        holds(RUNAWAY, RECORD, until=False),
        slide(RUNAWAY, 7, 8),
        shows(RUNAWAY, "Its square", second),
        holds(RUNAWAY, f"() => JSON.stringify(window.__seen) === JSON.stringify([{json.dumps(second)}])", until=False),
        holds(RUNAWAY, f"() => !window.__seen.includes({json.dumps(first)})", until=False),
        # A slow call: the page starts its spare Python meanwhile
        click(RUNAWAY, "button", "Think for a second"),
        holds(RUNAWAY, SPARE_READY),  # the loop's click waits in the lab for the slow call's answer
        live_clock(RUNAWAY),
        # A runaway call
        find(SQUARE, "status", "Cells a cold prefill pays"),
        find(RUNAWAY, "status", "Its square"),
        click(RUNAWAY, "button", "Loop forever"),
        holds(SQUARE, SCROLLS_AND_ASKS.format(value=tokens), until=False),
        shows(SQUARE, "Cells a cold prefill pays", cells),
        holds(RUNAWAY, NO_ALERT, until=False),  # the square answered while the loop still ran
        holds(RUNAWAY, STILL_WORKING),  # and the loop's call is out
        move_clock(RUNAWAY, call_timeout()),  # the page's timer that stops the call fires
        alert(RUNAWAY, f"The model took longer than {seconds} s and was stopped; the lab keeps your values."),
        shows(RUNAWAY, "Its square", "—"),
        slide(RUNAWAY, start + 2),
        shows(RUNAWAY, "Its square", squared(start + 2)),
    ]


def squared(n: int) -> str:
    return str(runaway.compute({"n": n})["text"]["square"])  # type: ignore[index]


WORKER_FLOWS = {"worker": worker_flow}

WORKER_WAYS = ("file",)
"""Python's worker flow in Firefox and WebKit runs from file://, where its Blob-URL worker is the
one part no server can help (every way in Chromium: tests/e2e/test_worker.py)."""


WORKER_CASES = dict.fromkeys(WORKER_FLOWS, WORKER_WAYS)
"""Each worker flow with its ways, for :func:`cases`."""


def cases(flows: dict[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    """(way, flow) for ``pytest.mark.parametrize(("where", "flow"), ..., indirect=["where"])``:
    each flow in each of its ways, ids as ``WAY-FLOW`` (what tests/scheduling.py splits by)."""
    return [(way, flow) for flow, ways in sorted(flows.items()) for way in ways]


RENDERS = (Path(__file__).with_name("renders.js")).read_text(encoding="utf-8")
"""The kitchen-sink book's rendering checks (JavaScript, run in the page): see renders.js."""


def renders(js: str = RENDERS) -> Step:
    """The page's JavaScript check ``js`` (a function returning the problems it found) finds none,
    once the page has laid itself out; a failure shows the problems."""
    holds = f"() => {{ const problems = ({js.strip().rstrip(';')})(); return problems.length === 0 || problems; }}"
    return page_holds(holds, "every construct of the kitchen-sink book should render")


def kitchen_sink_flow(url: str) -> list[Step]:
    """Every construct rendered, once Python runs (the lab's own numbers are Chromium's to check:
    tests/e2e/test_kitchen_sink.py; Firefox's accessibility lookups cost seconds each)."""
    return [open_page(url), renders()]


# ---- search, on the two-chapter book (tests/search_targets.py) ------------------------------------

SEARCH_BOX = "Search the book"


def goto(url: str) -> Step:
    """Open a page of the book without waiting for Python (a chapter may have none): until the
    search box is shown."""
    return {"op": "goto", "url": url, "label": SEARCH_BOX}


def key(name: str) -> Step:
    """Press a key where the focus is: "/", "ArrowDown", "ArrowUp", "Enter", "Escape"."""
    return {"op": "key", "key": name}


def type_text(text: str) -> Step:
    """Type ``text`` where the focus is, key by key."""
    return {"op": "type", "text": text}


def set_query(text: str) -> Step:
    """Put ``text`` in the search box at once, as a paste does (100,000 keys would take minutes)."""
    return {"op": "set_query", "label": SEARCH_BOX, "text": text}


def search_focused() -> Step:
    return {"op": "expect_focused", "role": "combobox", "name": SEARCH_BOX}


def page_holds(js: str, what: str) -> Step:
    """Wait until ``js`` (a JavaScript function of no arguments) returns true in the page."""
    return {"op": "expect_page", "js": js, "what": what}


OPTIONS = "[...document.querySelectorAll('[role=search] [role=listbox] [role=option]')]"
STATUS = "document.querySelector('[role=search] [role=status]').textContent"


def first_result_is(heading: str) -> Step:
    js = f"() => {{ const first = {OPTIONS}[0]; return !!first && first.textContent.includes({json.dumps(heading)}); }}"
    return page_holds(js, f"the first result should be under {heading!r}")


def first_result_chosen() -> Step:
    js = f"""() => {{
  const first = {OPTIONS}[0], box = document.activeElement;
  return !!first && first.getAttribute("aria-selected") === "true"
    && box.getAttribute("aria-activedescendant") === first.id;
}}"""
    return page_holds(js, "Down should choose the first result, the focus staying in the box")


def landed_on(url: str, heading: str, prefix: str) -> Step:
    """The page is ``url`` at the anchor of the heading ``heading`` (its id starting ``prefix``),
    and the heading is on the screen (its top may be a fraction of a pixel above it); and the search
    box is shown again (a new page shows it once its script has run; "/" before that is Firefox's own
    quick find)."""
    js = f"""() => {{
  const heading = [...document.querySelectorAll("h2, h3")].find((h) => h.textContent.trim() === {json.dumps(heading)});
  if (!heading || !heading.id.startsWith({json.dumps(prefix)})) return `no such heading at ${{location.href}}`;
  const top = heading.getBoundingClientRect().top;
  const searchable = !document.querySelector("[role=search]").hidden;  // shown once its script has run
  const there = location.href === {json.dumps(url)} + "#" + heading.id && top > -2 && top < innerHeight && searchable;
  return there || `${{location.href}}, its top at ${{top}} px of ${{innerHeight}}, search box shown: ${{searchable}}`;
}}"""
    return page_holds(js, f"the page should be {url} at the heading {heading!r}, on screen")


def status_is(text: str) -> Step:
    return page_holds(f"() => {STATUS} === {json.dumps(text)}", f"the search status should read {text!r}")


def search_flow(first: str, targets: list[Target], pages: dict[str, str], single: bool) -> list[Step]:
    """Find a phrase of each chapter by keyboard and land on its heading (and back to the first);
    then hostile queries, each shown back as text; nothing injected, and Escape closes the list."""
    steps = [goto(first)]
    for target in [*targets, targets[0]]:
        steps += [
            key("/"),
            search_focused(),
            type_text(target.phrase),
            first_result_is(target.heading),
            key("ArrowDown"),
            first_result_chosen(),
            key("Enter"),
            landed_on(pages[target.slug], target.heading, f"{target.slug}--" if single else ""),
        ]
    steps += [key("/"), search_focused()]
    for query in HOSTILE_QUERIES:
        if len(query) > LONGEST_QUERY:
            cut = f"(only the first {LONGEST_QUERY} characters were searched)"
            steps += [
                set_query(query),
                page_holds(f"() => {STATUS}.endsWith({json.dumps(cut)})", f"the status should end {cut}"),
            ]
        else:
            steps += [set_query(query), status_is(f"No results for “{quoted(query)}”")]
    untouched = (
        "() => window.__injected === undefined && !document.querySelector('.site-search img, .site-search script')"
    )
    steps += [page_holds(untouched, "nothing of the queries should have run or become an element")]
    closed = (
        "() => document.activeElement.getAttribute('aria-expanded') === 'false'"
        " && document.querySelector('.search-popup').hidden"
    )
    steps += [key("Escape"), page_holds(closed, "Escape should close the list")]
    return steps
