"""One lab's calls to Python: the page's stage "calls" (``static/kvpage/calls.js``), run under Node.

The queue has no DOM, so these play it against a pool the test holds (``calls_stage.mjs``), with the
decode lab's real schema, and answer each call with what ``kvpage.bridge.handle`` answers to the very
request the queue sent: the order calls go in, the values they carry, which answers are drawn and what
a link's state that does not fit becomes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from kvpage import bridge
from kvpage.labs.decode import LAB as DECODE
from kvpage.labs.decode import MODE, PROMPT, STEPS, TOKENS
from sitegen.site.page_script import contract

CALLS_STAGE = Path(__file__).with_name("calls_stage.mjs")
SECONDS = 5
START = {PROMPT.name: PROMPT.default, TOKENS.name: TOKENS.default, MODE.name: MODE.default}
OTHER = {**START, PROMPT.name: PROMPT.high}
BUTTON = next(button.calls for button in DECODE.buttons if button.calls and button.calls != DECODE.update)


def play(*steps: list[Any]) -> list[dict[str, Any]]:
    """What the queue did, in order, for ``steps`` (calls_stage.mjs says what each step is)."""
    given = {"schema": DECODE.schema(), "seconds": SECONDS, "defines": contract(), "steps": list(steps)}
    done = subprocess.run(
        ["node", str(CALLS_STAGE)], input=json.dumps(given), capture_output=True, text=True, check=True
    )
    log: list[dict[str, Any]] = json.loads(done.stdout)
    return log


def answer(action: str, args: dict[str, Any]) -> str:
    """The model's answer to a call of ``action`` with ``args``, as the worker would return it."""
    return bridge.handle(json.dumps({"lab": DECODE.name, "action": action, "args": args}))


def test_calls_go_one_at_a_time_in_order_each_with_the_values_when_it_goes() -> None:
    state = json.loads(answer(DECODE.update, START))["result"]["state"]
    log = play(
        ["values", START],
        ["request", DECODE.update],
        ["values", OTHER],
        ["state", state],
        ["request", BUTTON, True],
        ["answer", 0, answer(DECODE.update, START)],
        ["answer", 1, answer(BUTTON, {**OTHER, "state": state})],
    )
    assert [next(iter(entry)) for entry in log] == ["sent", "draw", "sent", "draw"]
    assert log[0]["sent"] == {"lab": DECODE.name, "action": DECODE.update, "args": START}
    assert log[2]["sent"] == {"lab": DECODE.name, "action": BUTTON, "args": {**OTHER, "state": state}}
    assert log[1] == {"draw": json.loads(answer(DECODE.update, START)), "paced": False}
    assert log[3]["paced"] is True and log[3]["draw"]["ok"] is True


def test_updates_waiting_are_one_and_an_answer_for_inputs_changed_since_is_never_drawn() -> None:
    log = play(
        ["values", START],
        ["request", DECODE.update],
        ["values", OTHER],
        ["input", PROMPT.name],
        ["input", PROMPT.name],
        ["input", TOKENS.name],
        ["answer", 0, answer(DECODE.update, START)],
        ["answer", 1, answer(DECODE.update, OTHER)],
    )
    assert [entry.get("sent", {}).get("args") for entry in log if "sent" in entry] == [START, OTHER]
    assert [entry["draw"] for entry in log if "draw" in entry] == [json.loads(answer(DECODE.update, OTHER))]


def test_a_links_state_that_does_not_fit_its_values_gives_way_to_an_update_and_says_why() -> None:
    linked = {STEPS.name: START[TOKENS.name] + 1}  # a step past the run's tokens: the model refuses it
    refusal = answer(DECODE.resume, {**START, "state": linked})
    log = play(
        ["values", START],
        ["resume", linked, ["an earlier problem"]],
        ["answer", 0, refusal],
        ["answer", 1, answer(DECODE.update, START)],
    )
    assert log[0]["sent"] == {"lab": DECODE.name, "action": DECODE.resume, "args": {**START, "state": linked}}
    error = json.loads(refusal)["error"]
    assert log[1] == {"note": f"From this page's link, ignored: an earlier problem; steps={linked['steps']} ({error})."}
    assert log[2]["sent"]["action"] == DECODE.update
    assert [entry["draw"] for entry in log if "draw" in entry] == [json.loads(answer(DECODE.update, START))]


def test_a_call_stopped_at_the_time_limit_or_unreachable_is_drawn_as_the_labs_failure() -> None:
    log = play(
        ["values", START],
        ["request", BUTTON, True],
        ["request", DECODE.update],
        ["fail", 0, True, "no answer"],
        ["fail", 1, False, "the worker broke"],
    )
    draws = [entry for entry in log if "draw" in entry]
    assert draws[0]["paced"] is True and draws[0]["draw"]["ok"] is False
    assert f"longer than {SECONDS} s" in draws[0]["draw"]["error"]
    assert draws[1] == {
        "draw": {"ok": False, "error": "the lab could not reach Python: the worker broke"},
        "paced": False,
    }


def test_idle_waits_until_no_call_is_out_and_none_waits() -> None:
    log = play(
        ["values", START],
        ["request", DECODE.update],
        ["request", BUTTON],
        ["idle"],
        ["answer", 0, answer(DECODE.update, START)],
        ["answer", 1, "not JSON"],
    )
    assert [next(iter(entry)) for entry in log] == ["sent", "draw", "sent", "draw", "idle"]
    assert log[3]["draw"]["error"].startswith("the lab could not read Python's answer: ")
