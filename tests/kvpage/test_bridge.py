"""The bridge answers every request with JSON and never raises."""

import json
import math
from typing import Any

import pytest

from kvpage import bridge
from kvpage.lab import Lab
from kvpage.labs import decode
from tests.kvpage.shipped import absent, shipped


def ask(message: Any) -> Any:
    return json.loads(bridge.handle(message if isinstance(message, str) else json.dumps(message)))


def test_round_trip() -> None:
    reply = ask({"lab": "decode", "action": "start", "args": {"prompt": 16, "tokens": 16, "mode": "kv"}})
    assert reply["ok"] is True
    assert reply["result"]["text"]["recompute_total"] == "256\u00a0cells"


def test_finish_is_one_call_to_the_end_of_the_run() -> None:
    args = {"prompt": 16, "tokens": 16, "mode": "kv", "state": {"steps": 0}}
    reply = ask({"lab": "decode", "action": "finish", "args": args})
    assert reply["result"]["text"]["paid"] == "616\u00a0cells"
    assert reply["result"]["state"]["steps"] == 16


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("not json", "Expecting value"),
        ([1, 2], "a request must be a JSON object"),
        ({"lab": "decode", "action": "fly", "args": {}}, "no action 'fly' in lab 'decode'"),
        ({"lab": "decode", "action": "start"}, "missing field 'args'"),
        ({"lab": "decode", "action": "start", "args": {"prompt": -1, "tokens": 1, "mode": "kv"}}, "between 1 and 128"),
    ],
)
def test_errors_come_back_as_values(message: Any, error: str) -> None:
    reply = ask(message)
    assert reply["ok"] is False
    assert error in reply["error"]


def test_an_internal_failure_is_a_value_too_with_its_traceback_for_the_console(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(args: Any) -> Any:
        raise ZeroDivisionError("boom")

    monkeypatch.setitem(decode.LAB.actions, "start", broken)  # type: ignore[index]
    reply = ask({"lab": "decode", "action": "start", "args": {}})
    assert reply["ok"] is False
    assert reply["error"] == "the model failed: ZeroDivisionError: boom"
    assert 'raise ZeroDivisionError("boom")' in reply["traceback"]
    assert reply["traceback"].rstrip().endswith("ZeroDivisionError: boom")


@pytest.mark.parametrize("name", ["decoder", "Decode", "../decode", "decode.LAB", "chart", "grid", ""])
def test_a_lab_is_found_by_its_exact_name_only(name: str) -> None:
    assert ask({"lab": name, "action": "start", "args": {}}) == {"ok": False, "error": f"no lab {name!r}"}


def test_a_lab_whose_own_import_fails_is_a_model_failure_not_a_missing_lab(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ModuleNotFoundError("No module named 'statistics'", name="statistics")

    monkeypatch.setattr(bridge.importlib, "import_module", missing)
    reply = ask({"lab": "decode", "action": "start", "args": {}})
    assert reply["error"] == "the model failed: ModuleNotFoundError: No module named 'statistics'"


def test_hostile_text_survives_the_round_trip() -> None:
    text = "<script>alert(1)</script>\ud800\u202e\x00"
    reply = ask({"lab": "next-request", "action": "compare", "args": {"request1": text, "request2": text}})
    drawn = [chip[2][2] for chip in reply["result"]["parts"]["tokens2"]]  # each chip's drawn text
    assert "".join(drawn) == text


@pytest.mark.skipif(not shipped("square"), reason=absent("square"))
def test_the_example_lab_is_reachable_through_the_bridge() -> None:
    reply = ask({"lab": "square", "action": "compute", "args": {"tokens": 20}})
    assert reply == {"ok": True, "result": {"text": {"tokens": "20", "cells": "400"}}}


def test_labs_can_be_found_elsewhere_for_the_builds_tests() -> None:
    found = {"square": decode.LAB}.__getitem__
    reply = json.loads(bridge.handle(json.dumps({"lab": "square", "action": "start", "args": {}}), found))
    assert reply["error"] == f"{decode.PROMPT.label} must be a whole number"  # decode's start, found under another name


@pytest.mark.parametrize(
    ("value", "shown", "where"),
    [
        ({"text": {"x": "1"}, "state": {"rate": math.nan}}, "NaN", "view.state.rate"),
        ({"text": {"x": "1"}, "state": [1.0, math.inf]}, "Infinity", "view.state[1]"),
        ({"text": {"x": "1"}, "parts": {"p": [["svg", {}, -math.inf]]}}, "-Infinity", "view.parts.p[0][2]"),
    ],
)
def test_a_view_json_cannot_carry_is_a_failure_naming_the_action_and_the_place(
    value: Any, shown: str, where: str
) -> None:
    """Python's json would write NaN as a bare word no browser reads: the reply says so instead, to the
    reader what happened, and apart, for the author (the build, serve, the page's console), what to do."""
    lab = Lab(name="odd", actions={"compute": lambda args: value}, update="compute")
    text = bridge.handle(json.dumps({"lab": "odd", "action": "compute", "args": {}}), {"odd": lab}.__getitem__)
    reply = json.loads(text, parse_constant=lambda word: pytest.fail(f"the reply holds {word}"))
    assert reply == {
        "ok": False,
        "error": f"the model failed: action 'compute' returned {shown} (at {where})",
        "advice": "JSON has no NaN or Infinity, so the page could not read it: return a text such as 'n/a' instead",
    }
    assert bridge.for_the_author(reply) == f"{reply['error']}; {reply['advice']}"


def test_a_request_is_strict_json_too() -> None:
    reply = ask('{"lab": "square", "action": "compute", "args": {"tokens": NaN}}')
    assert reply == {"ok": False, "error": "a request must be JSON, which has no NaN"}


@pytest.mark.parametrize(
    ("drawn", "refused"),
    [
        ([["svg", {}, *[["rect", {}] for _ in range(bridge.MAX_ELEMENTS)]]], "drew 10,001 elements"),
        ([["p", {}, "x" * bridge.MAX_REPLY_BYTES]], "answered 1,000,"),
        ([["svg", {}, *[["rect", {}] for _ in range(bridge.MAX_ELEMENTS - 1)]]], None),
    ],
)
def test_a_picture_over_the_cap_is_a_failure_and_never_reaches_the_page(drawn: Any, refused: str | None) -> None:
    """A view drawing 200,000 elements was 16.7 MB of JSON for the page to parse: the bridge refuses it."""
    lab = Lab(name="big", actions={"compute": lambda args: {"text": {}, "parts": {"p": drawn}}}, update="compute")
    reply = ask_with({"big": lab}, {"lab": "big", "action": "compute", "args": {}})
    if refused is None:
        assert reply["ok"] is True
    else:
        assert reply["ok"] is False and reply["error"].startswith(f"the model failed: action 'compute' {refused}")
        assert len(json.dumps(reply)) < 1000


def ask_with(labs: dict[str, Lab], message: Any) -> Any:
    return json.loads(bridge.handle(json.dumps(message), labs.__getitem__))
