"""A lab as the page knows it (:meth:`kvpage.lab.Lab.schema`), typed: the one declaration of its shape.

``sitegen/site/page_types.py`` writes these, with the page's config, as TypeScript for the page's
script (``site_template/static/kvpage/config.d.ts``), so the Python that builds a schema and the
JavaScript that reads it are checked against the same fields (decision 0060).
"""

from __future__ import annotations

from typing import Literal, TypeAlias, TypedDict

OutputKind: TypeAlias = Literal["text", "status", "progress", "summary", "picture", "table", "list"]
"""How an output is shown (:class:`kvpage.lab.Output`). The first four are texts, in
``view["text"][name]``: a readout (with a
label), a line saying what the lab is doing, how far a run has come, and the lab's summary: what an
answer changed, each number named ("Step 16 of 16: 31 cells this step, …"), the one text a screen
reader is told of after each answer (a polite, atomic live region; the readouts themselves are not
live). The others are element trees (:mod:`kvpage.tree`) in ``view["parts"][name]``: a drawing, a
table's contents, a list's items."""


class NumberSchema(TypedDict):
    """A whole number control (a slider or a number box), or a lab's linked state."""

    name: str
    kind: Literal["slider", "number"]
    label: str
    low: float
    high: float
    range: str
    """The range in words, as every refusal of a value words it (:func:`kvpage.lab.range_words`)."""
    default: float


class DecimalSchema(NumberSchema):
    """A decimal slider: a number control with its step and the decimal places it is printed to."""

    step: float
    places: int


class ChoiceOption(TypedDict):
    """One option of a choice."""

    value: str
    label: str


class ChoiceSchema(TypedDict):
    """One of a few named options (radio buttons)."""

    name: str
    kind: Literal["choice"]
    label: str
    options: list[ChoiceOption]
    default: str


class CheckboxSchema(TypedDict):
    """On or off."""

    name: str
    kind: Literal["checkbox"]
    label: str
    default: bool


class TextSchema(TypedDict):
    """Free text of at most ``limit`` characters (code points)."""

    name: str
    kind: Literal["text"]
    label: str
    limit: int
    rows: int
    default: str | None


ControlSchema: TypeAlias = NumberSchema | DecimalSchema | ChoiceSchema | CheckboxSchema | TextSchema
"""Any control, told apart by its ``kind`` (a decimal slider by its ``step``)."""


class OutputSchema(TypedDict):
    """Something the lab shows: a text (``view.text``) or an element tree (``view.parts``) by its kind."""

    name: str
    kind: OutputKind
    label: str | None


class ButtonSchema(TypedDict):
    """A button, and the action a click calls ("" for none: the lab's own script handles it)."""

    name: str
    label: str
    calls: str


class LabSchema(TypedDict):
    """The lab: the action every input calls, the one a link's state resumes with, and its parts."""

    name: str
    update: str
    resume: str
    controls: list[ControlSchema]
    linked_state: list[NumberSchema]
    keeps_state: list[str]
    buttons: list[ButtonSchema]
    outputs: list[OutputSchema]


SCHEMAS: tuple[type, ...] = (
    NumberSchema,
    DecimalSchema,
    ChoiceOption,
    ChoiceSchema,
    CheckboxSchema,
    TextSchema,
    OutputSchema,
    ButtonSchema,
    LabSchema,
)
"""Every type of a schema, in the order the page's declarations list them."""
