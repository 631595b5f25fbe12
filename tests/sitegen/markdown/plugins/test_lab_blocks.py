"""Lab containers: the plugin only parses (lab, starting values, line); fields at their line; the
starting views come from the labs stage, the widgets from the build."""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from kvpage import bridge
from kvpage.lab import Lab, Output, Whole
from kvpage.labs import decode
from sitegen.labs.discovery import all_labs
from sitegen.labs.placements import LabUse, Placement
from sitegen.labs.stage import starting_views
from sitegen.markdown.plugins.env import ChapterEnv, new_env
from sitegen.markdown.plugins.lab_blocks import labs_plugin


def widget(use: LabUse, env: ChapterEnv) -> str:
    return f"<p>controls of {use.kind.name}</p>\n"


def markdown(kinds: dict[str, Lab] | None = None) -> MarkdownIt:
    md = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=3)
    md.use(labs_plugin, kinds=all_labs() if kinds is None else kinds)
    return md


def render(
    text: str, md: MarkdownIt | None = None, path: str = "x.md", handle: Callable[[str], str] = bridge.handle
) -> tuple[list[str], str]:
    """Parse, compute the starting views as the build's labs stage does, render: the errors and the HTML."""
    md = md or markdown()
    env = new_env(path)
    tokens = md.parse(text, env)
    labs = starting_views(env.placements, handle)
    page = md.renderer.render(tokens, md.options, env.rendering(labs.uses, widget))
    return [str(error) for error in sorted([*env.errors, *labs.errors])], page


def test_parsing_records_the_lab_its_values_and_its_line_and_computes_nothing() -> None:
    env = new_env("x.md")
    markdown().parse("Intro.\n\n::: lab decode prompt=4 tokens=2\n## Lab · decode\n:::\n", env)
    (placement,) = env.placements
    assert isinstance(placement, Placement)
    assert (placement.kind, dict(placement.params), placement.line) == (
        decode.LAB,
        {"prompt": 4, "tokens": 2, "mode": "kv"},
        3,
    )
    assert json.loads(placement.request()) == {"lab": "decode", "action": "start", "args": dict(placement.params)}
    assert not env.labs


def test_a_lab_renders_its_region_fields_and_widget() -> None:
    errors, page = render("::: lab decode prompt=4 tokens=2\n## Lab · decode\n\nPaid [[paid]].\n:::\n")
    assert errors == []
    state = json.loads(
        bridge.handle(
            json.dumps({"lab": "decode", "action": "start", "args": {"prompt": 4, "tokens": 2, "mode": "kv"}})
        )
    )["result"]["state"]
    shown = html.escape(json.dumps(state, sort_keys=True), quote=True)
    assert (
        f'<section class="lab lab-decode" data-lab="decode" data-state="{shown}" aria-labelledby="lab--decode">' in page
    )
    assert "data-params" not in page and "data-update" not in page
    assert '<output class="lab-field" data-field="paid" aria-live="off">0\xa0cells</output>' in page
    assert page.endswith("<p>controls of decode</p>\n</section>\n")


def test_a_lab_without_state_has_no_state_attribute() -> None:
    errors, page = render("::: lab square tokens=3\n## Lab · square\n\n[[cells]] cells.\n:::\n")
    assert errors == []
    assert '<section class="lab lab-square" data-lab="square" aria-labelledby="lab--square">' in page
    assert '<output class="lab-field" data-field="cells" aria-live="off">9</output>' in page


def test_fields_are_reported_at_their_own_line() -> None:
    fields = ", ".join(sorted(decode.LAB.fields))
    text = "::: lab decode\n## Lab\n\nOne [[paid]],\ntwo [[nope]],\nthree [[nada]].\n:::\n\nOutside\nand [[paid]].\n"
    assert render(text)[0] == [
        f"x.md:5: lab 'decode' has no field 'nope'; fields: {fields}",
        f"x.md:6: lab 'decode' has no field 'nada'; fields: {fields}",
    ]


def test_a_field_outside_a_lab_is_the_text_as_written() -> None:
    """``[[word]]`` outside a lab is CommonMark's text, not an error (issue 46); inside, it is a field."""
    errors, page = render("Outside [[paid]] and [[a_b]].\n\n::: lab square tokens=3\n## Lab\n\n[[cells]].\n:::\n")
    assert errors == []
    assert "<p>Outside [[paid]] and [[a_b]].</p>" in page
    assert '<output class="lab-field" data-field="cells" aria-live="off">9</output>' in page


def test_a_picture_is_not_a_field() -> None:
    assert render("::: lab decode\n## Lab\n\n[[grid]]\n:::\n")[0] == [
        f"x.md:4: lab 'decode' has no field 'grid'; fields: {', '.join(sorted(decode.LAB.fields))}"
    ]


def test_fields_are_checked_even_when_the_lab_has_bad_parameters() -> None:
    assert render("::: lab decode tokens=0\n## Lab\n\n[[payd]]\n:::\n")[0] == [
        "x.md:1: tokens (Tokens to generate) must be between 1 and 64, not 0",
        f"x.md:4: lab 'decode' has no field 'payd'; fields: {', '.join(sorted(decode.LAB.fields))}",
    ]


def test_every_problem_of_a_lab_line_is_reported() -> None:
    assert render("::: lab decode prompt=x prompt=3 size=2\nNo heading.\n:::\n")[0] == [
        "x.md:1: lab 'decode' has no parameter 'size'; expected mode, prompt, tokens",
        "x.md:1: lab 'decode' must start with a heading that names it (e.g. '## Lab · ...')",
        "x.md:1: lab parameter 'prompt' is given twice",
        "x.md:1: prompt (Prefix length) must be a whole number, not 'x'",
    ]


def test_a_model_failure_at_the_starting_values_is_an_error_at_the_labs_line() -> None:
    def broken(args: Any) -> dict[str, Any]:
        return {"text": {"x": str(1 // (args["n"] - 3))}}

    lab = Lab("broken", {"compute": broken}, "compute", controls=(Whole("n", "N", 1, 9, 3),), outputs=(Output("x"),))
    text = "Intro.\n\n::: lab broken\n## Lab · broken\n:::\n\n::: lab broken n=4\n## Lab · fine\n:::\n"
    errors, page = render(
        text,
        markdown({"broken": lab}),
        "content/x.md",
        lambda request: bridge.handle(request, {"broken": lab}.__getitem__),
    )
    assert errors == [
        "content/x.md:3: lab 'broken' failed at its starting values: "
        "ZeroDivisionError: integer division or modulo by zero"
    ]
    assert page.count("<p>controls of broken</p>") == 1  # the failed one gets no widget
