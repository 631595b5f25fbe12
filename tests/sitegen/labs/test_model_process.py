"""The build's model calls run in a child Python that a call past the limit cannot hang."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitegen.labs.model_process import CallTimedOut, ModelProcess, ModelStopped

SQUARE = json.dumps({"lab": "square", "action": "compute", "args": {"tokens": 20}})
LOOP = json.dumps({"lab": "runaway", "action": "loop", "args": {"n": 3}})


def test_calls_answer_as_the_bridge_does_one_process_for_all() -> None:
    with ModelProcess(timeout=60) as model:
        first = json.loads(model.handle(SQUARE))
        process = model.process
        second = json.loads(model.handle(SQUARE.replace("20", "3")))
        assert model.process is process, "each call started a process of its own"
    assert first == {"ok": True, "result": {"text": {"tokens": "20", "cells": "400"}}}
    assert second["result"]["text"]["cells"] == "9"
    assert model.process is None


def test_a_call_past_the_limit_is_stopped_and_the_next_call_gets_a_fresh_process() -> None:
    with ModelProcess(timeout=1) as model:
        with pytest.raises(CallTimedOut, match=r"^did not finish in 1 s$"):
            model.handle(LOOP)
        assert model.process is None, "the looping process was left running"
        assert json.loads(model.handle(SQUARE))["ok"] is True


def test_what_the_model_prints_does_not_reach_the_replies(tmp_path: Path) -> None:
    """A print in a lab goes to stderr; the replies stay one JSON line each."""
    (tmp_path / "kvpage").mkdir()
    (tmp_path / "kvpage" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "kvpage" / "bridge.py").write_text(
        "def handle(request):\n    print('noise')\n    return request.strip().upper()\n", encoding="utf-8"
    )
    with ModelProcess(timeout=60, home=tmp_path) as model:
        assert model.handle('"a"') == '"A"'
        assert model.handle('"b"') == '"B"'


def test_a_model_that_cannot_start_is_a_stop_not_a_hang(tmp_path: Path) -> None:
    (tmp_path / "kvpage").mkdir()
    (tmp_path / "kvpage" / "__init__.py").write_text("raise SystemExit(3)\n", encoding="utf-8")
    with ModelProcess(timeout=60, home=tmp_path) as model, pytest.raises(ModelStopped):
        model.handle(SQUARE)
