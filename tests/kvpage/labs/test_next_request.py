"""The next-request lab: shared prefix, cold and cached prefill."""

import json
from typing import Any

import pytest

from kvpage.jsonvalue import LabInputError
from kvpage.labs.next_request import LAB, MAX_REQUEST_CHARS, bars, bars_words, chips, compare, tips, visible
from kvpage.tokenizer import tokenize

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
        "bars_words": "Request 2 costs 196 cells cold and 96 with request 1's prefix cached: 100 saved (51%).",
    }
    assert LAB.view_problems(view) == []


def test_one_letter_in_the_system_prompt_makes_everything_cold() -> None:
    view: Any = compare({"request1": ONE, "request2": "you" + TWO[3:]})
    assert view["text"]["shared"] == "0 / 14 · no shared prefix"
    assert view["text"]["cold"] == view["text"]["cached"] == "196"


def test_request_one_sentence_follows_request_one() -> None:
    view: Any = compare({"request1": "Hi there", "request2": TWO})
    assert (view["text"]["request1_cost"], view["text"]["request1_tokens"]) == ("4", "2")


def test_chips_mark_the_shared_prefix_and_flag_the_first_difference() -> None:
    first, second = tokenize("a b c d"), tokenize("a b x d")
    assert chips(second, 2) == [("a", "shared"), ("␣b", "shared"), ("␣x", "differs"), ("␣d", "cold")]
    assert chips(first, 2) == [("a", "shared"), ("␣b", "shared"), ("␣c", "differs"), ("␣d", "cold")]
    assert tips(2, 2, first) == {
        "shared": "reused from the cache",
        "differs": "paid; first difference: request 1 has “c” here",
        "cold": "paid",
    }
    assert tips(1, 2, second)["differs"] == "cached; first difference: request 2 has “x” here"


def test_each_chip_says_what_it_is_and_the_prefix_ends_at_the_last_shared_one() -> None:
    view: Any = compare({"request1": "a b c d", "request2": "a b x d"})
    items = view["parts"]["tokens2"]
    assert [item[1]["data-kind"] for item in items] == ["shared", "shared", "differs", "cold"]
    assert [("data-ends-prefix" in item[1], item[1].get("tabindex")) for item in items] == [
        (False, "0"),
        (True, None),
        (False, None),
        (False, None),
    ]
    drawn, told = items[2][2], items[2][3]
    assert drawn == ["span", {"class": "chip-text", "aria-hidden": "true"}, "␣x"]
    assert told == ["span", {"class": "visually-hidden"}, "#3 “␣x” · paid; first difference: request 1 has “c” here"]


def test_a_longer_request_flags_its_first_token_past_the_other() -> None:
    first, second = tokenize("a b"), tokenize("a b c")
    assert chips(first, 2) == [("a", "shared"), ("␣b", "shared")]
    assert chips(second, 2) == [("a", "shared"), ("␣b", "shared"), ("␣c", "differs")]
    assert tips(2, 2, first)["differs"] == "paid; first token after request 1 ends"


def test_chips_draw_every_whitespace_character() -> None:
    assert "".join(shown for shown, _kind in chips(tokenize("a\n\tb  c"), 0)) == "a⏎⇥b␣␣c"


def test_bars_compare_cold_and_cached_on_one_scale() -> None:
    rows: Any = bars(196, 96)
    fills = [shape for row in rows for shape in row[3][2:] if shape[1]["class"] == "bar-fill"]
    assert [(fill[1]["data-value"], fill[1]["width"]) for fill in fills] == [("196", "100"), ("96", "48.98")]
    assert [row[2][2] for row in rows] == ["Cold prefill", "With prefix cache"]
    assert [row[4][2] for row in rows] == ["196", "96"]
    assert bars_words(196, 96) == (
        "Request 2 costs 196 cells cold and 96 with request 1's prefix cached: 100 saved (51%)."
    )
    assert bars_words(0, 0) == "Request 2 is empty: nothing to prefill, cold or cached."
    assert [fill[1]["width"] for row in bars(0, 0) for fill in row[3][2:] if fill[1]["class"] == "bar-fill"] == [
        "0",
        "0",
    ]


def test_the_view_of_the_longest_request_stays_in_proportion() -> None:
    long = "ab " * (MAX_REQUEST_CHARS // 3)
    view = compare({"request1": long, "request2": long})
    tokens = 2 * len(tokenize(long))
    # A chip is its element tree (kvpage/tree.py): a few hundred bytes, sent with every debounced keystroke.
    assert len(json.dumps(view)) < 250 * tokens


def test_empty_request_reads_sensibly() -> None:
    view: Any = compare({"request1": ONE, "request2": ""})
    assert view["text"]["shared"] == "0 / 0 · empty request"
    assert view["text"]["cold"] == view["text"]["cached"] == "0"
    assert view["parts"]["tokens2"] == []


def test_whitespace_token_is_drawn() -> None:
    assert visible("  ") == "␣␣"
    assert visible(" User") == "User"


def test_overlong_request_is_refused_with_the_cap() -> None:
    with pytest.raises(LabInputError, match="Request 2 is 2,001 characters; the lab takes at most 2,000"):
        compare({"request1": ONE, "request2": "x" * (MAX_REQUEST_CHARS + 1)})
