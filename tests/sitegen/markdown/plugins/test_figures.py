"""``::: figure NAME``: the model's drawing in a ``<figure>``, its Markdown the caption; mistakes at their line."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from kvpage.figures import FIGURES
from sitegen.labs.trees import to_html
from sitegen.markdown.plugins.containers import unknown_containers_plugin
from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.figures import figures_plugin


def render(text: str) -> tuple[list[str], str]:
    md = MarkdownIt("commonmark").use(figures_plugin)
    md.use(unknown_containers_plugin, known=("figure",))
    env = new_env("x.md")
    html = md.render(text, env)
    return [str(error) for error in sorted(env.errors)], html


def test_the_drawing_comes_first_and_the_markdown_is_its_caption() -> None:
    errors, html = render("Before.\n\n::: figure thesis prompt=8 tokens=4\nThe *thesis*, drawn.\n:::\n\nAfter.\n")
    assert errors == []
    drawing = to_html(FIGURES["thesis"].draw({"prompt": 8, "tokens": 4}))
    expected = (
        f'<figure class="model-figure" data-figure="thesis">\n{drawing}\n'
        "<figcaption>\n<p>The <em>thesis</em>, drawn.</p>\n</figcaption>\n</figure>\n"
    )
    assert html == f"<p>Before.</p>\n{expected}<p>After.</p>\n"


def test_mistakes_are_reported_at_the_figures_line_and_nothing_is_drawn() -> None:
    errors, html = render(
        "::: figure\nCaption.\n:::\n\n"
        "::: figure square\nCaption.\n:::\n\n"
        "::: figure thesis prompt=x\nCaption.\n:::\n\n"
        "::: figure thesis\n:::\n\n"
        "::: figure thesis prompt='16\nCaption.\n:::\n"
    )
    assert errors == [
        "x.md:1: a figure needs a name; known figures: thesis",
        "x.md:5: unknown figure 'square'; known figures: thesis",
        "x.md:9: prompt (Prefix length) must be a whole number, not 'x'",
        "x.md:13: a figure needs a caption: write what it shows inside the container, before ':::'",
        "x.md:16: cannot read the figure line: a quote is not closed",
    ]
    # Only the one figure whose sole mistake is its missing caption is drawn.
    assert len(re.findall("<svg", html)) == 2
