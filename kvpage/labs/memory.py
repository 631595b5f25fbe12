"""The "memory" lab: what the KV cache holds, in bytes, layer by layer and token by token.

A test fixture: the lab of ``tests/books/added-chapter/``, which holds every construct docs/authoring.md
documents, so it declares a control of every kind and draws with every word of the picture vocabulary
(tests/test_added_book.py holds the guide to it). Experimental: only a book that turns it on shows it.
"""

from __future__ import annotations

from kvpage.costs import Mode
from kvpage.jsonvalue import JSONObject, count
from kvpage.lab import Checkbox, Choice, DecimalSlider, Lab, Number, Output, Slider, Text
from kvpage.labs.chart import chart_view
from kvpage.pictures import (
    Series,
    bar_chart,
    block_grid,
    cell_grid,
    corner_square,
    grouped_table,
    layer_grid,
    line_chart,
    panel_chart,
    slot_strip,
    split_bars,
)
from kvpage.tokenizer import tokenize

LAYERS = Slider("layers", "Layers", low=1, high=6, default=4)
TOKENS = Number("tokens", "Tokens to generate", low=1, high=24, default=8)
BYTES = DecimalSlider("bytes", "Bytes per number", low=0.5, high=4, default=2, step=0.5)
HEADS = Choice(
    "heads", "Key and value heads", options=(("own", "One per query head"), ("shared", "Shared by four")), default="own"
)
CACHE = Checkbox("cache", "Keep the KV cache", default=True)
PROMPT = Text("prompt", "Prompt", limit=120, default="The cache grows", examples=("a b c d e f", "x"))
WIDTH = 8
"""Numbers in one key (and in one value) of one layer, with a head of its own per query head."""


def compute(args: JSONObject) -> JSONObject:
    """The bytes the cache holds once the prompt and ``tokens`` new tokens are in it, and where they are."""
    layers, tokens, size = LAYERS.read(args), TOKENS.read(args), BYTES.read(args)
    prompt = max(len(tokenize(PROMPT.read(args))), 1)
    width = WIDTH if HEADS.read(args) == "own" else WIDTH // 4
    cache = CACHE.read(args)
    context = prompt + tokens
    per_token = layers * 2 * width * size
    held = per_token * context
    mode: Mode = "kv" if cache else "recompute"
    bars = [
        (name, layers * width * size * context, f"{layers * width * size * context:,g} bytes")
        for name in ("keys", "values")
    ]
    grid = [[1] * context if cache else [1] * (context - 1) + [2] for _ in range(layers)]
    rows = [[f"layer {n + 1}", f"{width * size * context:,g}", f"{width * size * context:,g}"] for n in range(layers)]
    return {
        "text": {"held": f"{held:,g} bytes", "context": count(context)},
        "parts": {
            "bars": bar_chart(bars, f"Keys and values of {context} tokens in {layers} layers."),
            "lines": line_chart(
                (Series("held", tuple((n, per_token * n) for n in range(1, context + 1))),),
                f"Bytes held after each of {context} tokens.",
                "tokens",
                "bytes",
            ),
            "cells": cell_grid(grid, f"{layers} layers of {context} tokens.", ("held", "computed again")),
            "split": split_bars(
                [("this request", prompt if cache else 0, tokens if cache else context, count(context))], context
            ),
            "panel": panel_chart(chart_view(prompt, tokens, tokens, mode).run, "totals", unit="cells", x_name="step"),
            "grid": block_grid(
                context,
                [(0, 0, prompt, prompt)],
                [(context - 1, 0, 1, context)],
                tone=mode,
                square=prompt,
                square_name=f"prompt {prompt}",
                dense=context > 32,
                name="memory-grid",
            ),
            "slots": slot_strip(
                context,
                [("held", 0, context - 1), ("new", context - 1, 1)],
                parted="new",
                dense=context > 32,
                name="memory-slots",
            ),
            "table": grouped_table("Bytes held by layer", ["Held"], ["Layer", "Keys", "Values"], rows),
            "layers": layer_grid(
                [(f"layer {n + 1}", ["reused"] * prompt + ["paid"] * tokens) for n in range(layers)],
                [(0, prompt, "reused", "prompt"), (prompt, context, "paid", "new")],
                prompt,
            ),
            "square": corner_square(context, prompt if cache else 0, reused="held", paid="computed"),
        },
    }


LAB = Lab(
    name="memory",
    actions={"compute": compute},
    update="compute",
    controls=(LAYERS, TOKENS, BYTES, HEADS, CACHE, PROMPT),
    outputs=(
        Output("held", "Bytes held"),
        Output("context"),
        Output("bars", "Keys and values", "picture"),
        Output("lines", "Growth", "picture"),
        Output("cells", "Layers and tokens", "picture"),
        Output("split", "Reused and paid", "picture"),
        Output("panel", "Cells paid so far", "picture"),
        Output("grid", "Attention", "picture"),
        Output("slots", "Cache slots", "picture"),
        Output("table", "By layer", "table"),
        Output("layers", "Held by layer", "picture"),
        Output("square", "Held and computed cells", "picture"),
    ),
    experimental=True,
)
"""The lab: one control of every kind (``Slider``, ``Number``, ``DecimalSlider``, ``Choice``, ``Checkbox``,
``Text``) and one picture with every word of the picture vocabulary; tests/test_added_book.py fails
when docs/authoring.md documents a kind or a word no lab of the added-chapter book uses."""
