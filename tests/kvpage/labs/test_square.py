"""The example lab: a cold prefill of n tokens pays n² cells, and bad input is a message."""

import pytest

from kvpage.jsonvalue import LabInputError
from tests.kvpage.shipped import skip_unless_shipped

skip_unless_shipped("square")  # a book's wheel may leave it out: make pyodide-test runs one

from kvpage.labs.square import LAB, TOKENS, compute  # noqa: E402 - once it is known to be here


def test_sixteen_tokens_pay_the_seed_256() -> None:
    assert compute({"tokens": 16}) == {"text": {"tokens": "16", "cells": "256"}}


def test_large_counts_are_printed_with_separators() -> None:
    assert compute({"tokens": TOKENS.high})["text"] == {"tokens": "256", "cells": "65,536"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"tokens": 0}, "Tokens must be between 1 and 256, not 0"),
        ({"tokens": 257}, "Tokens must be between 1 and 256, not 257"),
        ({"tokens": "16"}, "Tokens must be a whole number"),
        ({"tokens": True}, "Tokens must be a whole number"),
        ({}, "Tokens must be a whole number"),
    ],
)
def test_bad_input_is_refused_with_a_message(args: dict[str, object], message: str) -> None:
    with pytest.raises(LabInputError, match=message):
        compute(args)  # type: ignore[arg-type]


def test_its_declaration_is_sound_and_off_by_default() -> None:
    assert LAB.problems == ()
    assert LAB.experimental
    assert LAB.actions[LAB.update] is compute
    assert LAB.view_problems(compute({"tokens": 3})) == []
