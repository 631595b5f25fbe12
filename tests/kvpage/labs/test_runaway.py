"""The "runaway" fixture lab: its update answers at once; its loop returns only when told how long."""

import time

import pytest

from kvpage.jsonvalue import LabInputError
from tests.kvpage.shipped import skip_unless_shipped

skip_unless_shipped("runaway")  # a book's wheel may leave it out: make pyodide-test runs one

from kvpage.labs.runaway import LAB, NUMBER, compute, loop, think  # noqa: E402 - once it is known to be here


def test_the_slider_squares_its_number() -> None:
    assert compute({"n": 7}) == {"text": {"square": "49"}}
    assert LAB.view_problems(compute({"n": NUMBER.default})) == []


def test_the_loop_returns_when_it_is_given_rounds_as_the_warm_up_does() -> None:
    assert loop({"n": 3, "rounds": 1000}) == compute({"n": 3})
    warm_up = dict(LAB.warm_up)
    assert isinstance(warm_up["loop"]["rounds"], int) and warm_up["think"]["seconds"] == 0


def test_thinking_takes_the_time_it_is_given_then_answers() -> None:
    started = time.monotonic()
    assert think({"n": 4, "seconds": 0.05}) == compute({"n": 4})
    assert time.monotonic() - started >= 0.05
    with pytest.raises(LabInputError, match="seconds must be a number from 0 to 10"):
        think({"n": 4, "seconds": 11})


def test_rounds_must_be_a_whole_number() -> None:
    with pytest.raises(LabInputError, match="rounds must be a whole number"):
        loop({"n": 3, "rounds": True})


def test_it_is_a_fixture_no_book_shows_unless_it_asks() -> None:
    assert LAB.experimental
    assert LAB.problems == ()
