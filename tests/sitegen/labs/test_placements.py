"""The build's view of the labs: ``key=value`` read by the lab's own controls, and one guard.

The guard (the last tests) proves that every declared lab has a template whose
controls, buttons and readouts are exactly its declaration's, that every lab
script registers a lab that exists, and that the bridge finds each lab by its
name. Nothing here lists the labs: adding one is covered without an edit.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from kvpage import bridge
from kvpage.catalog import find_labs, misnamed
from kvpage.jsonvalue import JSONObject, LabInputError
from kvpage.lab import (
    Button,
    Checkbox,
    Choice,
    DecimalSlider,
    Lab,
    Number,
    Output,
    ParamsRefused,
    Slider,
    Text,
    Whole,
)
from kvpage.labs import decode, next_request
from sitegen.labs.discovery import all_labs, enabled_labs
from sitegen.labs.model_process import CallTimedOut
from sitegen.labs.placements import LabUse, Placement, split_info
from sitegen.labs.stage import lab_stage, starting_view, starting_views, swept, swept_once, warm_up
from sitegen.site.templates import DEFAULT_LAB, make_templates

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[3]
LABS = find_labs()
DECODE = decode.LAB
NEXT_REQUEST = next_request.LAB


def parse_params(lab: Lab, words: list[str]) -> tuple[dict[str, object], list[str]]:
    """``Lab.parse_params``'s values, or every problem it refused them with."""
    try:
        return dict(lab.parse_params(words)), []
    except ParamsRefused as refused:
        return {}, list(refused.problems)


def started(placement: Placement, handle: object = bridge.handle) -> LabUse | str:
    """``starting_view``'s lab, or what its first error (the one at the chapter's line) says."""
    found = starting_view(placement, handle)  # type: ignore[arg-type]
    if found.uses:
        return found.uses[placement.key]
    assert found.errors[0].where == f"{placement.path}:{placement.line}"
    return found.errors[0].message


def test_defaults_fill_what_is_not_given() -> None:
    defaults = {control.name: control.default for control in DECODE.controls}
    assert parse_params(DECODE, []) == (defaults, [])
    assert parse_params(DECODE, ["tokens=8"]) == ({**defaults, "tokens": 8}, [])


def test_ranges_are_the_models() -> None:
    low, high = decode.PROMPT.low, decode.PROMPT.high
    assert parse_params(DECODE, [f"prompt={low}", f"tokens={decode.TOKENS.high}"])[1] == []
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


def test_choices_and_checkboxes_read_their_words() -> None:
    assert parse_params(DECODE, ["mode=recompute"])[0]["mode"] == "recompute"
    assert parse_params(DECODE, ["mode=fast"])[1] == ["mode (Mode) must be one of kv, recompute, not 'fast'"]
    box = Lab("x", {"a": lambda args: args}, "a", controls=(Checkbox("on", "On"),))
    assert parse_params(box, ["on=yes"]) == ({"on": True}, [])
    assert parse_params(box, ["on=maybe"])[1] == ["on (On) must be true or false, not 'maybe'"]


@pytest.mark.parametrize(
    ("words", "errors"),
    [
        (["prompt"], ["lab parameter 'prompt' is not key=value"]),
        (["steps=3"], ["lab 'decode' has no parameter 'steps'; expected mode, prompt, tokens"]),
        (["prompt=8", "prompt=9"], ["lab parameter 'prompt' is given twice"]),
        (
            ["prompt=0", "prompt=9"],
            ["prompt (Prefix length) must be between 1 and 128, not 0", "lab parameter 'prompt' is given twice"],
        ),
        (["=3"], ["lab 'decode' has no parameter ''; expected mode, prompt, tokens"]),
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
        f"request1 (Request 1) is {len(too_long):,} characters; "
        f"the lab takes at most {next_request.MAX_REQUEST_CHARS:,}",
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


def placed(lab: Lab, params: dict[str, object] | None = None) -> Placement:
    return Placement(lab, params or {}, f"lab-{lab.name}", "content/x.md", 3)  # type: ignore[arg-type]


def own(*labs: Lab) -> object:
    """The bridge's handle with these labs, for labs that are not kvpage's."""
    found = {lab.name: lab for lab in labs}.__getitem__
    return lambda request: bridge.handle(request, found)


def test_the_starting_view_is_the_pages_own_call_through_the_bridge() -> None:
    sent: list[str] = []

    def handle(request: str) -> str:
        sent.append(request)
        return bridge.handle(request)

    use = started(placed(DECODE, {"prompt": 4, "tokens": 2, "mode": "kv"}), handle)
    assert isinstance(use, LabUse)
    assert [json.loads(request) for request in sent] == [
        {"lab": "decode", "action": "start", "args": {"prompt": 4, "tokens": 2, "mode": "kv"}}
    ]
    assert use.view == json.loads(bridge.handle(sent[0]))["result"]


def test_a_model_failure_at_the_starting_values_is_a_sentence_for_the_author() -> None:
    def broken(args: object) -> dict[str, object]:
        return {"text": {"x": str(1 // 0)}}

    lab = Lab("broken", {"compute": broken}, "compute")  # type: ignore[dict-item]
    assert started(placed(lab), own(lab)) == (  # type: ignore[arg-type]
        "lab 'broken' failed at its starting values: ZeroDivisionError: integer division or modulo by zero"
    )


def test_a_refusal_and_a_missing_output_at_the_starting_values_are_errors_too() -> None:
    assert started(placed(DECODE, {"prompt": 500, "tokens": 1, "mode": "kv"})) == (
        "lab 'decode' refuses its starting values: Prefix length must be between 1 and 128, not 500"
    )
    lab = Lab("short", {"compute": lambda args: {"text": {}}}, "compute", outputs=(Output("paid"),))
    assert started(placed(lab), own(lab)) == "lab 'short': its view has no text for output(s) paid"  # type: ignore[arg-type]
    extra = Lab("extra", {"compute": lambda args: {"text": {}, "paid": 3}}, "compute")
    assert started(placed(extra), own(extra)) == (  # type: ignore[arg-type]
        "lab 'extra': its view has 'paid', which a view does not carry"
    )
    drawn = Lab("drawn", {"compute": lambda args: {"text": {}, "parts": {"p": [["script", {}]]}}}, "compute")
    drawn = Lab("drawn", drawn.actions, "compute", outputs=(Output("p", kind="picture"),))
    assert started(placed(drawn), own(drawn)) == (  # type: ignore[arg-type]
        "lab 'drawn': its part 'p' is not a tree: element 'script' is not one a lab may draw"
    )


def test_the_labs_stage_reports_each_failure_at_its_line_and_keeps_the_others() -> None:
    good = placed(DECODE, {"prompt": 4, "tokens": 2, "mode": "kv"})
    bad = Placement(DECODE, {"prompt": 500, "tokens": 1, "mode": "kv"}, "b", "content/y.md", 9)
    labs = starting_views([good, bad])
    assert list(labs.uses) == [good.key]
    assert [str(error) for error in labs.errors] == [
        "content/y.md:9: lab 'decode' refuses its starting values: Prefix length must be between 1 and 128, not 500"
    ]


def test_a_starting_view_that_does_not_finish_in_time_names_the_lab_action_and_args() -> None:
    def slow(request: str) -> str:
        raise CallTimedOut(10)

    assert started(placed(DECODE, {"prompt": 4, "tokens": 2, "mode": "kv"}), slow) == (
        'lab \'decode\' action \'start\' did not finish in 10 s (args {"prompt": 4, "tokens": 2, "mode": "kv"})'
    )


def test_the_warm_up_calls_every_action_and_reports_failures_at_the_labs_declaration() -> None:
    def divide(args: object) -> dict[str, object]:
        return {"text": {"x": str(1 // 0)}}

    lab = Lab("odd", {"compute": lambda args: {"text": {}}, "step": divide}, "compute")  # type: ignore[dict-item]
    (error,) = warm_up([lab], own(lab), ROOT)  # type: ignore[arg-type]
    assert str(error) == (
        "kvpage/labs/odd.py:1: lab 'odd' action 'step' failed at build-time warm-up (args {}): "
        "the model failed: ZeroDivisionError: integer division or modulo by zero"
    )


def test_the_labs_stage_stops_a_looping_lab_and_leaves_its_other_calls_out(tmp_path: Path) -> None:
    """The runaway lab loops when ``rounds`` is not given: its starting view is the loop, with a
    1 s limit, and its warm-up is left out (it would only say the same after another second)."""
    runaway = all_labs()["runaway"]
    looping = Lab("runaway", runaway.actions, "loop", controls=runaway.controls, experimental=True)
    stage = lab_stage([placed(looping, {"n": 3})], {"runaway": runaway}, ROOT, timeout=1)
    assert [str(error) for error in stage.errors] == [
        "content/x.md:3: lab 'runaway' action 'loop' did not finish in 1 s (args {\"n\": 3})"
    ]


def test_experimental_labs_are_off_until_a_book_turns_them_on() -> None:
    experimental = sorted(name for name, lab in LABS.items() if lab.experimental)
    assert experimental, "the example lab is experimental"
    assert set(enabled_labs(labs=LABS)) == {name for name, lab in LABS.items() if not lab.experimental}
    assert set(enabled_labs(experimental[:1], LABS)) == set(enabled_labs(labs=LABS)) | {experimental[0]}


# ---- the guard: declarations, templates, scripts and the bridge agree -----------------------


class _Marks(HTMLParser):
    """The data attributes a lab template printed, and the elements they sit on."""

    def __init__(self) -> None:
        super().__init__()
        self.controls: list[tuple[str, dict[str, str | None]]] = []
        self.actions: list[str] = []
        self.fields: list[tuple[str, str]] = []
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("data-control"):
            self.controls.append((str(found["data-control"]), {"tag": tag, **found}))
        if found.get("data-action"):
            self.actions.append(str(found["data-action"]))
        if found.get("data-field"):
            self.fields.append((tag, str(found["data-field"])))
        if found.get("data-part"):
            self.parts.append(str(found["data-part"]))


def rendered(lab: Lab) -> _Marks:
    params, errors = parse_params(lab, [f"{c.name}=x" for c in lab.controls if c.default is None])
    assert errors == [], errors
    use = started(Placement(lab, params, f"lab-{lab.name}", "content/x.md", 1))
    assert isinstance(use, LabUse), use
    html = make_templates(ROOT / "site_template").render((f"labs/{lab.name}.html", DEFAULT_LAB), lab=use)
    marks = _Marks()
    marks.feed(html)
    return marks


WIDGETS = {Slider: ("input", "range"), Number: ("input", "number"), Checkbox: ("input", "checkbox")}


@pytest.mark.parametrize("name", sorted(LABS))
def test_every_lab_is_declared_soundly_and_found_by_the_bridge(name: str) -> None:
    lab = LABS[name]
    assert lab.problems == ()
    assert bridge.lab_named(name) is lab
    assert misnamed() == []


@pytest.mark.parametrize("name", sorted(LABS))
def test_every_labs_template_prints_exactly_its_declaration(name: str) -> None:
    lab = LABS[name]
    marks = rendered(lab)
    assert sorted({control for control, _ in marks.controls}) == sorted(c.name for c in lab.controls)
    for control, attrs in marks.controls:
        declared = lab.control(control)
        if isinstance(declared, Whole):
            assert (attrs["tag"], attrs["type"]) == WIDGETS[type(declared)]
            assert (attrs["min"], attrs["max"]) == (str(declared.low), str(declared.high))
        elif isinstance(declared, DecimalSlider):
            assert (attrs["tag"], attrs["type"]) == ("input", "range")
            shown = (declared.shown(declared.low), declared.shown(declared.high), declared.shown(declared.step))
            assert tuple(float(attrs[key]) for key in ("min", "max", "step")) == tuple(map(float, shown))
        elif isinstance(declared, Checkbox):
            assert (attrs["tag"], attrs["type"]) == WIDGETS[Checkbox]
        elif isinstance(declared, Choice):
            assert attrs["type"] == "radio" and attrs["value"] in dict(declared.options)
        else:
            assert isinstance(declared, Text) and attrs["tag"] == "textarea"
    assert sorted(marks.actions) == sorted(button.name for button in lab.buttons)
    readouts = [name for tag, name in marks.fields if tag == "output"]
    assert sorted(readouts) == sorted(o.name for o in lab.outputs if o.kind == "text" and o.label)
    lines = {name for _, name in marks.fields}
    assert {o.name for o in lab.outputs if o.kind in ("status", "progress", "summary")} <= lines
    assert lines <= lab.fields, "a [data-field] for no text output"
    assert sorted(marks.parts) == sorted(lab.parts), "every picture, table and list in exactly one [data-part]"


def lab_scripts() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in (ROOT / "site_template/static/labs").glob("*.js")}


def test_every_lab_script_registers_the_lab_it_is_named_after() -> None:
    for stem, code in lab_scripts().items():
        assert stem in LABS, f"static/labs/{stem}.js: there is no lab {stem!r}"
        assert re.findall(r"kvpageLabs\.register\(\"([^\"]+)\"", code) == [stem]


@pytest.mark.parametrize("name", sorted(LABS))
def test_a_button_left_to_the_labs_own_script_has_one(name: str) -> None:
    if any(not button.calls for button in LABS[name].buttons):
        assert name in lab_scripts()


def test_a_broken_declaration_or_a_stray_lab_script_fails_the_build_at_its_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sitegen.labs import declarations as build_labs
    from sitegen.labs.declarations import declaration_errors
    from sitegen.labs.model_lines import declared_at

    broken = Lab(
        "decode",
        {"start": decode.start},
        "start",
        buttons=(decode.Button("go", "Go", action="fly"),),
    )
    monkeypatch.setattr(build_labs, "all_labs", lambda: {"decode": broken})
    where = ":".join(map(str, declared_at(ROOT, broken)))
    assert [str(error) for error in declaration_errors(ROOT, {"static/labs/decode.js", "static/labs/ghost.js"})] == [
        f"{where}: lab 'decode': button 'go' calls 'fly', which is not one of its actions",
        "site_template/static/labs/ghost.js: there is no lab 'ghost'",
    ]


def test_the_real_declarations_have_no_errors() -> None:
    from sitegen.labs.declarations import declaration_errors
    from sitegen.site.assemble import static_names

    assert declaration_errors(ROOT, set(static_names(ROOT / "site_template" / "static"))) == []


def test_a_failure_inside_the_model_names_the_line_that_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decode, "count", None)
    source = (ROOT / "kvpage" / "labs" / "decode.py").read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(source, 1) if "{count(n)}" in text)  # decode.cells
    assert started(placed(DECODE, {"prompt": 4, "tokens": 2, "mode": "kv"})) == (
        "lab 'decode' failed at its starting values: TypeError: 'NoneType' object is not callable "
        f"(raised at kvpage/labs/decode.py:{line})"
    )


def sweeping_lab() -> Lab:
    """A lab right at its start and wrong elsewhere: a failure at 0, a refusal at 2 (the lab's own
    message to the reader, which passes), a view that is not its own at 6, and a button that fails."""
    tokens = Number("tokens", "Tokens", low=0, high=8, default=4)

    def compute(args: JSONObject) -> JSONObject:
        value = tokens.read(args)
        if value == 2:
            raise LabInputError("two tokens are too few")
        if value == 6:
            return {"text": {}}
        return {"text": {"share": str(100 // value)}}

    def clear(args: JSONObject) -> JSONObject:
        raise KeyError("nothing to clear")

    return Lab(
        "sweeping",
        {"compute": compute, "clear": clear},
        "compute",
        controls=(tokens,),
        outputs=(Output("share", "Share"),),
        buttons=(Button("clear", "Clear"),),
    )


def test_the_sweep_calls_each_value_a_reader_reaches_and_each_button_and_names_every_failure() -> None:
    """(The model's own line of a failure, for a lab in kvpage/, is tests/invalid/lab-sweep's.)"""
    lab = sweeping_lab()
    use = started(placed(lab, {"tokens": 4}), own(lab))  # type: ignore[arg-type]
    assert isinstance(use, LabUse)
    lowest, highest, quarters = 0, 8, (2, 6)  # the default, 4, is the start: not called again
    assert lab.sweep_calls(use.params, None) == [
        *(("compute", {"tokens": value}) for value in (lowest, highest, *quarters)),
        ("clear", {"tokens": 4}),
    ]
    assert [str(error) for error in swept(use, own(lab))] == [  # type: ignore[arg-type]
        "content/x.md:3: lab 'sweeping' failed when swept, action 'compute' at {\"tokens\": 0}: ZeroDivisionError: "
        "integer division or modulo by zero",
        "content/x.md:3: lab 'sweeping' swept at {\"tokens\": 6}: its view has no text for output(s) share",
        "content/x.md:3: lab 'sweeping' failed when swept, action 'clear' from its starting values: KeyError: "
        "'nothing to clear'",
    ]


def test_a_lab_placed_alike_in_many_chapters_is_computed_and_swept_once_each_failure_at_each_line() -> None:
    lab = sweeping_lab()
    asked: list[str] = []

    def counted(request: str) -> str:
        asked.append(request)
        return str(own(lab)(request))  # type: ignore[operator]

    here = placed(lab, {"tokens": 4})
    alike = Placement(lab, {"tokens": 4}, "lab-sweeping", "content/y.md", 7)
    labs = starting_views([here, alike], counted)
    assert len(asked) == 1
    errors = swept_once(labs.uses.values(), counted)
    assert len(asked) == 1 + len(lab.sweep_calls(here.params, None))
    one = [str(error) for error in swept(labs.uses[here.key], own(lab))]  # type: ignore[arg-type]
    assert [str(error) for error in errors] == [
        *one,
        *(error.replace("content/x.md:3", "content/y.md:7") for error in one),
    ]
