"""The decode lab's state machine, as the page drives it, and the view it answers with."""

import json
from typing import Any

import pytest

from kvpage.bridge import handle
from kvpage.costs import MODES, Mode, cumulative_cost, recompute_baseline
from kvpage.jsonvalue import JSONObject, LabInputError
from kvpage.labs.decode import LAB, NO_BREAK, DecodeRun, advance, back, finish, resume, start

CELLS = f"{NO_BREAK}cells"


def controls(prompt: int, tokens: int, mode: str) -> JSONObject:
    """The controls' values, as every call of the page sends them."""
    return {"prompt": prompt, "tokens": tokens, "mode": mode}


def run(prompt: int, tokens: int, mode: str, steps: int) -> JSONObject:
    view = start(controls(prompt, tokens, mode))
    for _ in range(steps):
        view = advance({**controls(prompt, tokens, mode), "state": view["state"]})
    return view


def text(view: JSONObject) -> Any:
    return view["text"]


def number(shown: str) -> int:
    """The number of a readout: ``9,176`` of ``9,176 cells``."""
    return int(shown.split(NO_BREAK)[0].replace(",", ""))


def test_cold_view_matches_the_seed() -> None:
    shown = text(run(16, 16, "kv", 0))
    assert shown["status"] == "cache cold"
    assert {name: shown[name] for name in ("this_step", "paid", "recompute_total", "progress")} == {
        "this_step": "—",
        "paid": f"0{CELLS}",
        "recompute_total": f"256{CELLS}",
        "progress": "step 0 of 16",
    }


def test_every_view_is_one_the_lab_declares() -> None:
    for mode in ("kv", "recompute"):
        for steps in (0, 1, 2, 16):
            assert LAB.view_problems(run(16, 16, mode, steps)) == []


def test_generate_with_kv_cache_pays_616() -> None:
    view = run(16, 16, "kv", 16)
    assert view["state"] == {"steps": 16, "done": True}
    assert (text(view)["paid"], text(view)["recompute_total"]) == (f"616{CELLS}", f"9,176{CELLS}")
    assert text(view)["status"] == "cache warm · 31 slots"


def test_generate_with_recompute_pays_the_baseline_and_says_so() -> None:
    view = run(16, 16, "recompute", 16)
    assert text(view)["paid"] == f"9,176{CELLS}"
    assert text(view)["recompute_total"] == f"9,176{CELLS}, this run"


def test_first_step_is_the_prefill_and_warms_the_cache() -> None:
    view = run(16, 16, "kv", 1)
    assert text(view)["this_step"] == f"256{CELLS}"
    assert text(view)["status"] == "cache warm · 16 slots"


def test_each_step_adds_its_cost() -> None:
    before = text(run(8, 10, "kv", 4))
    after = text(run(8, 10, "kv", 5))
    assert number(after["paid"]) == number(before["paid"]) + number(after["this_step"])


def test_a_finished_run_stays_finished() -> None:
    assert run(4, 3, "kv", 3) == run(4, 3, "kv", 7)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"prompt": 0, "tokens": 16, "mode": "kv"}, "Prefix length must be between 1 and 128"),
        ({"prompt": 129, "tokens": 16, "mode": "kv"}, "Prefix length must be between 1 and 128"),
        ({"prompt": 16, "tokens": 65, "mode": "kv"}, "Tokens to generate must be between 1 and 64"),
        ({"prompt": 16, "tokens": 16, "mode": "fast"}, "Mode must be one of kv, recompute"),
        ({"prompt": "16", "tokens": 16, "mode": "kv"}, "Prefix length must be a whole number"),
        ({"prompt": True, "tokens": 16, "mode": "kv"}, "Prefix length must be a whole number"),
        ({"tokens": 16, "mode": "kv"}, "Prefix length must be a whole number"),
    ],
)
def test_bad_input_is_a_lab_error(args: JSONObject, message: str) -> None:
    with pytest.raises(LabInputError, match=message):
        start(args)


def test_state_with_impossible_steps_is_refused() -> None:
    with pytest.raises(LabInputError, match="Steps taken must be between 0 and 2, not 3"):
        DecodeRun.of({**controls(4, 2, "kv"), "state": {"steps": 3}})


def test_the_state_holds_what_the_controls_do_not_say_and_whether_the_run_is_done() -> None:
    """The controls' values are in the controls (and every call sends them); a view's state is the
    steps taken and ``done``, the model's, which the page's Generate and Forward read."""
    for steps in range(4):
        state = run(4, 3, "kv", steps)["state"]
        assert state == {"steps": steps, "done": DecodeRun(4, 3, "kv", steps).done}
        assert not set(state) & {control.name for control in LAB.controls}


def test_finish_reaches_the_state_generate_reaches_in_one_call() -> None:
    for mode in ("kv", "recompute"):
        cold = start(controls(16, 16, mode))
        assert finish({**controls(16, 16, mode), "state": cold["state"]}) == run(16, 16, mode, 16)
    half = run(8, 10, "kv", 4)
    assert finish({**controls(8, 10, "kv"), "state": half["state"]}) == run(8, 10, "kv", 10)


def test_view_draws_the_grid_and_chart_of_the_same_step() -> None:
    view: Any = run(16, 16, "kv", 5)
    (grid,) = view["parts"]["grid_kv"]
    now = [shape[1] for shape in grid[2:] if shape[1].get("data-kind") == "now"]
    assert [int(box["width"]) * int(box["height"]) for box in now] == [number(view["text"]["this_step"])]
    (chart,) = view["parts"]["per_step"]
    points = [shape[1] for shape in chart[2:] if shape[0] == "circle" and shape[1]["data-series"] == "current"]
    assert [point["data-step"] for point in points] == ["1", "2", "3", "4", "5"]
    assert points[-1]["data-value"] == str(number(view["text"]["this_step"]))


def test_a_link_resumes_the_run_it_names_as_the_steps_would_have_built_it() -> None:
    for mode in ("kv", "recompute"):
        linked = resume({"prompt": 24, "tokens": 16, "mode": mode, "state": {"steps": 7}})
        assert linked == run(24, 16, mode, 7)
        assert LAB.view_problems(linked) == []


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"steps": 17}, "Steps taken must be between 0 and 16, not 17"),
        ({"steps": -1}, "Steps taken must be between 0 and 16, not -1"),
        ({"steps": "7"}, "steps"),
        ({}, "steps"),
    ],
)
def test_a_link_whose_steps_do_not_fit_its_run_is_refused_as_a_value(state: JSONObject, message: str) -> None:
    with pytest.raises(LabInputError, match=message):
        resume({"prompt": 24, "tokens": 16, "mode": "kv", "state": state})
    reply = json.loads(
        handle(
            json.dumps(
                {
                    "lab": "decode",
                    "action": "resume",
                    "args": {"prompt": 24, "tokens": 16, "mode": "kv", "state": state},
                }
            )
        )
    )
    assert reply["ok"] is False and "traceback" not in reply


@pytest.mark.parametrize("mode", MODES)
def test_back_undoes_a_step_and_stops_at_the_cold_run(mode: Mode) -> None:
    for steps in range(1, 9):
        assert back({**controls(8, 8, mode), "state": run(8, 8, mode, steps)["state"]}) == run(8, 8, mode, steps - 1)
    assert back({**controls(8, 8, mode), "state": run(8, 8, mode, 0)["state"]}) == run(8, 8, mode, 0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("prompt", "tokens"), [(16, 16), (1, 64), (128, 64), (3, 1)])
def test_the_ratio_readout_is_the_models_in_both_modes(mode: Mode, prompt: int, tokens: int) -> None:
    assert text(run(prompt, tokens, mode, 0))["ratio"] == "—"
    for steps in {1, min(2, tokens), tokens}:
        kv, recompute = cumulative_cost(prompt, steps, "kv"), recompute_baseline(prompt, steps)
        shown = text(run(prompt, tokens, mode, steps))["ratio"]
        if kv == recompute:
            assert shown == "none fewer yet"
        else:
            times, unit = shown.split(NO_BREAK)
            assert (float(times.removesuffix("×")), unit) == (round(recompute / kv, 1), "fewer cells")


def test_readouts_keep_their_unit_with_their_number() -> None:
    for mode in MODES:
        for steps in (1, 5):
            shown = text(run(16, 16, mode, steps))
            for name in ("this_step", "paid", "recompute_total"):
                assert shown[name].split(NO_BREAK)[1].startswith("cell"), (name, shown[name])


def test_the_summary_names_every_number_of_the_step() -> None:
    """The lab's one live announcement (kind "summary"): the step, then each number with what it
    counts, as the readouts show them; before the first step, the run's controls (a control moved
    starts the run again, and the summary must say something new)."""
    done = text(run(16, 16, "kv", 16))
    assert done["summary"] == "Step 16 of 16: 31 cells this step, 616 paid, 14.9× fewer than recomputing"
    assert done["ratio"] == f"14.9×{NO_BREAK}fewer cells" and done["paid"] == f"616{CELLS}"
    assert text(run(16, 16, "recompute", 16))["summary"] == (
        "Step 16 of 16, recomputing: 961 cells this step, 9,176 paid, 14.9× more than the KV cache"
    )
    assert (
        text(run(16, 16, "kv", 1))["summary"]
        == "Step 1 of 16: 256 cells this step, 256 paid, as many as recomputing so far"
    )
    assert text(run(17, 16, "kv", 0))["summary"] == "Step 0 of 16, KV cache, prefix of 17 tokens: nothing paid yet"
    assert text(run(17, 16, "recompute", 0))["summary"] != text(run(17, 16, "kv", 0))["summary"]
