"""One rule, every count: a reader's edit of :func:`kvpage.costs.paid_cells` moves all the decode lab shows.

The page's editor replaces ``kvpage/costs.py`` and imports the model again (``static/kvpage/reader.py``);
here the same happens in this interpreter (CPython, or Pyodide under ``make pyodide-test``): the
edited file is compiled as ``kvpage.costs`` and every other module of the model imported afresh
over it, then the book's modules are put back. At every step of both modes, each count the view
carries (the readouts, the grid's words, its rectangles, the slots, the status, the chart's points,
its inset and table) must be the edited model's own step cost, counted from its cells; the
expected cells of the edit are counted here by brute force over every (query, key) pair.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from kvpage import costs as book_costs
from kvpage.costs import Mode
from kvpage.jsonvalue import count
from kvpage.pictures.panel import short

SQUARE = "return [(query, range(cached if query < cached else 0, n)) for query in range(n)]"
"""The line of prefill_cells a reader changes to make the prefill causal (tests/reader_model.py's too)."""
DECODE_ROW = "return [(t - 1, range(t))]"
"""The line of paid_cells that says a decode step with the KV cache pays one row."""
BOOK = Path(book_costs.__file__).read_text(encoding="utf-8")
CAUSAL = BOOK.replace(SQUARE, SQUARE.replace(", n)) for", ", query + 1)) for"))
DOUBLED = BOOK.replace(DECODE_ROW, "return [(t - 1, range(t))] * 2")
PROMPT, TOKENS = 16, 16


def ours(name: str) -> bool:
    return name == "kvpage" or name.startswith("kvpage.")


@contextmanager
def edited_costs(text: str) -> Iterator[ModuleType]:
    """The decode lab's module with ``text`` as ``kvpage/costs.py``, as a reader's Run imports it."""
    assert text != BOOK, "the edit did not apply: the rule's line is not in kvpage/costs.py"
    saved = {name: module for name, module in sys.modules.items() if ours(name)}
    try:
        for name in saved:
            if name != "kvpage":
                del sys.modules[name]
        edited = ModuleType("kvpage.costs")
        edited.__file__ = "kvpage/costs.py"
        sys.modules["kvpage.costs"] = edited
        exec(compile(text, "kvpage/costs.py", "exec"), edited.__dict__)  # the reader's edit, as Run does
        yield importlib.import_module("kvpage.labs.decode")
    finally:
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(saved)
        for name, module in saved.items():
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)


def shapes(tree: Any) -> Iterator[tuple[str, dict[str, str], list[Any]]]:
    """Every element of a tree (a part: a list of nodes), depth first."""
    for node in tree:
        if isinstance(node, list) and node and isinstance(node[0], str):
            yield node[0], node[1], node[2:]
            yield from shapes(node[2:])


def area(part: Any, kind: str) -> int:
    return sum(
        int(float(a["width"]) * float(a["height"]))
        for tag, a, _ in shapes(part)
        if a.get("data-kind") == kind and tag == "rect"
    )


def brute_force(prompt: int, step: int, mode: str, causal: bool, doubled: bool) -> int:
    """The cells of a step, every (query, key) pair tried: the chapter's square (or causal triangle)
    for a prefill and for recomputing, the new token's row with the KV cache (twice, doubled)."""
    t = prompt if step == 1 else prompt + step - 1
    if step == 1 or mode == "recompute":
        return sum(1 for q in range(t) for k in range(t) if not causal or k <= q)
    return sum(1 for k in range(t) if k <= t - 1) * (2 if doubled else 1)


@pytest.mark.parametrize(("edit", "causal", "doubled"), [(CAUSAL, True, False), (DOUBLED, False, True)])
@pytest.mark.parametrize("mode", ["kv", "recompute"])
def test_every_count_of_the_view_is_the_edited_rules(edit: str, causal: bool, doubled: bool, mode: Mode) -> None:
    with edited_costs(edit) as decode:
        costs = sys.modules["kvpage.costs"]
        total = changed = 0
        for step in range(1, TOKENS + 1):
            view = decode.view(decode.DecodeRun(PROMPT, TOKENS, mode, step))
            paid = costs.step_cost(PROMPT, step, mode)
            assert paid == brute_force(PROMPT, step, mode, causal, doubled), (step, mode)
            changed += paid != book_costs.step_cost(PROMPT, step, mode)
            total += paid
            text, parts = view["text"], view["parts"]
            assert text["this_step"] == decode.cells(paid)
            assert text["paid"] == decode.cells(total)
            assert f"{count(paid)} cells paid this step" in text[f"grid_words_{mode}"]
            assert area(parts[f"grid_{mode}"], "now") == paid, (step, mode)
            slots = sum(int(a["data-count"]) for _, a, _ in shapes(parts[f"slots_{mode}"]) if "data-count" in a)
            if mode == "kv":
                assert slots == PROMPT + step - 1 and f"· {count(slots)} slots" in text["status"]
                if causal:  # no row paid twice: what is held and what is paid now are every cell paid
                    assert area(parts[f"grid_{mode}"], "now") + area(parts[f"grid_{mode}"], "held") == total
            else:
                assert slots == 0 and area(parts[f"grid_{mode}"], "held") == 0, "recomputing holds nothing"
            points = {
                key: [a for _, a, _ in shapes(parts[key]) if a.get("data-series") == "current" and "data-value" in a]
                for key in ("per_step", "totals")
            }
            assert points["per_step"][-1]["data-value"] == str(paid)
            assert points["totals"][-1]["data-value"] == str(total)
            rows = [
                ["".join(map(str, cell[2:])) for cell in children]
                for tag, _, children in shapes(parts["table"])
                if tag == "tr"
            ]
            assert rows[-1][1:3] == [count(paid), count(total)]
        assert changed or (doubled and mode == "recompute"), "the edit changed no step's cost"
        kv_whole = [costs.step_cost(PROMPT, k, "kv") for k in range(2, TOKENS + 1)]
        inset = next(children for _, a, children in shapes(parts["per_step"]) if a.get("data-inset") == "kv")
        ticks = [shape[2] for shape in inset if shape[0] == "text" and shape[1].get("text-anchor") == "end"]
        assert ticks == [short(kv_whole[0]), short(kv_whole[-1])], "the inset's axis: the first and last decode step"
        if causal:
            note = decode.view(decode.DecodeRun(PROMPT, TOKENS, mode, 1))["text"]["grid_note"]
            assert f"{count(brute_force(PROMPT, 1, mode, True, False))} of the prompt's" in note
