"""``::: figure NAME key=value``: a still picture drawn by the model at build time, with its caption.

The author writes what a figure says (its caption, also its accessible name) and the model draws
what it shows, with no script in the page (:func:`figures_plugin`).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from kvpage.figures import FIGURES, Figure
from sitegen.labs.placements import split_info
from sitegen.labs.trees import to_html
from sitegen.markdown.plugins.containers import container
from sitegen.markdown.plugins.env import report


def figures_plugin(md: MarkdownIt, figures: Mapping[str, Figure] = FIGURES) -> None:
    """Add the ``figure`` container, rendered as ``<figure>`` (the model's drawing, then ``<figcaption>``).

    The figure itself is the model's (``kvpage.figures``: an element tree, written here as HTML by
    ``sitegen.labs.trees``, so the page shows it with no script and before Python starts); the words
    inside the container are its caption, in Markdown, so the author writes what it says and the
    model draws what it shows. A core rule checks each figure once, after parsing: its name, its
    parameters (by the controls the figure reads them with) and that it has a caption, which is
    also the figure's accessible name.
    """

    def resolve(state: StateCore) -> None:
        for index, token in enumerate(state.tokens):
            if token.type == "container_figure_open":
                _resolve(token, state.tokens[index + 1], figures, state.env)

    def render(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        token = tokens[idx]
        if token.nesting == -1:
            return "</figcaption>\n</figure>\n"
        drawing = token.meta.get("drawing", "")
        name = token.meta.get("figure", "")
        return f'<figure class="model-figure" data-figure="{name}">\n{drawing}\n<figcaption>\n'

    container(md, "figure", validate=lambda params, _markup: params.split()[:1] == ["figure"], render=render)
    md.core.ruler.push("figures", resolve)


def _resolve(token: Token, after: Token, figures: Mapping[str, Figure], env: MutableMapping[str, Any]) -> None:
    """Draw the figure ``token`` opens into its ``meta``, or report why it cannot be drawn."""
    if after.type == "container_figure_close":
        report(env, token, "a figure needs a caption: write what it shows inside the container, before ':::'")
    try:
        words = split_info(token.info.strip())[1:]
    except ValueError as error:
        report(env, token, f"cannot read the figure line: {error}")
        return
    name = words[0] if words else ""
    figure = figures.get(name)
    if figure is None:
        known = ", ".join(sorted(figures))
        report(
            env,
            token,
            f"unknown figure {name!r}; known figures: {known}"
            if name
            else f"a figure needs a name; known figures: {known}",
        )
        return
    values, problems = figure.parse(words[1:])
    for problem in problems:
        report(env, token, problem)
    if not problems:
        token.meta["figure"] = name
        token.meta["drawing"] = to_html(figure.draw(values))
