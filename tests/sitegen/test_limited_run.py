"""A tool the build runs under a time limit: its output, or the BuildError that says why there is none."""

from __future__ import annotations

import sys

import pytest

from sitegen.errors import BuildError
from sitegen.limited_run import run_limited


def test_a_run_that_finishes_gives_its_output_and_status() -> None:
    done = run_limited([sys.executable, "-c", "print(input()[::-1]); exit(3)"], 30, "reversing", "", text_in="abc")
    assert (done.stdout, done.returncode) == ("cba\n", 3)


def test_a_run_past_its_limit_is_stopped_and_says_what_it_was_doing() -> None:
    with pytest.raises(BuildError) as raised:
        run_limited([sys.executable, "-c", "import time; time.sleep(60)"], 0.5, "sleeping", "")
    assert [str(error) for error in raised.value.errors] == ["sleeping did not finish in 0.5 s and was stopped"]


def test_a_tool_that_is_not_there_says_what_it_is_for() -> None:
    with pytest.raises(BuildError) as raised:
        run_limited(["no-such-tool-here"], 5, "", "the build needs it: run make deps")
    assert [str(error) for error in raised.value.errors] == [
        "no-such-tool-here: not found; the build needs it: run make deps"
    ]
