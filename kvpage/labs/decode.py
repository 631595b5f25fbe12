"""Lab · prefill once, then decode.

A run is immutable and every call sends the controls and the run's state back for the next view,
so the browser never computes a number itself (:class:`DecodeRun`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import cast

from kvpage.costs import MODE_NAMES, MODES, Mode, cumulative_cost, paid_cells, recompute_baseline, step_cost
from kvpage.jsonvalue import JSONObject, count, field, times
from kvpage.lab import Button, Choice, Lab, Output, Slider, Whole
from kvpage.labs.chart import PANELS, chart_picture, chart_view, table_part
from kvpage.labs.grid import grid_picture, grid_view, slots, slots_picture

PROMPT = Slider("prompt", "Prefix length", low=1, high=128, default=16)
TOKENS = Slider("tokens", "Tokens to generate", low=1, high=64, default=16)
MODE = Choice("mode", "Mode", options=tuple(MODE_NAMES.items()), default="kv")
STEPS = Whole("steps", "Steps taken", low=0, high=TOKENS.high, default=0)
"""How far a run has come: what a link to the lab carries beside the controls (``#decode:…,steps=7``)."""


@dataclass(frozen=True)
class DecodeRun:
    """One generation request, ``steps`` of its ``tokens`` steps taken.

    A run is immutable: ``prompt`` tokens, ``tokens`` to generate, a mode, and how many steps were
    taken. The first three are the lab's controls; the view's state is only what the controls do not
    say, the steps taken, and whether the run is done (the page's Generate and Forward read it rather
    than count for themselves). Every call sends the controls and that state back and gets the next
    view, so the browser never computes a number itself.
    """

    prompt: int
    tokens: int
    mode: Mode
    steps: int = 0

    def __post_init__(self) -> None:
        """Each value checked by its declaration (the steps by STEPS, up to this run's tokens)."""
        PROMPT.check(self.prompt)
        TOKENS.check(self.tokens)
        MODE.read({MODE.name: self.mode})
        replace(STEPS, high=self.tokens).check(self.steps)

    @property
    def done(self) -> bool:
        """All requested tokens have been generated."""
        return self.steps == self.tokens

    def step(self) -> DecodeRun:
        """The run after one more step; a finished run stays as it is."""
        return self if self.done else replace(self, steps=self.steps + 1)

    def back(self) -> DecodeRun:
        """The run one step earlier; a cold run stays as it is."""
        return replace(self, steps=max(0, self.steps - 1))

    def finish(self) -> DecodeRun:
        """The run with every step taken: where Generate ends, reached in one call."""
        return replace(self, steps=self.tokens)

    def state(self) -> JSONObject:
        """What a view carries beside the controls: the steps taken, and whether the run is done."""
        return {"steps": self.steps, "done": self.done}

    @classmethod
    def of(cls, args: JSONObject, steps: int | None = None) -> DecodeRun:
        """The run a call names: the controls' values, and ``steps`` or else ``args["state"]["steps"]``."""
        if steps is None:
            steps = cast(int, field(cast(JSONObject, field(args, "state", dict)), "steps", int))
        return cls(PROMPT.read(args), TOKENS.read(args), cast(Mode, MODE.read(args)), steps)


def status(run: DecodeRun) -> str:
    """The one-line state of the cache, as the reader sees it: the slots the grid's strip draws, or,
    recomputing, the tokens whose rows this step paid again (both from :func:`kvpage.costs.paid_cells`)."""
    if run.steps == 0:
        return "cache cold"
    if run.mode == "kv":
        return f"cache warm · {count(sum(kept.count for kept in slots(run.prompt, run.steps, run.mode)))} slots"
    recomputed = len({query for query, _ in paid_cells(run.prompt, run.steps, run.mode)})
    return f"no cache kept · {count(recomputed)} tokens recomputed"


NO_BREAK = "\u00a0"
"""Between a readout's number and its unit, so a narrow column never leaves the number alone on a line."""


def cells(n: int) -> str:
    """A readout's number with its unit: ``616 cells``, ``1 cell`` (a no-break space between them)."""
    return f"{count(n)}{NO_BREAK}{'cell' if n == 1 else 'cells'}"


def ratio(run: DecodeRun) -> str:
    """How many times fewer cells the KV cache pays than recomputing, so far: ``14.9× fewer cells``.

    The same in both modes (it compares the modes, not the choice); ``—`` before the prefill,
    and ``none fewer yet`` while the two have paid alike (the prefill alone)."""
    if run.steps == 0:
        return "—"
    kv = cumulative_cost(run.prompt, run.steps, "kv")
    recompute = recompute_baseline(run.prompt, run.steps)
    return "none fewer yet" if kv == recompute else f"{times(recompute, kv)}{NO_BREAK}fewer cells"


def recomputed(run: DecodeRun) -> str:
    """ "If every step recomputed": the baseline; recomputing, it is this run itself, and says so."""
    baseline = cells(recompute_baseline(run.prompt, run.steps))
    return f"{baseline}, this run" if run.mode == "recompute" and run.steps else baseline


def summary(run: DecodeRun) -> str:
    """What a screen reader is told after each answer, every number named: ``Step 16 of 16: 31 cells
    this step, 616 paid, 14.9× fewer than recomputing``. Before the first step, the run's controls
    (any control moved starts a run again, so the step alone would say the same after each)."""
    where = f"Step {run.steps} of {run.tokens}"
    if run.steps == 0:
        return f"{where}, {MODE_NAMES[run.mode]}, prefix of {count(run.prompt)} tokens: nothing paid yet"
    kv = cumulative_cost(run.prompt, run.steps, "kv")
    recompute = recompute_baseline(run.prompt, run.steps)
    this_step = count(step_cost(run.prompt, run.steps, run.mode))
    paid = f"{this_step} cells this step, {count(kv if run.mode == 'kv' else recompute)} paid"
    if run.mode == "kv":
        against = (
            "as many as recomputing so far" if kv == recompute else f"{times(recompute, kv)} fewer than recomputing"
        )
        return f"{where}: {paid}, {against}"
    against = "as many as the KV cache so far" if kv == recompute else f"{times(recompute, kv)} more than the KV cache"
    return f"{where}, recomputing: {paid}, {against}"


def view(run: DecodeRun) -> JSONObject:
    """Everything the page shows for ``run``: the numbers as text, the pictures as trees, and the run.

    The attention grid is drawn for both modes at the run's step (small multiples: ``grid_kv`` and
    ``grid_recompute``, each from :func:`kvpage.costs.paid_cells` for its mode); the readouts,
    status and chart's emphasis are the chosen mode's."""
    this_step = step_cost(run.prompt, run.steps, run.mode) if run.steps else None
    grids = {mode: grid_view(run.prompt, run.tokens, run.steps, mode) for mode in MODES}
    chart = chart_view(run.prompt, run.tokens, run.steps, run.mode)
    chosen = next(line for line in chart.run.series if line.current)
    other = next(line for line in chart.run.series if not line.current)
    return {
        "state": run.state(),
        "text": {
            "this_step": "—" if this_step is None else cells(this_step),
            "paid": cells(cumulative_cost(run.prompt, run.steps, run.mode)),
            "recompute_total": recomputed(run),
            "ratio": ratio(run),
            "status": status(run),
            "progress": f"step {run.steps} of {run.tokens}",
            "summary": summary(run),
            **{f"grid_words_{mode}": cast(str, grid["text"]) for mode, grid in grids.items()},
            "grid_note": cast(str, grids["kv"]["note"]),
            "chart_words": chart.text,
            "chosen": chosen.name,
            "other": other.name,
        },
        "parts": {
            **{f"grid_{mode}": grid_picture(grid) for mode, grid in grids.items()},
            **{f"slots_{mode}": slots_picture(grid) for mode, grid in grids.items()},
            **{panel: chart_picture(chart, panel) for panel in PANELS},
            "table": table_part(chart),
        },
    }


def start(args: JSONObject) -> JSONObject:
    """A fresh, cold run for the chosen prompt, token count and mode."""
    return view(DecodeRun.of(args, steps=0))


def advance(args: JSONObject) -> JSONObject:
    """The view one step after the run the call names (:meth:`DecodeRun.of`)."""
    return view(DecodeRun.of(args).step())


def back(args: JSONObject) -> JSONObject:
    """The view one step before the run the call names: the Back button."""
    return view(DecodeRun.of(args).back())


def finish(args: JSONObject) -> JSONObject:
    """The view at the end of the run the call names: Generate without the animation."""
    return view(DecodeRun.of(args).finish())


def resume(args: JSONObject) -> JSONObject:
    """The view of the run a link names: the controls' prompt, tokens and mode, ``state["steps"]`` taken.

    The link's page checked each value against its control's range; whether the steps fit the
    tokens is the run's to say, and a refusal comes back as a value like any other.
    """
    return view(DecodeRun.of(args))


_COLD_RUN: JSONObject = {
    "prompt": PROMPT.default,
    "tokens": TOKENS.default,
    "mode": MODE.default,
    "state": {"steps": 0},
}

LAB = Lab(
    name="decode",
    actions={"start": start, "step": advance, "back": back, "finish": finish, "resume": resume},
    update="start",
    controls=(PROMPT, TOKENS, MODE),
    linked_state=(STEPS,),
    resume="resume",
    # Both modes are drawn at every step, side by side; the mode chooses which one the readouts count,
    # so choosing it keeps the run's step (the resume action), where prompt and tokens start it over.
    keeps_state=(MODE.name,),
    outputs=(
        Output("this_step", "This step"),
        Output("paid", "Paid so far"),
        Output("recompute_total", "If every step recomputed"),
        Output("ratio", "KV cache against recomputing"),
        Output("status", kind="status"),
        Output("progress", kind="progress"),
        Output("summary", kind="summary"),
        *(Output(f"grid_{mode}", name, kind="picture") for mode, name in MODE_NAMES.items()),
        *(Output(f"slots_{mode}", kind="picture") for mode in MODES),
        *(Output(f"grid_words_{mode}") for mode in MODES),
        Output("grid_note"),
        Output("per_step", "Cells per step", kind="picture"),
        Output("totals", "Cells paid so far", kind="picture"),
        Output("chosen"),
        Output("other"),
        Output("chart_words"),
        Output("table", "Numbers by step", kind="table"),
    ),
    # Generate is the lab's own script (static/labs/decode.js): a timer. Back and Forward move the
    # run a step (the step slider beside them is the linked state "steps", set by a link's resume).
    buttons=(
        Button("generate", "Generate", action=""),
        Button("back", "Back"),
        Button("step", "Forward"),
        Button("reset", "Reset", "start"),
    ),
    warm_up=(
        ("step", _COLD_RUN),
        ("back", {**_COLD_RUN, "state": {"steps": 1}}),
        ("finish", _COLD_RUN),
        ("resume", {**_COLD_RUN, "state": {"steps": 7}}),
    ),
)
