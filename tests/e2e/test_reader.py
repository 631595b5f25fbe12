"""A lab's "Python" disclosure, performed in Chromium: read it, edit the model, Run, and back.

The editor's loading runs three ways (served over http, from the unzipped zip with file://, as the
single file): its script arrives differently each way. What Run does (edit and Run, a syntax error,
bad input, what the reader's code can reach, a run kept where it is, a loop stopped, the Runs that
break Python) is the same script on the same DOM, and a Run's Python is made from the bytes the page
holds, however they arrived: those flows run over http, on the visit that loaded the editor (each
Run starts a fresh Python, about 2 CPU-s, issue 47). What the single file does otherwise is checked
there, as on the chapter page (``DOCUMENTS``): a Run with the editors open, then axe-core (each
editor's label names its box by an id made from the lab's heading id, chapter-prefixed in the single
file) and the fit at 360 px, on the editor's visit; the disclosure without script and in print.
tests/e2e/test_worker.py stops a call, and starts the Python that replaces it, each way.
What the labs must show after a Run is the edited model's, derived here by running the edited files
in CPython (a copy of ``kvpage/`` with those files replaced, in a process of its own) on the values
the page's labs have, never typed; "Back to the book's model" must bring back the numbers the page
showed before, exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from kvpage.lab import Lab
from kvpage.labs import decode as decode_lab
from kvpage.labs import next_request
from tests.browser_fixtures import DOCUMENTS, WAYS, Where
from tests.browsers.flows import chapter_call_timeout, shown_seconds
from tests.chapter_labs import DECODE, NEXT, one_letter_changed, requests
from tests.e2e.conftest import PYTHON_READY_MS, Audit, audit_page
from tests.e2e.test_accessibility import AXE, axe_in_each_scheme
from tests.e2e.test_labs import live_clock, open_chapter, settled, stop_the_clock
from tests.reader_model import BOOK_COSTS, CAUSAL, COSTS, SQUARE, edited_views

pytestmark = pytest.mark.e2e
every_way = pytest.mark.parametrize("site_url", WAYS, indirect=True)
each_document = pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)

LABS: dict[str, Lab] = {DECODE: decode_lab.LAB, NEXT: next_request.LAB}


def request_of(region: Locator, lab: Lab) -> str:
    """The request a Run sends for the lab in ``region`` now: its resume action with the state a link
    carries (decode's steps), if it has one, else its update; at its controls' values."""
    saved = region.page.evaluate(
        "(section) => ({controls: kvpageLabs.lab(section).saved().controls, state: kvpageLabs.lab(section).state()})",
        region.element_handle(),
    )
    args = dict(saved["controls"])
    if lab.resume:
        args["state"] = {entry.name: saved["state"][entry.name] for entry in lab.linked_state}
    elif saved["state"] is not None:
        args["state"] = saved["state"]
    return json.dumps({"lab": lab.name, "action": lab.resume or lab.update, "args": args})


def readouts(region: Locator, lab: Lab) -> dict[str, str]:
    """What every labelled readout of ``lab`` shows, by output."""
    return {
        output.name: region.get_by_label(output.label, exact=True).inner_text()
        for output in lab.outputs
        if output.kind == "text" and output.label
    }


def expect_readouts(region: Locator, lab: Lab, texts: Mapping[str, str]) -> None:
    for output in lab.outputs:
        if output.kind == "text" and output.label:
            expect(region.get_by_label(output.label, exact=True)).to_have_text(texts[output.name])


def edit_costs(region: Locator, text: str) -> None:
    """Open the lab's Python disclosure, Edit, and put ``text`` in its costs.py."""
    region.get_by_text("Python: the code behind this lab").click()
    region.get_by_role("button", name="Edit").click()
    region.get_by_label(f"Edit {COSTS}").fill(text)


def regions(page: Page) -> dict[str, Locator]:
    return {name: page.get_by_role("region", name=name) for name in LABS}


def shown_by(labs: Mapping[str, Locator]) -> dict[str, dict[str, str]]:
    """What every readout of each lab shows now (:func:`readouts`), by lab."""
    return {name: readouts(region, LABS[name]) for name, region in labs.items()}


def expect_shown(labs: Mapping[str, Locator], shown: Mapping[str, Mapping[str, str]]) -> None:
    """Every readout of each lab shows what ``shown`` (from :func:`shown_by`) holds."""
    for name, region in labs.items():
        expect_readouts(region, LABS[name], shown[name])


@every_way
def test_the_editor_loads_on_the_first_edit_then_every_flow_of_run(audited: tuple[Page, str], site_url: Where) -> None:
    """The editor's script loaded on the first Edit and never before (first, on the fresh page), every
    way; then, over http (the module's docstring says why there only), the flows of Run on the same
    visit, each a function of its own, each starting with the book's model the one the page runs
    (after Back; after a Run that failed, which keeps the last good model): a Run of the edited model
    shown in both labs, and Back to the book's numbers; a syntax error shown at its line while the
    labs keep their numbers; bad input ends in a message and Back restores the numbers; the reader's
    code cannot reach the page; a Run keeps a run where it is (it leaves the reader's model running).
    Last, on each document (in the single file after a Run of its own, its fresh Python under the
    single file's CSP), with the reader's model in both labs' open editors: axe-core, and the page
    fits 360 px (:func:`the_open_editor_passes_axe_and_fits_360_px`)."""
    page, url = audited
    page.add_init_script(path=str(AXE))
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    open_chapter(page, url)
    labs = regions(page)
    before = shown_by(labs)
    single = site_url.chapter == site_url.origin  # the single file: the script is in the page, run by its hash
    the_editor_is_loaded_on_the_first_edit_never_before(labs, asked, single)
    if single:
        labs[DECODE].get_by_role("button", name="Run").click()  # the editor holds CAUSAL
        the_open_editor_passes_axe_and_fits_360_px(labs)
    if not site_url.chapter.startswith("http"):
        return  # the flows of Run are the same script on the same DOM each way: run over http
    # Nothing here is about the time limit (test_a_model_that_never_returns_is_stopped_and_the_page_answers
    # is): with the page's clock stopped, a Run slowed by a loaded machine is never stopped by it (seen:
    # "took longer than 5 s" where the reader's AttributeError was waited for, under a load of 20).
    live_clock(page)
    stop_the_clock(page)
    run_shows_the_edited_model_in_both_labs_and_back_restores_the_book(labs, before)
    a_syntax_error_is_shown_at_its_line_and_the_labs_keep_their_numbers(labs, before)
    bad_input_ends_in_a_message_and_back_restores_the_numbers(labs)
    the_readers_code_cannot_reach_the_page(labs[DECODE])
    a_run_keeps_a_run_where_it_is(labs[DECODE])
    page.clock.resume()  # axe-core waits on timers of its own
    the_open_editor_passes_axe_and_fits_360_px(labs)


def the_open_editor_passes_axe_and_fits_360_px(labs: Mapping[str, Locator]) -> None:
    """With the reader's model running and both labs' editors open: axe-core finds nothing, in light
    and in dark, on one visit (:func:`axe_in_each_scheme` says why that is the same), and at 360 px
    the page does not scroll sideways in either."""
    page = labs[DECODE].page
    expect(labs[NEXT].get_by_role("status").filter(has_text="Your model")).to_be_visible()
    for region in labs.values():
        expect(region.get_by_label(f"Edit {COSTS}")).to_be_visible()
    page.set_viewport_size({"width": 360, "height": 800})
    for scheme, found in axe_in_each_scheme(page).items():
        assert found == [], scheme
        page.emulate_media(color_scheme=scheme)
        scroll, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert scroll <= client, f"the page scrolls sideways at 360 px in {scheme}: {scroll} > {client}"


def the_editor_is_loaded_on_the_first_edit_never_before(
    labs: Mapping[str, Locator], asked: list[str], single: bool
) -> None:
    """Nothing only the editor needs comes before the labs are live: its script (static/reader.HASH.js,
    in the single file a data block run by its hash) is loaded, and run, on the first Edit only.
    Leaves both labs' editors open, the decode lab's holding CAUSAL."""
    decode, next_lab = labs[DECODE], labs[NEXT]
    page = decode.page
    editor_script = re.compile(r"/static/reader\.[0-9a-f]+\.js$")
    assert page.evaluate("typeof kvpageLabs.wireReader") == "undefined"
    assert [address for address in asked if editor_script.search(address)] == []
    edit_costs(decode, CAUSAL)
    assert page.evaluate("typeof kvpageLabs.wireReader") == "function"
    next_lab.get_by_text("Python: the code behind this lab").click()
    next_lab.get_by_role("button", name="Edit").click()  # a second Edit: the same script
    expect(next_lab.get_by_label(f"Edit {COSTS}")).to_have_value(BOOK_COSTS)
    assert len([address for address in asked if editor_script.search(address)]) == (0 if single else 1)


def run_shows_the_edited_model_in_both_labs_and_back_restores_the_book(
    labs: Mapping[str, Locator], before: Mapping[str, Mapping[str, str]]
) -> None:
    """``before``: what the labs showed with the book's model."""
    decode = labs[DECODE]
    requests = [request_of(region, LABS[name]) for name, region in labs.items()]
    expected = edited_views({COSTS: CAUSAL}, requests)
    run_costs(decode, CAUSAL)
    for (name, region), view in zip(labs.items(), expected, strict=True):
        expect_readouts(region, LABS[name], view["text"])
        expect(region.get_by_role("status").filter(has_text="Your model")).to_contain_text(f"{COSTS} +1 −1")
    assert any(readouts(labs[name], LABS[name]) != before[name] for name in labs), "the edit changed no readout"
    decode.get_by_role("button", name="Back to the book's model").press("Enter")
    expect_shown(labs, before)
    expect(decode.get_by_role("button", name="Back to the book's model")).to_be_hidden()
    expect(decode.get_by_role("button", name="Edit")).to_be_focused()  # not lost to <body>
    url = decode.page.url
    assert "costs" not in url and "def " not in url  # the URL carries no code


def a_syntax_error_is_shown_at_its_line_and_the_labs_keep_their_numbers(
    labs: Mapping[str, Locator], before: Mapping[str, Mapping[str, str]]
) -> None:
    """``before``: what the labs showed with the book's model, which the page runs now."""
    broken = BOOK_COSTS.replace("def prefill_cost(", "def prefill_cost(:")
    line = broken.splitlines().index(next(text for text in broken.splitlines() if "def prefill_cost(:" in text)) + 1
    column = broken.splitlines()[line - 1].index(":") + 1
    decode = labs[DECODE]
    problem = decode.get_by_role("alert").filter(has_text="SyntaxError")
    expect(problem).to_have_count(0)
    edit_again(decode)
    run_costs(decode, broken)
    expect(problem).to_contain_text(f"{COSTS}:{line}:{column}: SyntaxError")
    expect(problem).to_contain_text(f"{broken.splitlines()[line - 1]}\n{' ' * (column - 1)}^")
    expect(decode.locator(".python-lines .python-bad")).to_have_text(str(line))
    expect(decode.get_by_label(f"Edit {COSTS}")).to_have_value(broken)
    expect_shown(labs, before)


@pytest.mark.parametrize("site_url", ["http"], indirect=True)
def test_a_model_that_never_returns_is_stopped_and_the_page_answers(audited: tuple[Page, str]) -> None:
    """The loop is stopped by the page's timer at the chapter's ``call_timeout``, not a moment
    before: the test stops the page's clock (``stop_the_clock``) before Run and moves it by exactly
    that much, instead of waiting those seconds out while the worker loops on a core. Python's
    worker keeps real time, and the page's timer is all that stops it, so the page does what it does
    for a reader; only the wait is the test's."""
    page, url = audited
    open_chapter(page, url)
    live_clock(page)
    labs = regions(page)
    before = shown_by(labs)
    looping = BOOK_COSTS.replace(SQUARE, "while True:\n        pass")
    decode = labs[DECODE]
    edit_costs(decode, looping)
    stop_the_clock(page)
    decode.get_by_role("button", name="Run").click()
    expect(decode.get_by_role("status").filter(has_text="Running your model")).to_be_visible()
    assert page.evaluate("1 + 1") == 2  # the page answers while Python loops
    problem = decode.get_by_role("alert").filter(has_text="was stopped")
    limit_ms = round(chapter_call_timeout() * 1000)
    page.clock.run_for(limit_ms - 1)
    expect(problem).to_have_count(0)  # not before the book's call_timeout
    expect(decode.get_by_role("status").filter(has_text="Running your model")).to_be_visible()
    page.clock.run_for(1)
    expect(problem).to_contain_text(
        f"Your model took longer than {shown_seconds(chapter_call_timeout())} s and was stopped. "
        "The labs keep the last good model's numbers",
        timeout=PYTHON_READY_MS,
    )
    page.clock.resume()
    expect(decode.get_by_label(f"Edit {COSTS}")).to_have_value(looping)
    expect_shown(labs, before)
    # Python answers again, with the book's model, once its stopped worker is replaced.
    decode.get_by_role("button", name="Forward").click()
    settled(decode)
    expect(decode.get_by_role("alert").filter(has_text="failed")).to_have_count(0)


def shown_source(region: Locator, path: str) -> str:
    return region.locator(f'figure[data-file="{path}"] pre.code').inner_text()


@each_document
def test_the_disclosure_reads_without_script_and_is_named_in_print(browser: Browser, site_url: Where) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        with audit_page(page, site_url.origin):
            page.goto(site_url.chapter)
            decode = page.get_by_role("region", name=DECODE)
            code = decode.locator(f'figure[data-file="{COSTS}"] pre.code')
            expect(code).to_be_hidden()  # closed by default
            decode.get_by_text("Python: the code behind this lab").click()
            expect(code).to_be_visible()
            assert shown_source(decode, COSTS) == BOOK_COSTS
            expect(decode.get_by_role("button", name="Edit")).to_be_hidden()  # nothing to run it with
            page.emulate_media(media="print")
            expect(code).to_be_hidden()  # not printed, open or not (issue 45: ten of eighteen pages)
            expect(decode.get_by_text("Not printed: the Python behind this lab")).to_contain_text(COSTS)
    finally:
        context.close()


def edit_again(region: Locator) -> None:
    """Edit pressed again in the lab's open disclosure ("Back to the book's model" closes the editor)."""
    region.get_by_role("button", name="Edit").click()


def run_costs(region: Locator, text: str) -> None:
    """Put ``text`` in the open editor's costs.py, and Run."""
    region.get_by_label(f"Edit {COSTS}").fill(text)
    region.get_by_role("button", name="Run").click()


def bad_input_ends_in_a_message_and_back_restores_the_numbers(labs: Mapping[str, Locator]) -> None:
    before = shown_by(labs)
    decode = labs[DECODE]
    problem = decode.get_by_role("alert").filter(has_text="The labs keep")

    run_costs(decode, BOOK_COSTS + "#" + "é" * 100_000)  # any Unicode, past the cap
    expect(problem).to_contain_text("Run takes at most 100,000 a file")

    run_costs(decode, BOOK_COSTS.replace(SQUARE, "return prefill_cost(n + 1, cached)"))
    expect(problem).to_contain_text("RecursionError")
    expect(problem).to_contain_text(f"{COSTS}, line")
    expect_shown(labs, before)

    hungry = BOOK_COSTS.replace(
        SQUARE,
        "import os\n    held = bytearray(100_000_000)\n"
        "    return [(query, range(cached if query < cached else 0, n + len(held) - len(held) + len(os.sep) - 1))"
        " for query in range(n)]",
    )
    run_costs(decode, hungry)
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(f"{COSTS} +3 −1")
    expect_shown(labs, before)  # the same arithmetic, after 100 MB
    decode.get_by_role("button", name="Back to the book's model").click()
    expect(decode.get_by_role("button", name="Back to the book's model")).to_be_hidden()
    expect_shown(labs, before)


def the_readers_code_cannot_reach_the_page(decode: Locator) -> None:
    reaching = BOOK_COSTS.replace(SQUARE, "import js\n    return js.document.title")
    problem = decode.get_by_role("alert").filter(has_text="the model failed")
    expect(problem).to_have_count(0)
    edit_again(decode)
    run_costs(decode, reaching)
    expect(problem).to_contain_text("AttributeError")
    expect(problem).to_contain_text(f"{COSTS}, line")
    expect(problem).not_to_contain_text("bridge.py")


def a_run_keeps_a_run_where_it_is(decode: Locator) -> None:
    for _ in range(2):
        decode.get_by_role("button", name="Forward").click()
    settled(decode)
    request = request_of(decode, decode_lab.LAB)
    assert json.loads(request)["args"]["state"] == {"steps": 2}
    (expected,) = edited_views({COSTS: CAUSAL}, [request])
    yours = decode.get_by_role("status").filter(has_text="Your model")
    expect(yours).to_be_hidden()  # the book's model runs
    run_costs(decode, CAUSAL)
    expect(yours).to_be_visible()
    expect_readouts(decode, decode_lab.LAB, expected["text"])
    expect(decode.get_by_text(expected["text"]["progress"], exact=True)).to_be_visible()


FUTURE = "from __future__ import annotations\n"
DEEP = "a 10⁶-deep json.dumps"
BREAKING = {
    "os._exit": BOOK_COSTS.replace(SQUARE, "import os\n    os._exit(1)"),
    DEEP: BOOK_COSTS.replace(
        SQUARE,
        "import json\n    deep = []\n    for _ in range(10**6):\n        deep = [deep]\n"
        "    return len(json.dumps(deep))",
    ),
    "sys.exit": BOOK_COSTS.replace(SQUARE, "import sys\n    sys.exit()"),
    "KeyboardInterrupt": BOOK_COSTS.replace(SQUARE, "raise KeyboardInterrupt"),
    "a patched json.dumps": BOOK_COSTS.replace(
        FUTURE,
        f"{FUTURE}import json\n_dumps = json.dumps\n"
        "def _marked(value, **options):\n"
        "    if isinstance(value, dict) and isinstance(value.get('result'), dict):\n"
        "        value['result']['text'] = {key: text + '!' for key, text in value['result']['text'].items()}\n"
        "    return _dumps(value, **options)\n"
        "json.dumps = _marked\n",
    ),
    "a patched builtins.sum": BOOK_COSTS.replace(FUTURE, f"{FUTURE}import builtins\nbuiltins.sum = lambda *args: 0\n"),
}
"""What a reader's costs.py may do to the Python it runs in: kill it (an exit; the wasm stack overflowed),
stop it (an exit or an interrupt raised), or change it for every later model (a module's function or a
builtin replaced; those Runs succeed, a model of the reader's)."""
RUN_FAILS = {
    "os._exit": "stopped Python",
    DEEP: "stopped Python",
    "sys.exit": "SystemExit",
    "KeyboardInterrupt": "KeyboardInterrupt",
}
"""The Runs of BREAKING that fail, and what their message says."""
FIRST_FAILS = "os._exit"
"""The first of RUN_FAILS: its Python killed, a call after it is answered by the one left."""
NOT_THE_READERS = re.compile(r"bridge\.py|\.whl|<exec>|/lib/|Traceback|File \"")
"""What of a failure's text is not the reader's code: the bridge's frames, the wheel's path, reader.py's."""
FATAL = "Pyodide has suffered a fatal error"
"""The start of what Pyodide prints on the console (console.error, in lines) when the wasm stack
overflows: its own report, from the worker the page then drops."""


@pytest.mark.parametrize("site_url", ["http"], indirect=True)
def test_back_brings_the_books_numbers_after_any_run_that_broke_python(page: Page, site_url: Where) -> None:
    """Each of BREAKING, on one visit, with the reader's values set (a step taken, request 2 changed):
    with their causal model running, each Run of RUN_FAILS in turn, each in a fresh Python started
    after the last one died or stopped: its message, and the labs keep the causal model's numbers;
    a call after the first (a Python killed) answered by that model. Then "Back to the book's model":
    the book's exact numbers (the model in CPython) at the reader's values, which stay; a call after
    it answered by the book's model. Then each Run of BREAKING that succeeds (a module's function or a
    builtin replaced, for every later model of that Python), each followed by Back the same way. Then
    a model that kills its Python on a later call. Over http only: the Python a Run gets is made from
    the bytes the page holds, however they arrived, and over http nothing may be downloaded again
    (every request is recorded). The page's clock is stopped once the reader's values are set, so
    that a Run which kills its Python however slowly (a 10⁶-deep recursion on a loaded machine) does
    so, and is never stopped by the page's time limit first (seen under load: "took longer than 5 s"
    where "stopped Python" was waited for); the time limit is
    test_a_model_that_never_returns_is_stopped_and_the_page_answers's. The failing Runs share one
    causal Run and one Back (each Run, Back too, starts a fresh Python: about 2 CPU-s, issue 47): what
    Back does, a Run of the book's model in a fresh Python, is the same after any of them, and each
    later Run shows that a fresh Python still starts after the one before broke."""
    with audit_page(page, site_url.origin) as audit:
        open_chapter(page, site_url.chapter)
        labs = regions(page)
        decode, next_lab = labs[DECODE], labs[NEXT]
        next_lab.get_by_label("Request 2", exact=True).fill(one_letter_changed(requests()[1]))
        decode.get_by_role("button", name="Forward").click()
        settled(decode)
        settled(next_lab)
        live_clock(page)
        stop_the_clock(page)
        edit_costs(decode, CAUSAL)
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        run_the_causal_model(labs)
        for name in RUN_FAILS:
            before = len(audit.problems)
            a_run_that_fails(labs, name)
            if name == DEEP:
                pyodides_own_report(audit, before)
            if name == FIRST_FAILS:
                answered_after(labs, {COSTS: CAUSAL})
        back_to_the_books_numbers(labs)
        for name, text in BREAKING.items():
            if name not in RUN_FAILS:
                edit_again(decode)
                a_run_that_changes_its_python_then_back(labs, name, text)
        before = len(audit.problems)
        edit_again(decode)
        a_model_that_kills_python_on_a_later_call_then_back(labs)
        pyodides_own_report(audit, before)
        assert [address for address in asked if not address.startswith("blob:")] == []


def pyodides_own_report(audit: Audit, since: int) -> None:
    """Pyodide reports a fatal error on the console, in lines (FATAL): they are not the page's, whose
    message is the disclosure's or the lab's, and are taken off the audit's problems from ``since``."""
    reported = audit.problems[since:]
    assert any(FATAL in problem for problem in reported), reported
    assert all(problem.startswith("console error: ") for problem in reported), reported
    del audit.problems[since:]


LONG = 40
"""A prefix past the chapter's, which the lab's slider reaches."""


def a_model_that_kills_python_on_a_later_call_then_back(labs: Mapping[str, Locator]) -> None:
    """The reader's model overflows the stack (a deep json.dumps, as in BREAKING) only past a prefix of
    LONG tokens: its Run succeeds; a call past LONG kills the Python that answers it (a Pyodide fatal
    error, after which Pyodide may not be used: the page replaces that worker), and the lab says so in
    a line; the next call (at a value other than the one before, so its readouts differ) is answered
    by the reader's model; then Back, at the reader's values, is the book's."""
    decode = labs[DECODE]
    prompt = decode.get_by_label("Prefix length", exact=True)
    chapter = prompt.input_value()
    assert int(chapter) < LONG
    overflows = BREAKING[DEEP].replace("    import json\n", f"    if n <= {LONG}:\n        {SQUARE}\n    import json\n")
    run_costs(decode, overflows)
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(f"{COSTS} +7 −1")
    prompt.fill(str(LONG + 1))
    failure = decode.get_by_role("alert").filter(has_text="Python failed")
    expect(failure).to_be_visible()
    expect(failure).not_to_contain_text(NOT_THE_READERS)
    prompt.fill(str(int(chapter) + 1))  # not the value before: its readouts differ
    settled(decode)
    (mine,) = edited_views({COSTS: overflows}, [request_of(decode, decode_lab.LAB)])
    expect_readouts(decode, decode_lab.LAB, mine["text"])
    values = [request_of(region, LABS[lab]) for lab, region in labs.items()]
    decode.get_by_role("button", name="Back to the book's model").click()
    expect(decode.get_by_role("button", name="Back to the book's model")).to_be_hidden()
    for (lab, region), view in zip(labs.items(), edited_views({}, values), strict=True):
        expect_readouts(region, LABS[lab], view["text"])


def run_the_causal_model(labs: Mapping[str, Locator]) -> None:
    """The reader's causal model Run from the decode lab's open editor: both labs show its numbers."""
    decode = labs[DECODE]
    values = [request_of(region, LABS[lab]) for lab, region in labs.items()]
    run_costs(decode, CAUSAL)
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(f"{COSTS} +1 −1")
    for (lab, region), view in zip(labs.items(), edited_views({COSTS: CAUSAL}, values), strict=True):
        expect_readouts(region, LABS[lab], view["text"])


def a_run_that_fails(labs: Mapping[str, Locator], name: str) -> None:
    """A Run of BREAKING's ``name`` (one of RUN_FAILS) from the decode lab's open editor, with the
    reader's causal model running: the Run's message, none of it not the reader's, and the labs keep
    what they showed, the reader's values and the causal model's numbers."""
    decode = labs[DECODE]
    values = [request_of(region, LABS[lab]) for lab, region in labs.items()]
    shown = shown_by(labs)
    run_costs(decode, BREAKING[name])
    problem = decode.get_by_role("alert").filter(has_text="The labs keep the last good model's numbers")
    expect(problem).to_contain_text(RUN_FAILS[name], timeout=PYTHON_READY_MS)
    expect(problem).not_to_contain_text(NOT_THE_READERS)
    if RUN_FAILS[name] != "stopped Python":  # raised in prefill_cost: the reader's frames
        expect(problem).to_contain_text(f"{COSTS}, line")
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(f"{COSTS} +1 −1")
    expect_shown(labs, shown)
    assert [request_of(region, LABS[lab]) for lab, region in labs.items()] == values, name


def answered_after(labs: Mapping[str, Locator], edits: Mapping[str, str]) -> None:
    """Forward in the decode lab, answered by the model of ``edits`` (``{}``: the book's)."""
    decode = labs[DECODE]
    decode.get_by_role("button", name="Forward").click()
    settled(decode)
    (after,) = edited_views(edits, [request_of(decode, decode_lab.LAB)])
    expect_readouts(decode, decode_lab.LAB, after["text"])


def back_to_the_books_numbers(labs: Mapping[str, Locator]) -> None:
    """ "Back to the book's model": the book's exact numbers at the reader's values, which stay; then a
    call answered by the book's model. Leaves the editor closed."""
    decode = labs[DECODE]
    values = [request_of(region, LABS[lab]) for lab, region in labs.items()]
    decode.get_by_role("button", name="Back to the book's model").click()
    expect(decode.get_by_role("button", name="Back to the book's model")).to_be_hidden()
    assert [request_of(region, LABS[lab]) for lab, region in labs.items()] == values  # the reader's values
    for (lab, region), view in zip(labs.items(), edited_views({}, values), strict=True):
        expect_readouts(region, LABS[lab], view["text"])
    answered_after(labs, {})


def a_run_that_changes_its_python_then_back(labs: Mapping[str, Locator], name: str, text: str) -> None:
    """``text`` (BREAKING's ``name``, a Run that succeeds) from the decode lab's open editor: the reader's
    model now, lines added at its top; then Back, the book's numbers as :func:`back_to_the_books_numbers`
    reads them (none of the change left in the Python that answers)."""
    decode = labs[DECODE]
    run_costs(decode, text)
    expect(decode.get_by_role("status").filter(has_text="Your model")).to_contain_text(
        f"{COSTS} +{len(text.splitlines()) - len(BOOK_COSTS.splitlines())} −0"
    )
    back_to_the_books_numbers(labs)
