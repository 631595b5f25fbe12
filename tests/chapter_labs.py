"""What the chapter's two labs should show, derived from the chapter and the model, never typed.

Every browser test of the chapter (Chromium's in tests/e2e/, Firefox's and WebKit's through
tests/browsers/flows.py) takes its expected readouts from here: the starting values are the
chapter's own ``::: lab`` parameters, the readouts after a move are the model's (``kvpage.labs``)
run in CPython on the very values the page sends, and the figures the seed states before anything
is touched are read from the seed's text. So a change to the chapter's parameters or to the model
moves the expectations with it, and a page that shows anything else fails.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from kvpage.costs import Mode, context_at_step, prefill_cost, step_cost
from kvpage.jsonvalue import JSONObject, count
from kvpage.labs import decode, next_request
from kvpage.labs.chart import chart_view
from kvpage.labs.grid import grid_view
from kvpage.prefix import shared_prefix_length
from kvpage.tokenizer import tokenize
from sitegen.labs.discovery import all_labs
from sitegen.markdown.pages import make_markdown, parse
from tests.conftest import CONTENT, ROOT

CHAPTER = CONTENT / "03-cache.md"
SEED = ROOT / "tests" / "fixtures" / "seed-cache-chapter.txt"

DECODE = "Lab · prefill once, then decode"
NEXT = "Lab · the next request"
"""The labs' regions, by the headings that name them."""


def lab_params(kind: str, chapter: Path = CHAPTER) -> dict[str, str]:
    """The starting values of the chapter's first ``::: lab KIND``, as the build's own Markdown reads
    them (its lab plugin's placement, every lab enabled), each as a control's value is written in the
    page: a text as it is, a number or a yes/no as JSON."""
    parsed = parse(make_markdown({}, all_labs()), str(chapter), "", chapter.read_text(encoding="utf-8"))
    for placement in parsed.placements:
        if placement.kind.name == kind:
            params = placement.params.items()
            return {name: found if isinstance(found, str) else json.dumps(found) for name, found in params}
    raise LookupError(f"{chapter}: no '::: lab {kind}'")


def seed_has(label: str) -> bool:
    """Whether the seed chapter shows a readout labelled ``label`` (later readouts, such as the ratio, are new)."""
    return any(line.startswith(f"{label}:") for line in SEED.read_text(encoding="utf-8").splitlines())


def seed_readout(label: str) -> str:
    """What the seed chapter shows after ``label`` (e.g. "Cold prefill: 196" → "196")."""
    for line in SEED.read_text(encoding="utf-8").splitlines():
        if line.startswith(label):
            return line.removeprefix(label).lstrip(": ").strip()
    raise LookupError(f"{SEED}: no line starting {label!r}")


# ---- the decode lab --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A decode run as the page holds it: the chapter's prompt and tokens unless changed, a mode, steps taken."""

    prompt: int
    tokens: int
    mode: Mode = "kv"
    steps: int = 0

    def text(self) -> dict[str, str]:
        """Every text the lab shows for this run (readouts, status, progress), as the model computes it."""
        view = decode.view(decode.DecodeRun(self.prompt, self.tokens, self.mode, self.steps))
        return dict(cast(dict[str, str], view["text"]))

    def readout(self, label: str) -> str:
        """The readout labelled ``label`` ("Paid so far") for this run."""
        (output,) = [output for output in decode.LAB.outputs if output.label == label]
        return self.text()[output.name]

    def after(self, steps: int | None = None) -> Run:
        """This run after ``steps`` steps (None: all of them, where Generate ends)."""
        return Run(self.prompt, self.tokens, self.mode, self.tokens if steps is None else steps)

    def step_cost(self, step: int | None = None) -> int:
        """Cells step ``step`` (default: the last one taken) pays."""
        return step_cost(self.prompt, self.steps if step is None else step, self.mode)

    def context(self, step: int | None = None) -> int:
        """Tokens the model looks at in step ``step`` (default: the last one taken): the slots the cache holds."""
        return context_at_step(self.prompt, self.steps if step is None else step)

    def grid_size(self) -> int:
        """Rows and columns of the attention grid the lab draws for this run."""
        return cast(int, grid_view(self.prompt, self.tokens, self.steps, self.mode)["size"])

    def table_rows(self) -> list[list[str]]:
        """The rows of the lab's "Numbers by step" table, each as its cells' texts."""
        return [list(row) for row in chart_view(self.prompt, self.tokens, self.steps, self.mode).table.rows]


def chapter_run(mode: Mode = "kv", prompt: int | None = None, tokens: int | None = None) -> Run:
    """The chapter's decode run (its ``prompt`` and ``tokens`` unless given), cold."""
    params = lab_params("decode")
    return Run(
        int(params["prompt"]) if prompt is None else prompt, int(params["tokens"]) if tokens is None else tokens, mode
    )


def value(number: int) -> str:
    """A number as the model writes it into a readout (``9,176``)."""
    return count(number)


# ---- the next-request lab --------------------------------------------------------------------------


def requests() -> tuple[str, str]:
    """The chapter's request 1 and request 2."""
    params = lab_params("next-request")
    return params["request1"], params["request2"]


def request_args(request1: str | None = None, request2: str | None = None) -> JSONObject:
    """What the page sends the next-request lab: these requests, the chapter's where not given."""
    first, second = requests()
    return {"request1": first if request1 is None else request1, "request2": second if request2 is None else request2}


def compared(request1: str | None = None, request2: str | None = None) -> dict[str, str]:
    """Every text of the next-request lab for these requests (the chapter's where not given), by the model."""
    return dict(cast(dict[str, str], next_request.compare(request_args(request1, request2))["text"]))


def next_readout(label: str, request1: str | None = None, request2: str | None = None) -> str:
    """The readout labelled ``label`` ("With prefix cache") for these requests."""
    (output,) = [output for output in next_request.LAB.outputs if output.label == label]
    return compared(request1, request2)[output.name]


def one_letter_changed(text: str) -> str:
    """The system prompt with one letter changed, as the chapter suggests."""
    changed = text.replace("precise", "precize", 1)
    assert changed != text, "the chapter's request no longer says 'precise'"
    return changed


def chip_words(request1: str | None = None, request2: str | None = None, which: str = "tokens2") -> list[str]:
    """What each chip of request 2's list (``which="tokens1"``: request 1's) says when read out,
    hovered or focused (``#11 “␣3” · paid; …``), for these requests, as the model computes it."""
    view = next_request.compare(request_args(request1, request2))
    items = cast(list[list[object]], cast(dict[str, object], view["parts"])[which])
    return [cast(str, cast(list[object], item[-1])[-1]) for item in items]


def node_words(node: object) -> list[str]:
    """Every text of a tree node (``[tag, {attributes}, *children]`` or a text), in document order."""
    if isinstance(node, str):
        return [node]
    return [text for child in cast(list[object], node)[2:] for text in node_words(child)]


def drawn_words(part: object) -> list[str]:
    """Every text of a model's part (a list of nodes), in document order: what its drawing says, word for word."""
    return [text for node in cast(list[object], part) for text in node_words(node)]


def drawn_part(name: str, request1: str | None = None, request2: str | None = None) -> object:
    """The model's tree for the next-request lab's part ``name`` ("layers", "square") for these requests."""
    return cast(dict[str, object], next_request.compare(request_args(request1, request2))["parts"])[name]


def layer_rows(request1: str | None = None, request2: str | None = None) -> list[list[str]]:
    """What request 2's keys and values are, a row per layer and a kind per token, by the model's rule."""
    args = request_args(request1, request2)
    first, second = (tokenize(cast(str, args[name])) for name in ("request1", "request2"))
    return next_request.layer_kinds(first, second)


def square_cells(request1: str | None = None, request2: str | None = None) -> dict[str, int]:
    """Request 2's cells as the square shows them: reused (the corner) and paid (the L), by the cost model."""
    args = request_args(request1, request2)
    first, second = (tokenize(cast(str, args[name])) for name in ("request1", "request2"))
    cold, cached = prefill_cost(len(second)), prefill_cost(len(second), shared_prefix_length(first, second))
    return {"reused": cold - cached, "paid": cached}
