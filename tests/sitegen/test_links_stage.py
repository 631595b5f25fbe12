"""A lab's state as a link: the page's stage "links" (``static/kvpage/links.js``), run under Node.

The format is read and written from each lab's schema (``kvpage.lab.Lab.schema``), so these tests
hand it the real labs' schemas and values taken from their declarations, and check that what one
side writes the other reads back, that heading anchors survive beside it, and that a hostile or
stale fragment comes back as problems per field, never as values or an exception.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kvpage.jsonvalue import JSONObject
from kvpage.lab import LabInputError, Text, out_of_range, too_long
from kvpage.labs.decode import LAB as DECODE
from kvpage.labs.decode import MODE, PROMPT, STEPS, TOKENS
from kvpage.labs.next_request import LAB as NEXT_REQUEST
from kvpage.labs.next_request import MAX_REQUEST_CHARS
from kvpage.labs.softmax import LAB as SOFTMAX
from kvpage.labs.softmax import SCORES, TEMPERATURE
from kvpage.labs.turns import CACHE, TURN, TURNS
from kvpage.labs.turns import LAB as TURNS_LAB
from sitegen.site.page_script import contract

LINKS_STAGE = Path(__file__).with_name("links_stage.mjs")
NOT_DEFAULT_MODE = next(value for value, _ in MODE.options if value != MODE.default)


def stage(function: str, *args: Any, ids: tuple[str, ...] = ()) -> Any:
    """``function(*args)`` of the stage, as the page runs it; ``ids`` are the page's element ids."""
    call = json.dumps([function, list(args), list(ids), contract()])
    done = subprocess.run(["node", str(LINKS_STAGE)], input=call, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def parsed_lab(fragment: str, schema: JSONObject, ids: tuple[str, ...] = ()) -> Any:
    """The one lab segment of ``fragment`` read against ``schema``."""
    parsed = stage("parseFragment", fragment, ids=ids)
    assert len(parsed["labs"]) == 1, parsed
    return stage("readLab", schema, parsed["labs"][0]["fields"])


def test_a_labs_link_names_every_control_then_its_linked_state_in_their_order() -> None:
    controls = {"prompt": PROMPT.high, "tokens": TOKENS.low, "mode": NOT_DEFAULT_MODE}
    segment = stage("formatLab", "decode", DECODE.schema(), controls, {"steps": STEPS.low + 1})
    assert segment == f"decode:prompt={PROMPT.high},tokens={TOKENS.low},mode={NOT_DEFAULT_MODE},steps={STEPS.low + 1}"
    read = parsed_lab("#" + segment, DECODE.schema())
    assert read == {"controls": controls, "state": {"steps": STEPS.low + 1}, "problems": []}


def test_text_of_any_kind_comes_back_as_it_went() -> None:
    hostile = 'a,b&c=d:e +%#<script>alert("x")</script>\n\t«ü» 2+2?'
    controls = {"request1": hostile, "request2": " "}
    segment = stage("formatLab", "next-request", NEXT_REQUEST.schema(), controls, {})
    assert segment.count(":") == 1 and "&" not in segment and "<" not in segment and " " not in segment
    assert parsed_lab(segment, NEXT_REQUEST.schema())["controls"] == controls


def test_a_checkbox_is_on_or_off() -> None:
    controls = {"system": "hi", "turn": TURN.high, "cache": not CACHE.default}
    segment = stage("formatLab", "turns", TURNS_LAB.schema(), controls, {"turns": TURNS.high})
    assert f"cache={'on' if controls['cache'] else 'off'}" in segment.split(",")
    read = parsed_lab(segment, TURNS_LAB.schema())
    assert read == {"controls": controls, "state": {"turns": TURNS.high}, "problems": []}


def test_a_heading_and_several_labs_share_the_fragment() -> None:
    decode = stage("formatLab", "decode", DECODE.schema(), {"prompt": 2, "tokens": 3, "mode": "kv"}, {"steps": 1})
    other = stage("formatLab", "next-request", NEXT_REQUEST.schema(), {"request1": "a", "request2": "b"}, {})
    fragment = stage("formatFragment", "set-up", [decode, other])
    assert fragment == f"set-up&{decode}&{other}"
    parsed = stage("parseFragment", "#" + fragment, ids=("set-up",))
    assert parsed["heading"] == "set-up" and not parsed["anchor"]
    assert [lab["key"] for lab in parsed["labs"]] == ["decode", "next-request"]
    assert stage("formatFragment", "", [decode]) == decode


def test_an_id_of_the_page_is_an_anchor_as_it_always_was_whatever_it_holds() -> None:
    for fragment, ids in (("#set-up", ("set-up",)), ("#odd:id&x=1", ("odd:id&x=1",)), ("#caf%C3%A9", ("café",))):
        parsed = stage("parseFragment", fragment, ids=ids)
        assert parsed == {"heading": fragment[1:], "labs": [], "anchor": True}
    assert stage("parseFragment", "", ids=()) == {"heading": "", "labs": [], "anchor": False}


def test_a_lab_shown_twice_is_named_by_its_heading() -> None:
    labs = [
        {"name": "decode", "heading": "one"},
        {"name": "next-request", "heading": "x"},
        {"name": "decode", "heading": "two"},
    ]
    assert stage("linkKeys", labs) == ["one", "next-request", "two"]
    parsed = stage("parseFragment", "#" + stage("formatLab", "two", DECODE.schema(), {"prompt": 3}, {}))
    assert parsed["labs"][0]["key"] == "two"


def test_each_field_that_does_not_fit_is_left_out_with_a_problem_the_others_kept() -> None:
    fragment = (
        f"#decode:prompt={PROMPT.high + 1},tokens={TOKENS.low},mode=warp,steps=-1,steps=2,colour=red,"
        f"prompt,tokens={TOKENS.high},mode=%E0%A4%A"
    )
    read = parsed_lab(fragment, DECODE.schema())
    assert read["controls"] == {"tokens": TOKENS.low}
    assert read["state"] == {"steps": 2}
    problems = read["problems"]
    assert len(problems) == 7
    # Worded as the model words the same value (one wording, kvpage.lab.out_of_range).
    assert problems[0] == f"prompt={PROMPT.high + 1} ({out_of_range(PROMPT.label, PROMPT, PROMPT.high + 1)})"
    assert problems[1].startswith("mode=warp (Mode is one of kv, recompute")
    assert problems[2:] == [
        f"steps=-1 ({out_of_range(STEPS.label, STEPS, -1)})",
        "colour (this lab has no such setting)",
        "prompt (no value)",
        "tokens (given twice; the first is kept)",
        "mode (not readable text)",
    ]


def test_text_past_its_limit_and_markup_in_names_are_problems_and_notes_stay_short() -> None:
    long = "x" * 100_000
    fragment = f"#next-request:request1={long},request2=ok,<img src=x onerror=alert(1)>={long}"
    read = parsed_lab(fragment, NEXT_REQUEST.schema())
    assert read["controls"] == {"request2": "ok"}
    # Worded as the model words it (one wording, kvpage.lab.too_long).
    request1 = NEXT_REQUEST.control("request1")
    assert isinstance(request1, Text)
    assert read["problems"][0].endswith(f"({too_long(request1.label, request1, long)})")
    note = stage("linkNote", read["problems"])
    assert note.startswith("From this page's link, ignored: request1=xxxx") and len(note) < 300
    assert "<img src (this lab has no such setting)" in note  # as text: the page sets it as textContent


ASTRAL = "😀"  # one code point, two UTF-16 units
AT_THE_LIMIT = (
    ASTRAL * MAX_REQUEST_CHARS,
    ASTRAL * (MAX_REQUEST_CHARS * 3 // 4),  # issue 34: 1,500 of them, which the model takes
    "e\u0301" * (MAX_REQUEST_CHARS // 2),  # combining marks: two code points each
    "\U0001f469\u200d\U0001f4bb" * (MAX_REQUEST_CHARS // 3),  # a ZWJ sequence: three code points
    "x" * (MAX_REQUEST_CHARS - 1) + ASTRAL,
)


def model_takes(text: str) -> bool:
    """Whether the lab's own declaration (the model's side) takes ``text`` as request 2."""
    try:
        NEXT_REQUEST.control("request2").read({"request2": text})
    except LabInputError:
        return False
    return True


def test_text_as_long_as_the_model_takes_comes_back_from_its_link_and_no_longer() -> None:
    """One length rule, code points, in Python and in the page: astral characters count once."""
    schema = NEXT_REQUEST.schema()
    for text in (*AT_THE_LIMIT, *(text + "x" for text in AT_THE_LIMIT), ASTRAL * (MAX_REQUEST_CHARS + 1)):
        segment = stage("formatLab", "next-request", schema, {"request1": "a", "request2": text}, {})
        read = parsed_lab("#" + segment, schema)
        assert ("request2" in read["controls"]) == model_takes(text), (text[:8], len(text), read["problems"])
        if model_takes(text):
            assert read["controls"]["request2"] == text
    assert all(model_takes(text) for text in AT_THE_LIMIT) and not model_takes(ASTRAL * (MAX_REQUEST_CHARS + 1))


def test_a_note_lists_a_few_problems_and_counts_the_rest() -> None:
    assert stage("linkNote", []) == ""
    note = stage("linkNote", list("abcdefgh"))
    assert note == "From this page's link, ignored: a; b; c; d; e; f; and 2 more."


def test_labs_the_page_does_not_have_are_named_for_the_note() -> None:
    parsed = stage("parseFragment", "#turns:turn=3&decode:prompt=2&%3Cb%3E:x=1&%E0%A4:y=2")
    assert stage("unknownLabs", parsed, ["decode"]) == [
        "turns (no such lab on this page)",
        "<b> (no such lab on this page)",
        "%E0%A4 (no such lab on this page)",
    ]


def test_a_decimal_comes_back_as_written_and_a_value_off_its_steps_is_a_problem() -> None:
    schema = SOFTMAX.schema()
    step = TEMPERATURE.check(TEMPERATURE.default + TEMPERATURE.step)  # 1.1: the model's own rounding
    controls = {"scores": SCORES.examples[0], "temperature": step, "sorted": True}
    segment = stage("formatLab", "softmax", schema, controls, {})
    assert f"temperature={TEMPERATURE.shown(step)}," in segment  # 1.1, never 1.1000000000000001
    assert parsed_lab(segment, schema)["controls"] == controls
    off = f"{step + TEMPERATURE.step / 2:.{TEMPERATURE.places + 1}f}"  # 1.15: half a step off
    read = parsed_lab(f"#softmax:temperature={off}", schema)
    assert read["controls"] == {}
    # Refused as the model refuses it, in the model's words.
    assert read["problems"] == [f"temperature={off} ({out_of_range(TEMPERATURE.label, TEMPERATURE, float(off))})"]
    with pytest.raises(LabInputError):
        TEMPERATURE.read({"temperature": float(off)})
