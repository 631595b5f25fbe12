"""The chapter's "Try this" as browser-neutral steps, with the numbers a reader should see.

Firefox (``firefox_driver.mjs``) and WebKit (``webkit.py``) perform the same steps, so the two
suites cannot drift apart. Every step names what a reader sees: a region by its heading, a
control by its role and accessible name, a readout by its label. Expected numbers come from
the model run in CPython on the chapter's own lab parameters, or from the seed where it states them.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from kvpage.labs import decode, next_request
from tests.search_targets import HOSTILE_QUERIES, LONGEST_QUERY, Target, quoted

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "content" / "03-cache.md"
SEED = ROOT / "tests" / "fixtures" / "seed-cache-chapter.txt"

DECODE = "Lab · prefill once, then decode"
NEXT = "Lab · the next request"

Step = dict[str, Any]


def lab_params(kind: str) -> dict[str, str]:
    """The parameters of the chapter's ``::: lab KIND`` line, as the author wrote them."""
    for line in CHAPTER.read_text(encoding="utf-8").splitlines():
        words = shlex.split(line.removeprefix(":::")) if line.startswith("::: lab ") else []
        if words[:2] == ["lab", kind]:
            return dict(word.split("=", 1) for word in words[2:])
    raise LookupError(f"{CHAPTER}: no '::: lab {kind}' line")


def seed_readout(label: str) -> str:
    """What the seed chapter shows after ``label`` (e.g. "Cold prefill: 196" → "196")."""
    for line in SEED.read_text(encoding="utf-8").splitlines():
        if line.startswith(label):
            return line.removeprefix(label).lstrip(": ").strip()
    raise LookupError(f"{SEED}: no line starting {label!r}")


def open_page(url: str) -> Step:
    return {"op": "open", "url": url}


def click(region: str, role: str, name: str) -> Step:
    return {"op": "click", "region": region, "role": role, "name": name}


def fill(region: str, label: str, text: str) -> Step:
    """Replace what the text box labelled ``label`` holds by typing ``text``."""
    return {"op": "fill", "region": region, "role": "textbox", "label": label, "text": text}


def shows(region: str, label: str, text: str) -> Step:
    """The readout (an ``<output>``, role status) labelled ``label`` reads ``text``."""
    return {"op": "expect_text", "region": region, "role": "status", "label": label, "text": text}


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


def decode_flow(url: str) -> list[Step]:
    """Generate with the KV cache; Reset; switch to Recompute; Generate."""
    params = lab_params("decode")
    cold = {"prompt": int(params["prompt"]), "tokens": int(params["tokens"]), "steps": 0}
    kv = decode.finish({"state": {**cold, "mode": "kv"}})["text"]
    recompute = decode.finish({"state": {**cold, "mode": "recompute"}})["text"]
    reset = decode.start({"prompt": cold["prompt"], "tokens": cold["tokens"], "mode": "kv"})["text"]
    return [
        open_page(url),
        legend_beside_choices(DECODE, "Mode"),
        shows(DECODE, "Paid so far", seed_readout("Paid so far")),
        shows(DECODE, "If every step recomputed", seed_readout("If every step recomputed")),
        click(DECODE, "button", "Generate"),
        shows(DECODE, "Paid so far", kv["paid"]),
        shows(DECODE, "If every step recomputed", kv["recompute_total"]),
        click(DECODE, "button", "Reset"),
        shows(DECODE, "Paid so far", reset["paid"]),
        shows(DECODE, "This step", reset["this_step"]),
        click(DECODE, "radio", "Recompute"),
        click(DECODE, "button", "Generate"),
        shows(DECODE, "Paid so far", recompute["paid"]),
        shows(DECODE, "If every step recomputed", recompute["recompute_total"]),
        disabled(DECODE, "button", "Generate"),
    ]


def one_letter_changed(text: str) -> str:
    """The system prompt with one letter changed, as the chapter suggests."""
    return text.replace("precise", "precize", 1)


def next_request_flow(url: str) -> list[Step]:
    """The seed's readouts, then request 2 with one letter changed in the system prompt."""
    params = lab_params("next-request")
    edited = one_letter_changed(params["request2"])
    assert edited != params["request2"], "the seed's request 2 no longer says 'precise'"
    after = next_request.compare({"request1": params["request1"], "request2": edited})["text"]
    return [
        open_page(url),
        shows(NEXT, "Shared prefix", seed_readout("Shared prefix")),
        shows(NEXT, "Cold prefill", seed_readout("Cold prefill")),
        shows(NEXT, "With prefix cache", seed_readout("With prefix cache")),
        fill(NEXT, "Request 2", edited),
        shows(NEXT, "Shared prefix", after["shared"]),
        shows(NEXT, "Cold prefill", after["cold"]),
        shows(NEXT, "With prefix cache", after["cached"]),
    ]


FLOWS = {"decode": decode_flow, "next-request": next_request_flow}


RENDERS = (Path(__file__).with_name("renders.js")).read_text(encoding="utf-8")
"""The kitchen-sink book's rendering checks (JavaScript, run in the page): see renders.js."""


def renders(js: str = RENDERS) -> Step:
    """The page's JavaScript check ``js`` (a function returning the problems it found) finds none,
    once the page has laid itself out; a failure shows the problems."""
    holds = f"() => {{ const problems = ({js.strip().rstrip(';')})(); return problems.length === 0 || problems; }}"
    return page_holds(holds, "every construct of the kitchen-sink book should render")


SQUARE = "Lab · the square"
"""The kitchen-sink book's lab (its heading)."""


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
  if (!heading || !heading.id.startsWith({json.dumps(prefix)})) return false;
  const top = heading.getBoundingClientRect().top;
  const searchable = !document.querySelector("[role=search]").hidden;  // shown once its script has run
  return location.href === {json.dumps(url)} + "#" + heading.id && top > -2 && top < innerHeight && searchable;
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
