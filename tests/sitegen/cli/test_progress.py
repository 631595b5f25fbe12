"""Progress lines: what a long step is doing, how long it took, or that it failed."""

from __future__ import annotations

import io
import re

import pytest

from sitegen.cli.progress import SILENT, Progress


def test_a_step_says_what_it_does_then_how_long_it_took() -> None:
    stream = io.StringIO()
    progress = Progress(stream)
    with progress.step("building the wheel"):
        assert stream.getvalue() == "building the wheel…"  # shown while the step runs
    progress.note("done")
    assert re.fullmatch(r"building the wheel… \d+\.\d s\ndone\n", stream.getvalue())


def test_a_failing_step_says_so_and_lets_the_error_through() -> None:
    stream = io.StringIO()
    with pytest.raises(ValueError, match="bad"), Progress(stream).step("zipping"):
        raise ValueError("bad")
    assert stream.getvalue() == "zipping… failed\n"


def test_silent_progress_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with SILENT.step("anything"):
        SILENT.note("note")
    assert capsys.readouterr() == ("", "")
