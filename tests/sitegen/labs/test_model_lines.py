"""Where a lab's failure is in the model: its LAB line, the innermost model frame, its arguments shown short."""

from __future__ import annotations

from kvpage.labs import decode
from sitegen.labs.model_lines import action_at, declared_at, raised_at, raised_note, shown_args
from tests.conftest import ROOT

TRACEBACK = """Traceback (most recent call last):
  File "/lib/kvpage/kvpage-0.1.0-py3-none-any.whl/kvpage/bridge.py", line 63, in handle
  File "/lib/kvpage/kvpage-0.1.0-py3-none-any.whl/kvpage/labs/odd.py", line 12, in compute
ZeroDivisionError: division by zero
"""
"""A model failure as the wheel's Python reports it: the bridge's frame, then the lab's."""


def test_a_lab_is_declared_at_its_LAB_line() -> None:
    path, line = declared_at(ROOT, decode.LAB)
    assert path == "kvpage/labs/decode.py"
    assert (ROOT / path).read_text(encoding="utf-8").splitlines()[int(line) - 1].startswith("LAB = Lab(")


def test_the_innermost_model_frame_is_where_it_raised() -> None:
    assert raised_at(TRACEBACK) == "kvpage/labs/odd.py:12"
    assert raised_at("no frames") == ""


def test_a_picture_refused_is_at_the_lab_s_call_not_inside_the_vocabulary() -> None:
    """Issue 46: a PictureError is the author's call's doing; kvpage/pictures/ is not theirs to fix."""
    refused = TRACEBACK.replace(
        "ZeroDivisionError: division by zero\n",
        '  File "/lib/kvpage/kvpage-0.1.0-py3-none-any.whl/kvpage/pictures/basic.py", line 53, in bar_chart\n'
        '  File "/lib/kvpage/kvpage-0.1.0-py3-none-any.whl/kvpage/tree.py", line 40, in el\n'
        "kvpage.pictures.basic.PictureError: bar 'a': -1 is not between 0 and 1\n",
    )
    assert raised_at(refused) == "kvpage/labs/odd.py:12"
    assert raised_note(refused) == " (raised at kvpage/labs/odd.py:12)"


def test_the_note_names_the_lab_s_frame_never_the_bridge_s_own() -> None:
    assert raised_note(TRACEBACK) == " (raised at kvpage/labs/odd.py:12)"
    only_bridge = TRACEBACK.split("\n  File")[0] + "\n  File" + TRACEBACK.split("\n  File")[1] + "\nValueError: x\n"
    assert raised_at(only_bridge) == "kvpage/bridge.py:63"
    assert raised_note(only_bridge) == ""
    assert raised_note("no frames") == ""


def test_long_arguments_are_cut_to_120_characters() -> None:
    assert shown_args({"prompt": "é"}) == '{"prompt": "é"}'
    shown = shown_args({"text": "x" * 500})
    assert len(shown) == 120 and shown.endswith("...")


def test_an_action_is_at_its_def_line() -> None:
    """A view the page cannot show (NaN, an output missing) is reported at the action's own line too."""
    found = action_at(decode.LAB, decode.LAB.update)
    assert found is not None
    path, line = found
    assert path == "kvpage/labs/decode.py"
    assert (ROOT / path).read_text(encoding="utf-8").splitlines()[line - 1].startswith(f"def {decode.LAB.update}(")
    assert action_at(decode.LAB, "no such action") is None
