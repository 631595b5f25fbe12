"""Containers: an unclosed one, an unknown name and a stray ``:::`` are errors at their line."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from sitegen.markdown.plugins.callouts import callouts_plugin
from sitegen.markdown.plugins.containers import unknown_containers_plugin
from sitegen.markdown.plugins.env import new_env

NESTED = (
    "'::: keep' is not closed inside the block around it: close it there with ':::' "
    "(to nest containers, give the outer one a longer fence, such as '::::')"
)


def problems(text: str) -> tuple[list[str], str]:
    md = MarkdownIt("commonmark").use(callouts_plugin, kinds=("english", "keep"))
    md.use(unknown_containers_plugin, known=("english", "keep"))
    env = new_env("x.md")
    html = md.render(text, env)
    return [str(error) for error in sorted(env.errors)], html


@pytest.mark.parametrize(
    "text",
    [
        "::: english\nText.\n:::\n",
        "::: english\nText.\n:::   \n",
        ":::english\nText.\n:::\n",
        "Para\n::: english\nText.\n:::\n",
        ":::: english\n::: keep\nInner.\n:::\n::::\n",
        "> ::: english\n> Quoted.\n> :::\n",
        "- ::: english\n  In a list.\n  :::\n",
        "```\n::: english\n:::\n:::\n```\n",
        "    ::: english\n    indented code\n",
        "Text with ::: inside and\n::: english\nText.\n:::\n",
    ],
)
def test_well_formed_containers_pass(text: str) -> None:
    assert problems(text)[0] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("::: english", ["x.md:1: '::: english' is not closed: add a ':::' line where it ends"]),
        ("::: english\n", ["x.md:1: '::: english' is not closed: add a ':::' line where it ends"]),
        ("Text.\n\n::: keep\nMore.\n", ["x.md:3: '::: keep' is not closed: add a ':::' line where it ends"]),
        (
            ":::: keep\nText.\n:::\n",
            [
                "x.md:1: ':::: keep' is not closed: add a '::::' line where it ends",
                "x.md:3: ':::' closes nothing: no container is open here",
            ],
        ),
        ("> ::: keep\n> Quoted.\n\nAfter.\n", [f"x.md:1: {NESTED}"]),
    ],
)
def test_unclosed_containers_are_reported_at_their_opening(text: str, expected: list[str]) -> None:
    assert problems(text)[0] == expected


def cannot_close(outer: str, closer: int, inner: str, line: int) -> str:
    return (
        f"'{outer}' ends at the ':::' on line {closer}, so '{inner}' (line {line}) cannot close inside it: "
        f"close '{outer}' before line {line}, or give it a longer fence, such as '::::', to nest '{inner}' in it"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Meant one after the other: the first is not closed, and the next one's closing line ends it.
        ("::: english\nA.\n\n::: keep\nB.\n:::\n", [f"x.md:1: {cannot_close('::: english', 6, '::: keep', 4)}"]),
        (
            "::: warning\nA.\n\n::: keep\nB.\n:::\n",
            [
                f"x.md:1: {cannot_close('::: warning', 6, '::: keep', 4)}",
                "x.md:1: unknown container 'warning'; known containers: english, keep",
            ],
        ),
        # Meant one inside the other: the outer one's fence is not longer.
        (
            "::: english\n::: keep\nInner.\n:::\n:::\n",
            [
                f"x.md:1: {cannot_close('::: english', 4, '::: keep', 2)}",
                "x.md:5: ':::' closes nothing: no container is open here",
            ],
        ),
    ],
)
def test_a_container_that_swallows_the_next_one_is_reported_at_its_own_line(text: str, expected: list[str]) -> None:
    """Not at the next container's line, where the error used to be: the mistake is the first one's."""
    assert problems(text)[0] == expected


def test_unknown_container_is_reported_and_its_closing_line_consumed() -> None:
    errors, html = problems("::: warning some words\nCareful.\n:::\n")
    assert errors == ["x.md:1: unknown container 'warning'; known containers: english, keep"]
    assert ":::" not in html


@pytest.mark.parametrize(
    ("text", "line"),
    [(":::\n", 1), ("Text.\n:::\n", 2), ("::: keep\nA.\n:::\n:::\n", 4), ("- item\n\n:::::\n", 3)],
)
def test_a_fence_that_closes_nothing_is_reported(text: str, line: int) -> None:
    errors, html = problems(text)
    fence = text.splitlines()[line - 1]
    assert errors == [f"x.md:{line}: '{fence}' closes nothing: no container is open here"]
    assert fence not in html


def test_callout_parameters_are_reported_and_the_callout_still_renders() -> None:
    errors, html = problems("::: english loud\nText.\n:::\n")
    assert errors == ["x.md:1: callout 'english' takes no parameters, got 'loud'"]
    assert html == '<aside class="callout callout-english">\n<p>Text.</p>\n</aside>\n'
