"""Figures: still pictures a chapter shows before the reader touches anything.

A figure is drawn at build time, once, by the same model and tree format as the labs' pictures, and
needs no Python in the page; its parameters are read by a lab's own controls (:class:`Figure`). Its
words are HTML around the drawing (:func:`region_labels`). Pure data and the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

from kvpage.costs import MODE_NAMES, Mode, context_at_step, cumulative_cost, step_cost
from kvpage.jsonvalue import JSONValue, count, times
from kvpage.lab import Whole, read_words
from kvpage.labs.decode import PROMPT, TOKENS
from kvpage.labs.grid import paid_blocks
from kvpage.tree import THIN, Attributes, Node, el


@dataclass(frozen=True)
class Figure:
    """A figure's parameters (read by these controls, defaults theirs) and the function that draws it.

    A figure is drawn at build time, once, by the same model and the same tree format as the labs'
    pictures (:mod:`kvpage.tree`), and needs no Python in the page: ``::: figure NAME key=value``
    in a chapter (``sitegen/markdown/plugins/figures.py``) writes the tree as HTML inside a ``<figure>``.
    Its parameters are read by a lab's own controls, so a figure at the decode lab's values is
    checked against the same ranges as the lab.
    """

    name: str
    params: tuple[Whole, ...]
    draw: Callable[[Mapping[str, int]], list[JSONValue]]

    def parse(self, words: list[str]) -> tuple[dict[str, int], list[str]]:
        """``key=value`` words read by this figure's controls: the values, and the authors' messages."""
        given, errors = read_words(words, self.params, "figure", self.name)
        values = {name: value for name, value in given.items() if isinstance(value, int)}
        controls = {control.name: control for control in self.params}
        return {name: values.get(name, control.default) for name, control in controls.items()}, errors


def square_picture(prompt: int, tokens: int, mode: Mode) -> list[JSONValue]:
    """The attention grid at the run's last step, in cell units: what that step pays over what came before.

    With the KV cache the cells of earlier steps are drawn as held, quiet (a pale tint inside an
    outline), and the last step's one row as paid, in the mode's full colour and edged in it, the
    mark the eye finds first; recomputing, the last step pays the whole square. The square's
    outline is the context either way, so the two pictures are the same size and the row is seen
    against the square. Both come from :func:`kvpage.labs.grid.paid_blocks`, the model's one rule.
    """
    size = context_at_step(prompt, tokens)
    square: Attributes = {"x": 0, "y": 0, "width": size, "height": size}
    shapes: list[Node] = [el("rect", {"class": "thesis-empty", **square})]
    blocks = paid_blocks(prompt, tokens, mode)
    held = [block for block in blocks if block.kind == "held"]
    if held:
        # One shape for every cached cell: the prompt's square and the rows below it, a staircase.
        edge = "".join(f"H{block.col + block.cols}V{block.row + block.rows}" for block in held)
        shapes.append(
            el("path", {"class": f"thesis-held thesis-{mode}", "data-kind": "held", "d": f"M0 0{edge}H0Z", **THIN})
        )
    # The outline under the paid cells: the square's edge is seen, and the paid row's edge over it.
    shapes.append(el("rect", {"class": "thesis-outline", **square, **THIN}))
    for block in blocks:
        if block.kind == "now":
            box: Attributes = {"x": block.col, "y": block.row, "width": block.cols, "height": block.rows}
            shapes.append(el("rect", {"class": f"thesis-paid thesis-{mode}", "data-kind": "paid", **box, **THIN}))
    frame: Attributes = {"viewBox": f"0 0 {size} {size}", "class": "thesis-grid", "aria-hidden": "true"}
    return [el("svg", frame, *shapes)]


KEPT_FITS = 0.4
"""The share of the square the prompt must cover for "kept" to sit inside the kept cells, at its top left."""


def region_labels(prompt: int, tokens: int, mode: Mode) -> list[Node]:
    """The regions named on the drawing, in HTML over it (placed by class, so they keep the page's
    text size at any width): "kept" in the cached cells' top-left corner, "paid now" under the last
    row (it is the square's bottom edge) or, where the step pays the whole square, at its middle.

    The words of a figure (names, what a step pays, the totals) are HTML around the drawings, not
    text inside the SVG: an SVG scales with the column, and its text would be unreadable at 360 px
    or oversized at 1280 px. Every number is the model's (:mod:`kvpage.costs`), formatted here.
    """
    size = context_at_step(prompt, tokens)
    labels: list[Node] = []
    row = mode == "kv" and tokens > 1
    if row and prompt / size >= KEPT_FITS:
        labels.append(el("span", {"class": "thesis-label thesis-label-kept"}, "kept"))
    where = "thesis-label-row" if row else "thesis-label-square"
    labels.append(el("span", {"class": f"thesis-label {where}"}, "↑ paid now" if row else "paid now"))
    return labels


def _panel(prompt: int, tokens: int, mode: Mode, last_step: str, total: str) -> Node:
    name = el("p", {"class": "thesis-name"}, el("span", {"class": f"thesis-key thesis-{mode}"}), MODE_NAMES[mode])
    drawing = el(
        "div",
        {"class": "thesis-drawing"},
        *cast(list[Node], square_picture(prompt, tokens, mode)),
        *region_labels(prompt, tokens, mode),
    )
    return el(
        "div",
        {"class": f"thesis-panel thesis-panel-{mode}", "data-mode": mode},
        name,
        drawing,
        el("p", {"class": "thesis-step"}, last_step),
        el("p", {"class": "thesis-total"}, el("strong", {}, total)),
    )


def thesis(values: Mapping[str, int]) -> list[JSONValue]:
    """KV cache beside Recompute at ``prompt`` and ``tokens``: the last step's row against its square, both totals."""
    prompt, tokens = values["prompt"], values["tokens"]
    size = context_at_step(prompt, tokens)
    kv, recompute = (cumulative_cost(prompt, tokens, mode) for mode in ("kv", "recompute"))
    kv_step, recompute_step = (step_cost(prompt, tokens, mode) for mode in ("kv", "recompute"))
    if tokens == 1:
        kv_words = recompute_words = f"step 1, the prefill: {count(kv_step)} cells"
    else:
        kv_words = f"step {tokens} pays one new row: {count(kv_step)} cells; the rest is cached"
        square = f"{count(size)} × {count(size)} = " if recompute_step == size * size else ""
        recompute_words = f"step {tokens} pays the whole square again: {square}{count(recompute_step)} cells"
    total = f"{count(tokens)} tokens generated"
    return [
        el(
            "div",
            {"class": "thesis"},
            _panel(prompt, tokens, "kv", kv_words, f"{total}: {count(kv)} cells"),
            _panel(prompt, tokens, "recompute", recompute_words, f"{total}: {count(recompute)} cells"),
            el(
                "p",
                {"class": "thesis-ratio"},
                f"A cell is one token's query against one key. After a {count(prompt)}-token prompt, "
                f"the KV cache pays {times(recompute, kv)} fewer cells.",
            ),
        )
    ]


FIGURES: dict[str, Figure] = {"thesis": Figure("thesis", (PROMPT, TOKENS), thesis)}
"""Every figure a chapter may place, by name."""
