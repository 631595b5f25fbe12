"""A lab's declaration: what a link to it carries (its linked state and resume action) is checked with it."""

from __future__ import annotations

from kvpage.jsonvalue import JSONObject
from kvpage.lab import Lab, Output, Slider, Whole


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
        {"name": "k", "kind": "slider", "label": "K", "low": 0, "high": 5, "default": 0}
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


def test_a_view_without_the_linked_state_is_not_a_view_of_the_lab() -> None:
    lab = declared(linked_state=(Whole("k", "K", 0, 5, 0), Whole("j", "J", 0, 5, 0)))
    assert lab.view_problems({"text": {"total": "1"}, "state": {"k": 1, "j": True}}) == [
        "its view's state has no whole number 'j', which a link to the lab carries"
    ]
    assert lab.view_problems({"text": {"total": "1"}, "state": {"k": 1, "j": 2}}) == []
