"""The added-chapter book's memory lab: the bytes a KV cache holds, and one control of every kind."""

import pytest

from kvpage.jsonvalue import JSONObject, LabInputError
from tests.kvpage.shipped import skip_unless_shipped

skip_unless_shipped("memory")  # a book's wheel may leave it out: make pyodide-test runs one

from kvpage.labs.memory import LAB, compute  # noqa: E402 - once it is known to be here
from kvpage.tokenizer import tokenize  # noqa: E402

START: JSONObject = {"layers": 4, "tokens": 8, "bytes": 2.0, "heads": "own", "cache": True, "prompt": "a b c"}


def test_the_cache_holds_a_key_and_a_value_per_token_and_layer() -> None:
    context = len(tokenize("a b c")) + 8
    assert compute(START)["text"] == {"held": f"{4 * 2 * 8 * 2 * context:,} bytes", "context": str(context)}


def test_shared_heads_hold_a_quarter() -> None:
    own = compute(START)["text"]
    shared = compute({**START, "heads": "shared"})["text"]
    assert isinstance(own, dict) and isinstance(shared, dict)
    assert float(str(own["held"]).split()[0].replace(",", "")) == 4 * float(str(shared["held"]).split()[0])


@pytest.mark.parametrize(
    ("change", "message"),
    [({"layers": 7}, "Layers must be between 1 and 6"), ({"bytes": 0.7}, "Bytes per number"), ({"heads": "all"}, "")],
)
def test_bad_input_is_refused_with_a_message(change: JSONObject, message: str) -> None:
    with pytest.raises(LabInputError, match=message):
        compute({**START, **change})


def test_its_declaration_is_sound_off_by_default_and_every_view_draws_every_part() -> None:
    assert LAB.problems == ()
    assert LAB.experimental
    assert len({type(control) for control in LAB.controls}) == len(LAB.controls) == 6
    for cache in (True, False):
        assert LAB.view_problems(compute({**START, "cache": cache})) == []
