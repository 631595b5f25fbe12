"""The "turns" lab: with the cache a turn pays for its own tokens; without it, for the whole context."""

import pytest

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import JSONObject, LabInputError
from kvpage.tokenizer import tokenize
from tests.kvpage.shipped import skip_unless_shipped

skip_unless_shipped("turns")  # a book's wheel may leave it out: make pyodide-test runs one

from kvpage.labs.turns import LAB, MAX_TURNS, add, compute, restart  # noqa: E402 - once it is known to be here

SYSTEM = "You are a precise assistant."
ARGS: JSONObject = {"system": SYSTEM, "turn": 10, "cache": True}


def readout(view: JSONObject, name: str) -> int:
    """An output of the view as the number it prints."""
    return int(view["text"][name].replace(",", ""))  # type: ignore[call-overload, index]


def test_the_first_turn_prefills_the_system_prompt_and_the_turn() -> None:
    system = len(tokenize(SYSTEM))
    view = compute(ARGS)
    assert view["state"] == {"turns": 1}
    assert readout(view, "context") == system + 10
    assert readout(view, "last") == readout(view, "total") == prefill_cost(system + 10)
    assert LAB.view_problems(view) == []


def test_with_the_cache_each_turn_pays_only_its_own_rows() -> None:
    system = len(tokenize(SYSTEM))
    view = add({**ARGS, "state": {"turns": 1}})
    assert view["state"] == {"turns": 2}
    assert readout(view, "last") == prefill_cost(system + 20, system + 10)
    assert readout(view, "total") == prefill_cost(system + 10) + prefill_cost(system + 20, system + 10)


def test_without_the_cache_each_turn_pays_the_whole_square_again() -> None:
    system = len(tokenize(SYSTEM))
    view = add({**ARGS, "cache": False, "state": {"turns": 1}})
    assert readout(view, "last") == prefill_cost(system + 20)
    total = prefill_cost(system + 10) + prefill_cost(system + 20)
    assert view["text"]["total"] == f"{total:,}"  # type: ignore[index]


def test_start_over_goes_back_to_one_turn() -> None:
    assert restart({**ARGS, "state": {"turns": 5}})["state"] == {"turns": 1}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({**ARGS, "turn": 0}, "Tokens per turn must be between 1 and 256, not 0"),
        ({**ARGS, "cache": "yes"}, "Keep the KV cache between turns must be on or off"),
        ({**ARGS, "system": "x" * 501}, "System prompt is 501 characters; the lab takes at most 500"),
        ({**ARGS, "state": {"turns": 0}}, f"Turns must be between 1 and {MAX_TURNS}, not 0"),
        ({**ARGS, "state": {"turns": MAX_TURNS}}, f"stops at {MAX_TURNS} turns"),
    ],
)
def test_bad_input_is_refused_with_a_message(args: JSONObject, message: str) -> None:
    with pytest.raises(LabInputError, match=message):
        add(args)


def test_a_link_to_a_conversation_is_its_update_with_the_linked_turns() -> None:
    assert LAB.schema()["resume"] == LAB.update
    linked = LAB.actions[LAB.update]({**ARGS, "state": {"turns": 5}})
    grown = restart(ARGS)
    for _ in range(4):
        grown = add({**ARGS, "state": grown["state"]})
    assert linked == grown and LAB.view_problems(linked) == []


def test_its_declaration_is_sound() -> None:
    assert LAB.problems == ()
    assert {control.widget for control in LAB.controls} == {"text", "slider", "checkbox"}
    assert all(button.calls in LAB.actions for button in LAB.buttons)
