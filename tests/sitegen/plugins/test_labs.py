"""Lab containers: checked after parsing, fields at their line, widgets from the build."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from sitegen.labs import LabUse, all_labs
from sitegen.plugins.env import new_env
from sitegen.plugins.labs import labs_plugin


def widget(use: LabUse, env: MutableMapping[str, Any]) -> str:
    return f"<p>controls of {use.kind.name}</p>\n"


def render(text: str) -> tuple[list[str], str]:
    md = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=3)
    md.use(labs_plugin, kinds=all_labs(), widget=widget)
    env = new_env("x.md")
    html = md.render(text, env)
    return [str(error) for error in sorted(env["errors"])], html


def test_a_lab_renders_its_region_fields_and_widget() -> None:
    errors, html = render("::: lab decode prompt=4 tokens=2\n## Lab · decode\n\nPaid [[paid]].\n:::\n")
    assert errors == []
    assert (
        '<section class="lab lab-decode" data-lab="decode" data-update="start" data-params="{&quot;prompt&quot;: 4'
        in html
    )
    assert 'aria-labelledby="lab--decode"' in html
    assert '<output class="lab-field" data-field="paid">0</output>' in html
    assert html.endswith("<p>controls of decode</p>\n</section>\n")


def test_fields_are_reported_at_their_own_line() -> None:
    text = "::: lab decode\n## Lab\n\nOne [[paid]],\ntwo [[nope]],\nthree [[nada]].\n:::\n\nOutside\nand [[paid]].\n"
    assert render(text)[0] == [
        "x.md:5: lab 'decode' has no field 'nope'; fields: paid, recompute_total, this_step",
        "x.md:6: lab 'decode' has no field 'nada'; fields: paid, recompute_total, this_step",
        "x.md:10: [[paid]] shows a lab's number and must be inside a lab",
    ]


def test_fields_are_checked_even_when_the_lab_has_bad_parameters() -> None:
    assert render("::: lab decode tokens=0\n## Lab\n\n[[payd]]\n:::\n")[0] == [
        "x.md:1: tokens (Tokens to generate) must be between 1 and 64, not 0",
        "x.md:4: lab 'decode' has no field 'payd'; fields: paid, recompute_total, this_step",
    ]


def test_every_problem_of_a_lab_line_is_reported() -> None:
    assert render("::: lab decode prompt=x prompt=3 size=2\nNo heading.\n:::\n")[0] == [
        "x.md:1: lab 'decode' has no parameter 'size'; expected mode, prompt, tokens",
        "x.md:1: lab 'decode' must start with a heading that names it (e.g. '## Lab · ...')",
        "x.md:1: lab parameter 'prompt' is given twice",
        "x.md:1: prompt (Prefix length) must be a whole number, not 'x'",
    ]


def test_a_model_failure_at_the_starting_values_is_an_error_at_the_labs_line() -> None:
    from kvpage.lab import Lab, Whole

    def broken(args: object) -> dict[str, object]:
        return {"text": {"x": str(1 // (args["n"] - 3))}}  # type: ignore[index]

    lab = Lab("broken", {"compute": broken}, "compute", controls=(Whole("n", "N", 1, 9, 3),))  # type: ignore[dict-item]
    md = MarkdownIt("commonmark").use(anchors_plugin, min_level=2, max_level=3)
    md.use(labs_plugin, kinds={"broken": lab}, widget=widget)
    env = new_env("content/x.md")
    md.render("Intro.\n\n::: lab broken\n## Lab · broken\n:::\n\n::: lab broken n=4\n## Lab · fine\n:::\n", env)
    assert [str(error) for error in env["errors"]] == [
        "content/x.md:3: lab 'broken' failed at its starting values: "
        "ZeroDivisionError: integer division or modulo by zero"
    ]
