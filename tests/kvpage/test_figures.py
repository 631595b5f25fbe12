"""The thesis figure: the cells it draws are the cells the model counts, and its words say the model's totals."""

from __future__ import annotations

import re
from typing import cast

import pytest

from kvpage.costs import MODES, Mode, context_at_step, cumulative_cost, step_cost
from kvpage.figures import FIGURES, square_picture, thesis
from kvpage.jsonvalue import JSONValue, count, times
from kvpage.labs.decode import PROMPT, TOKENS
from kvpage.tree import check


def shapes(tree: list[JSONValue], kind: str) -> list[dict[str, str]]:
    """The attributes of every shape of ``kind`` ("held" or "paid") in an svg tree."""
    (svg,) = tree
    return [
        cast(dict[str, str], node[1])
        for node in cast(list[JSONValue], svg)[2:]
        if isinstance(node, list) and cast(dict[str, str], node[1]).get("data-kind") == kind
    ]


def staircase_cells(d: str) -> int:
    """The area, in cells, of a ``M0 0H…V…H0Z`` path of horizontal and vertical steps (the shoelace)."""
    points, x, y = [(0, 0)], 0, 0
    for letter, value in re.findall(r"([HV])(\d+)", d):
        x, y = (int(value), y) if letter == "H" else (x, int(value))
        points.append((x, y))
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True))) // 2


@pytest.mark.parametrize(("prompt", "tokens"), [(16, 16), (1, 2), (128, 64), (7, 3)])
@pytest.mark.parametrize("mode", MODES)
def test_the_last_step_pays_what_the_model_says_and_the_rest_is_what_came_before(
    prompt: int, tokens: int, mode: Mode
) -> None:
    tree = square_picture(prompt, tokens, mode)
    check(tree[0])
    ((paid),) = shapes(tree, "paid")
    assert int(paid["width"]) * int(paid["height"]) == step_cost(prompt, tokens, mode)
    held = [staircase_cells(shape["d"]) for shape in shapes(tree, "held")]
    # With the cache, the cells shown as held are every cell paid before the last step, once each.
    expected = cumulative_cost(prompt, tokens - 1, "kv") if mode == "kv" else 0
    assert sum(held) == expected
    size = context_at_step(prompt, tokens)
    assert cast(dict[str, str], cast(list[JSONValue], tree[0])[1])["viewBox"] == f"0 0 {size} {size}"


def text_of(node: JSONValue) -> str:
    if isinstance(node, str):
        return node
    return "".join(text_of(child) for child in cast(list[JSONValue], node)[2:])


def test_the_thesis_names_both_modes_and_says_both_totals_and_their_ratio() -> None:
    values = {"prompt": PROMPT.default, "tokens": TOKENS.default}
    (tree,) = thesis(values)
    check(tree)
    words = text_of(tree)
    kv, recompute = (cumulative_cost(values["prompt"], values["tokens"], mode) for mode in MODES)
    for said in ("KV cache", "Recompute", count(kv), count(recompute), times(recompute, kv)):
        assert said in words, said
    assert count(step_cost(values["prompt"], values["tokens"], "kv")) in words


def test_a_figures_parameters_are_read_by_the_labs_controls() -> None:
    figure = FIGURES["thesis"]
    assert figure.parse([]) == ({"prompt": PROMPT.default, "tokens": TOKENS.default}, [])
    assert figure.parse(["tokens=3"]) == ({"prompt": PROMPT.default, "tokens": 3}, [])
    _, errors = figure.parse(["prompt=0", "size=3", "tokens", "tokens=2", "tokens=4"])
    assert errors == [
        f"prompt ({PROMPT.label}) must be between {PROMPT.low} and {PROMPT.high}, not 0",
        "figure 'thesis' has no parameter 'size'; expected prompt, tokens",
        "figure parameter 'tokens' is not key=value",
        "figure parameter 'tokens' is given twice",
    ]


def labels(tree: JSONValue) -> dict[str, list[str]]:
    """The words placed on each panel's drawing (``thesis-label``), by the panel's mode."""
    found: dict[str, list[str]] = {}

    def walk(node: JSONValue, mode: str) -> None:
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            return
        attributes = cast(dict[str, str], node[1])
        mode = attributes.get("data-mode", mode)
        if "thesis-label" in attributes.get("class", "").split():
            found.setdefault(mode, []).append(text_of(node))
        for child in node[2:]:
            walk(child, mode)

    walk(tree, "")
    return found


def test_the_drawing_names_what_is_kept_and_what_is_paid_now() -> None:
    """ "A line against a square", said on the drawing: with the cache the kept cells and the row paid
    now; recomputing, the whole square paid now. A single step is the prefill, paid now in both."""
    (tree,) = thesis({"prompt": PROMPT.default, "tokens": TOKENS.default})
    assert labels(tree) == {"kv": ["kept", "↑ paid now"], "recompute": ["paid now"]}
    (tree,) = thesis({"prompt": PROMPT.default, "tokens": 1})
    assert labels(tree) == {"kv": ["paid now"], "recompute": ["paid now"]}
