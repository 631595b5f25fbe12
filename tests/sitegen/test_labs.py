"""Lab declarations: ``key=value`` parameters read with the model's own ranges."""

from __future__ import annotations

import pytest

from kvpage.labs import decode, next_request, square
from sitegen.labs import DECODE, LAB_KINDS, NEXT_REQUEST, SQUARE, enabled_kinds, parse_params, split_info


def test_defaults_fill_what_is_not_given() -> None:
    assert parse_params(DECODE, []) == ({"prompt": 16, "tokens": decode.DEFAULT_TOKENS}, [])
    assert parse_params(DECODE, ["tokens=8"]) == ({"prompt": 16, "tokens": 8}, [])


def test_ranges_are_the_models() -> None:
    low, high = decode.PROMPT_RANGE.start, decode.PROMPT_RANGE.stop - 1
    assert parse_params(DECODE, [f"prompt={low}", f"tokens={decode.TOKENS_RANGE.stop - 1}"])[1] == []
    assert parse_params(DECODE, [f"prompt={high + 1}"])[1] == [
        f"prompt (Prefix length) must be between {low} and {high}, not {high + 1}"
    ]


@pytest.mark.parametrize("text", ["many", "1.5", "--5", "+5", "٣", "1_000", "", " 5"])
def test_whole_numbers_are_ascii_digits_with_an_optional_minus(text: str) -> None:
    assert parse_params(DECODE, [f"tokens={text}"])[1] == [
        f"tokens (Tokens to generate) must be a whole number, not {text!r}"
    ]


def test_a_negative_number_is_out_of_range_not_unreadable() -> None:
    assert parse_params(DECODE, ["tokens=-5"])[1] == ["tokens (Tokens to generate) must be between 1 and 64, not -5"]


@pytest.mark.parametrize(
    ("words", "errors"),
    [
        (["prompt"], ["lab parameter 'prompt' is not key=value"]),
        (["steps=3"], ["lab 'decode' has no parameter 'steps'; expected prompt, tokens"]),
        (["prompt=8", "prompt=9"], ["lab parameter 'prompt' is given twice"]),
        (
            ["prompt=0", "prompt=9"],
            ["prompt (Prefix length) must be between 1 and 128, not 0", "lab parameter 'prompt' is given twice"],
        ),
        (["=3"], ["lab 'decode' has no parameter ''; expected prompt, tokens"]),
    ],
)
def test_every_bad_word_is_an_error(words: list[str], errors: list[str]) -> None:
    assert parse_params(DECODE, words)[1] == errors


def test_required_parameters_are_named_once_even_when_their_value_is_bad() -> None:
    too_long = "a" * (next_request.MAX_REQUEST_CHARS + 1)
    assert parse_params(NEXT_REQUEST, [])[1] == [
        "lab 'next-request' needs parameter 'request1'",
        "lab 'next-request' needs parameter 'request2'",
    ]
    assert parse_params(NEXT_REQUEST, [f"request1={too_long}"])[1] == [
        f"request1 is {len(too_long):,} characters; at most {next_request.MAX_REQUEST_CHARS:,} are allowed",
        "lab 'next-request' needs parameter 'request2'",
    ]


def test_text_parameters_keep_their_spaces_and_may_be_empty() -> None:
    words = split_info('lab next-request request1="a  b" request2=')
    assert parse_params(NEXT_REQUEST, words[2:]) == ({"request1": "a  b", "request2": ""}, [])


@pytest.mark.parametrize(
    ("info", "message"),
    [('lab x a="b', "a quote is not closed"), ("lab x a=b\\", "it ends with a lone backslash")],
)
def test_unreadable_quoting_is_explained(info: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        split_info(info)


def test_every_kind_is_registered_under_its_name() -> None:
    names = {"decode": "decode", "next-request": "next-request", "square": "square"}
    assert {name: kind.name for name, kind in LAB_KINDS.items()} == names


def test_only_the_example_lab_is_experimental_and_a_book_turns_it_on() -> None:
    assert [name for name, kind in LAB_KINDS.items() if kind.experimental] == ["square"]
    assert list(enabled_kinds()) == ["decode", "next-request"]
    assert list(enabled_kinds(["square"])) == ["decode", "next-request", "square"]


def test_the_example_lab_reads_its_parameter_with_the_models_range() -> None:
    assert parse_params(SQUARE, []) == ({"tokens": 16}, [])
    top = square.TOKENS_RANGE.stop - 1
    assert parse_params(SQUARE, [f"tokens={top + 1}"])[1] == [
        f"tokens (Tokens) must be between 1 and {top}, not {top + 1}"
    ]
    assert SQUARE.initial({"tokens": 3})["text"] == {"tokens": "3", "cells": "9"}
