"""The chapter's "Try this" as browser-neutral steps, with the numbers a reader should see.

Firefox (``firefox_driver.mjs``) and WebKit (``webkit.py``) perform the same steps, so the two
suites cannot drift apart. Every step names what a reader sees: a region by its heading, a
control by its role and accessible name, a readout by its label. Expected numbers come from
the model run in CPython on the chapter's own lab parameters, or from the seed where it states them.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from kvpage.labs import decode, next_request

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
    """The page's JavaScript check ``js`` finds no problem."""
    return {"op": "expect_page", "js": js}


SQUARE = "Lab · the square"
"""The kitchen-sink book's lab (its heading)."""


def kitchen_sink_flow(url: str) -> list[Step]:
    """Every construct rendered, once Python runs (the lab's own numbers are Chromium's to check:
    tests/e2e/test_kitchen_sink.py; Firefox's accessibility lookups cost seconds each)."""
    return [open_page(url), renders()]
