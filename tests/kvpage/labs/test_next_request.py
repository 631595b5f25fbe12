"""The next-request lab: shared prefix, cold and cached prefill."""

import json
from typing import Any

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


def test_chips_mark_the_shared_prefix_and_flag_the_first_difference() -> None:
    view: Any = compare({"request1": "a b c d", "request2": "a b x d"})
    assert view["tokens2"] == [["a", "shared"], ["␣b", "shared"], ["␣x", "differs"], ["␣d", "cold"]]
    assert view["tokens1"] == [["a", "shared"], ["␣b", "shared"], ["␣c", "differs"], ["␣d", "cold"]]
    assert view["tips2"] == {
        "shared": "reused from the cache",
        "differs": "paid; first difference: request 1 has “c” here",
        "cold": "paid",
    }
    assert view["tips1"]["differs"] == "cached; first difference: request 2 has “x” here"


def test_a_longer_request_flags_its_first_token_past_the_other() -> None:
    view: Any = compare({"request1": "a b", "request2": "a b c"})
    assert view["tokens1"] == [["a", "shared"], ["␣b", "shared"]]
    assert view["tokens2"] == [["a", "shared"], ["␣b", "shared"], ["␣c", "differs"]]
    assert view["tips2"]["differs"] == "paid; first token after request 1 ends"


def test_chips_draw_every_whitespace_character() -> None:
    view: Any = compare({"request1": "x", "request2": "a\n\tb  c"})
    assert "".join(shown for shown, _kind in view["tokens2"]) == "a⏎⇥b␣␣c"


def test_bars_compare_cold_and_cached_on_one_scale() -> None:
    view: Any = compare({"request1": ONE, "request2": TWO})
    assert view["bars"] == {
        "top": 196,
        "bars": [
            {"name": "Cold prefill", "value": 196, "text": "196"},
            {"name": "With prefix cache", "value": 96, "text": "96"},
        ],
        "text": "Request 2 costs 196 cells cold and 96 with request 1's prefix cached: 100 saved (51%).",
    }
    empty: Any = compare({"request1": ONE, "request2": ""})
    assert empty["bars"]["text"] == "Request 2 is empty: nothing to prefill, cold or cached."


def test_chips_stay_small_for_the_longest_request() -> None:
    long = "ab " * (MAX_REQUEST_CHARS // 3)
    assert len(json.dumps(compare({"request1": long, "request2": long}))) < 40 * MAX_REQUEST_CHARS


def test_empty_request_reads_sensibly() -> None:
    view = compare({"request1": ONE, "request2": ""})
    assert view["text"]["shared"] == "0 / 0 · empty request"  # type: ignore[index]
    assert view["cold"] == view["cached"] == 0


def test_whitespace_token_is_drawn() -> None:
    assert visible("  ") == "␣␣"
    assert visible(" User") == "User"


def test_overlong_request_is_refused_with_the_cap() -> None:
    with pytest.raises(LabInputError, match="Request 2 is 2,001 characters; the lab takes at most 2,000"):
        compare({"request1": ONE, "request2": "x" * (MAX_REQUEST_CHARS + 1)})
