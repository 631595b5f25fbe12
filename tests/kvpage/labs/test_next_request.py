"""The next-request lab: shared prefix, cold and cached prefill."""

import pytest

from kvpage.jsonvalue import LabInputError
from kvpage.labs.next_request import MAX_REQUEST_CHARS, compare, visible

ONE = "You are a precise assistant. Answer briefly User: 2+2?"
TWO = "You are a precise assistant. Answer briefly User: 3+3?"


def test_seed_figures() -> None:
    view = compare({"request1": ONE, "request2": TWO})
    assert view["text"] == {
        "shared": "10 / 14 · hit through “:”",
        "cold": "196",
        "cached": "96",
        "request1_cost": "196",
        "request1_tokens": "14",
    }


def test_one_letter_in_the_system_prompt_makes_everything_cold() -> None:
    view = compare({"request1": ONE, "request2": "you" + TWO[3:]})
    assert view["text"]["shared"] == "0 / 14 · no shared prefix"  # type: ignore[index]
    assert view["cold"] == view["cached"] == 196


def test_request_one_sentence_follows_request_one() -> None:
    view = compare({"request1": "Hi there", "request2": TWO})
    assert (view["request1_cost"], view["request1_tokens"]) == (4, 2)


def test_chips_mark_the_shared_prefix() -> None:
    view = compare({"request1": "a b c", "request2": "a b d"})
    assert view["tokens2"] == [
        {"text": "a", "shared": True},
        {"text": " b", "shared": True},
        {"text": " d", "shared": False},
    ]


def test_empty_request_reads_sensibly() -> None:
    view = compare({"request1": ONE, "request2": ""})
    assert view["text"]["shared"] == "0 / 0 · empty request"  # type: ignore[index]
    assert view["cold"] == view["cached"] == 0


def test_whitespace_token_is_drawn() -> None:
    assert visible("  ") == "␠␠"
    assert visible(" User") == "User"


def test_overlong_request_is_refused_with_the_cap() -> None:
    with pytest.raises(LabInputError, match="Request 2 is 2,001 characters; the lab takes at most 2,000"):
        compare({"request1": ONE, "request2": "x" * (MAX_REQUEST_CHARS + 1)})
