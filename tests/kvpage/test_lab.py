"""A lab's declaration: what a link to it carries (its linked state and resume action) is checked with it."""

from __future__ import annotations

import pytest

from kvpage.jsonvalue import JSONObject, LabInputError
from kvpage.lab import DecimalSlider, Lab, Output, Slider, Text, Whole


def view(args: JSONObject) -> JSONObject:
    return {"text": {"total": "1"}, "state": {"k": 1}}


def declared(**given: object) -> Lab:
    fields: dict[str, object] = {
        "name": "fake",
        "actions": {"compute": view},
        "update": "compute",
        "controls": (Slider("n", "Count", 1, 9, 3),),
        "outputs": (Output("total", "Total"),),
    }
    return Lab(**{**fields, **given})  # type: ignore[arg-type]


def test_a_link_resumes_through_the_update_action_unless_the_lab_names_another() -> None:
    assert declared().schema()["resume"] == "compute"
    assert declared(actions={"compute": view, "at": view}, resume="at").schema()["resume"] == "at"
    assert declared(linked_state=(Whole("k", "K", 0, 5, 0),)).schema()["linked_state"] == [
        {"name": "k", "kind": "slider", "label": "K", "low": 0, "high": 5, "range": "between 0 and 5", "default": 0}
    ]


def test_a_linked_state_that_a_link_could_not_carry_is_a_problem_of_the_declaration() -> None:
    lab = declared(
        resume="gone",
        linked_state=(Whole("n", "N", 0, 5, 0), Whole("Bad", "B", 0, 5, 0), Whole("k", "K", 0, 5, 9)),
    )
    assert lab.problems == (
        "resume action 'gone' is not one of its actions",
        "linked state 'Bad' is not a lower-case identifier",
        "linked state 'n' is declared twice, or is also a control's name (a link names both alike)",
        "linked state 'k': default 9 is outside 0..5",
    )


def test_a_control_that_keeps_the_state_is_in_the_schema_and_must_be_a_control_with_state_to_keep() -> None:
    """Decode's mode (issue 45): its input asks for the resume action with the lab's linked state."""
    kept = declared(linked_state=(Whole("k", "K", 0, 5, 0),), keeps_state=("n",))
    assert (kept.problems, kept.schema()["keeps_state"]) == ((), ["n"])
    assert declared().schema()["keeps_state"] == []
    assert declared(keeps_state=("m",)).problems == (
        "keeps_state names 'm', which is not one of its controls",
        "keeps_state needs a linked_state to keep",
    )


def test_a_view_without_the_linked_state_is_not_a_view_of_the_lab() -> None:
    lab = declared(linked_state=(Whole("k", "K", 0, 5, 0), Whole("j", "J", 0, 5, 0)))
    assert lab.view_problems({"text": {"total": "1"}, "state": {"k": 1, "j": True}}) == [
        "its view's state has no whole number 'j', which a link to the lab carries"
    ]
    assert lab.view_problems({"text": {"total": "1"}, "state": {"k": 1, "j": 2}}) == []


def test_a_decimal_slider_moves_in_its_steps_and_its_values_are_the_decimals_written() -> None:
    temperature = DecimalSlider("t", "Temperature", low=0.1, high=2, default=1, step=0.1, examples=(0.5,))
    assert temperature.places == 1 and DecimalSlider("p", "P", 0, 1, 0.5, 0.05).places == 2
    assert temperature.parse("1.1") == 1.1 and repr(temperature.read({"t": 1.1000000000000001})) == "1.1"
    assert temperature.read({"t": 0.1 + 0.2}) == 0.3  # 0.30000000000000004, as JavaScript adds it too
    assert temperature.shown(1) == "1.0"
    for refused in ({"t": 1.15}, {"t": 2.1}, {"t": True}, {"t": "1"}):
        with pytest.raises(LabInputError):
            temperature.read(refused)
    for text in ("1,1", "1e0", "2.1", ".5"):
        with pytest.raises(ValueError, match=r"^t[ :]"):
            temperature.parse(text)
    tried = temperature.tried()
    assert tried[:4] == (1, 0.1, 2, 0.5) and all(temperature.check(value) == value for value in tried)
    schema = declared(controls=(temperature,)).schema()["controls"]
    assert schema == [
        {"name": "t", "kind": "slider", "label": "Temperature", "low": 0.1, "high": 2, "default": 1}
        | {"range": "between 0.1 and 2.0 in steps of 0.1", "step": 0.1, "places": 1}
    ]


def test_a_decimal_on_a_whole_number_control_and_a_default_off_the_steps_are_problems_of_the_declaration() -> None:
    lab = declared(
        controls=(
            Slider("t", "Temperature", low=0.1, high=2, default=1),  # type: ignore[arg-type]
            DecimalSlider("p", "P", low=0, high=1, default=0.33, step=0.1),
            Text("s", "Scores", limit=10, default="1", examples=("x" * 11,)),
        )
    )
    assert lab.problems == (
        "control 't': Slider takes whole numbers, not low=0.1, high=2, default=1; for decimals declare "
        "DecimalSlider('t', ..., step=0.1)",
        "control 'p': default 0.33 is not in 0..1 in steps of 0.1",
        "control 's': example 'xxxxxxxxxxx' is refused: Scores is 11 characters; the lab takes at most 10",
    )


@pytest.mark.parametrize(
    ("control", "outside"),
    [
        (Slider("n", "Count", 1, 9, 3), 10),
        (DecimalSlider("t", "Temperature", low=0.1, high=2, default=1, step=0.1), 2.1),
    ],
)
def test_a_number_controls_range_is_worded_alike_for_the_reader_and_for_a_chapter(
    control: Slider | DecimalSlider, outside: float
) -> None:
    """One range check: the model's refusal and a chapter's ``key=value`` error differ only in whom they name."""
    with pytest.raises(LabInputError) as refused:
        control.check(outside)  # type: ignore[arg-type]
    with pytest.raises(ValueError) as parsed:
        control.parse(str(outside))
    said = str(refused.value).removeprefix(control.label)
    assert said.startswith(" must be between ") and str(parsed.value) == f"{control.name} ({control.label}){said}"
