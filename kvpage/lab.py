"""A lab, declared once (``LAB = Lab(...)`` in ``kvpage/labs/NAME.py``): its controls, readouts, buttons
and actions in one value that the bridge dispatches on, the build reads a chapter's ``key=value``
with (:meth:`Lab.parse_params`, decision 0061) and the page gets as JSON (:meth:`Lab.schema`), so a
range typed once cannot disagree. Pure data and the standard library: it runs in the browser too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal, TypeAlias, TypeVar, cast, get_args

from kvpage.jsonvalue import JSONObject, JSONValue, LabInputError
from kvpage.schema import (
    ButtonSchema,
    CheckboxSchema,
    ChoiceOption,
    ChoiceSchema,
    DecimalSchema,
    LabSchema,
    NumberSchema,
    OutputKind,
    OutputSchema,
    TextSchema,
)
from kvpage.tree import TreeError, check

Action: TypeAlias = Callable[[JSONObject], JSONObject]
"""A model function: the JSON the page sends in, the JSON view it shows out."""

NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*\Z")
"""Lab names: lower case words joined by ``-`` (its module is the name with ``_``)."""
LABS_PACKAGE = "kvpage.labs"
"""Where every lab's module is: one module per lab, named after it."""
KEY = re.compile(r"[a-z][a-z0-9_]*\Z")
"""Control, output and action names: they become JSON keys and HTML data attributes."""
INTEGER = re.compile(r"-?[0-9]+\Z")
BETWEEN = 3
"""How many values between a number control's ends the build's sweep tries (at the quarters), besides
its lowest, highest, default and examples: a bounded sweep, one control at a time."""


T = TypeVar("T")


def unique(values: tuple[T, ...]) -> tuple[T, ...]:
    """``values`` without repeats, in their order."""
    return tuple(dict.fromkeys(values))


def module_of(name: str) -> str:
    """The module that declares the lab ``name``: ``kvpage.labs.next_request`` for ``next-request``."""
    return f"{LABS_PACKAGE}.{name.replace('-', '_')}"


def number_schema(control: Whole) -> NumberSchema:
    """What the page knows of a number control (its range, in numbers and in words, and its default):
    one shape for whole numbers and decimals, a decimal slider adding its step."""
    return {
        "name": control.name,
        "kind": control.widget,
        "label": control.label,
        "low": control.low,
        "high": control.high,
        "range": range_words(control),
        "default": control.default,
    }


def range_words(control: Whole | DecimalSlider) -> str:
    """``between LOW and HIGH`` (a decimal's ``in steps of STEP`` added): a number control's range as
    every refusal of a value words it, the model's and the page's link reader's alike."""
    shown = control.shown if isinstance(control, DecimalSlider) else str
    grid = f" in steps of {shown(control.step)}" if isinstance(control, DecimalSlider) else ""
    return f"between {shown(control.low)} and {shown(control.high)}{grid}"


def out_of_range(subject: str, control: Whole | DecimalSlider, value: float) -> str | None:
    """Why ``value`` is not one of ``control``'s values, said of ``subject`` (the reader's label, or a
    chapter's ``name (label)``), or None if it is one. The one range check of a number control and its
    one wording: the model, a chapter's ``key=value`` and the declaration's own default all ask here.
    The page's link reader checks a link's value against the same range, which the build wrote into
    the schema from this declaration with its words (``range``: ``static/kvpage/links.js``)."""
    on_grid = not isinstance(control, DecimalSlider) or control.on_grid(value) is not None
    if control.low <= value <= control.high and on_grid:
        return None
    return f"{subject} must be {range_words(control)}, not {value}"


def too_long(subject: str, control: Text, text: str) -> str | None:
    """Why ``text`` is too long for ``control``, said of ``subject`` (the reader's label, or a chapter's
    ``name (label)``), or None. Its one wording, as :func:`out_of_range` is a number's: the model, a
    chapter's ``key=value`` and the page's link reader (``static/kvpage/links.js``, from the schema's
    ``limit``) say it alike; the length in code points (:func:`text_length`)."""
    length = text_length(text)
    return (
        None
        if length <= control.limit
        else f"{subject} is {length:,} characters; the lab takes at most {control.limit:,}"
    )


@dataclass(frozen=True)
class Whole:
    """A whole number between ``low`` and ``high``; the page shows it as a slider or a number box."""

    name: str
    label: str
    low: int
    high: int
    default: int
    examples: tuple[int, ...] = ()
    """Values the tests and the build's sweep try besides the lowest, highest and default (:meth:`tried`)."""
    widget: ClassVar[Literal["slider", "number"]] = "slider"

    def check(self, value: int) -> int:
        """``value`` if in range, else the message the reader sees (:func:`out_of_range`)."""
        refusal = out_of_range(self.label, self, value)
        if refusal is not None:
            raise LabInputError(refusal)
        return value

    def read(self, args: JSONObject) -> int:
        """This control's value from the JSON the page sent."""
        value = args.get(self.name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise LabInputError(f"{self.label} must be a whole number")
        return self.check(value)

    def schema(self) -> NumberSchema:
        """What the page knows of this control."""
        return number_schema(self)

    def tried(self) -> tuple[int, ...]:
        """What the sweep tries (:data:`BETWEEN`): the default, the ends, the examples and a few values between."""
        span = self.high - self.low
        between = (self.low + span * part // (BETWEEN + 1) for part in range(1, BETWEEN + 1))
        return unique((self.default, self.low, self.high, *self.examples, *between))

    def parse(self, text: str) -> int:
        """This control's starting value from a chapter's ``key=value``."""
        if not INTEGER.match(text):
            raise ValueError(f"{self.name} ({self.label}) must be a whole number, not {text!r}")
        value = int(text)
        refusal = out_of_range(f"{self.name} ({self.label})", self, value)
        if refusal is not None:
            raise ValueError(refusal)
        return value


@dataclass(frozen=True)
class Slider(Whole):
    """A whole number on a range input, its value printed beside it."""

    widget: ClassVar[Literal["slider", "number"]] = "slider"


@dataclass(frozen=True)
class Number(Whole):
    """A whole number in a number box."""

    widget: ClassVar[Literal["slider", "number"]] = "number"


DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?\Z")
"""How a decimal is written in a chapter's ``key=value`` and in a link: digits, at most one point."""


@dataclass(frozen=True)
class DecimalSlider:
    """A number in steps of ``step`` (0.1, 0.05, 0.25) between ``low`` and ``high`` on a range input:
    a temperature, a probability, a learning rate. Its value is always ``low`` plus a whole number
    of steps, rounded to the step's decimal places (:attr:`places`), so 1.1 is 1.1, never
    1.1000000000000001, in the model, beside the slider and in a link."""

    name: str
    label: str
    low: float
    high: float
    default: float
    step: float
    examples: tuple[float, ...] = ()
    """Values the tests and the build's sweep try besides the lowest, highest and default (:meth:`tried`)."""
    widget: ClassVar[Literal["slider", "number"]] = "slider"

    @property
    def places(self) -> int:
        """How many decimal places the step has (0.05: 2), and so every value: what the page prints."""
        written = repr(float(self.step))
        return 0 if "e" in written else len(written.partition(".")[2].rstrip("0"))

    def on_grid(self, value: float) -> float | None:
        """``value`` as the nearest ``low + n * step``, rounded to :attr:`places`, if it is one (None if not)."""
        steps = round((value - self.low) / self.step)
        snapped = round(self.low + steps * self.step, self.places)
        return snapped if abs(snapped - value) <= self.step * 1e-9 else None

    def shown(self, value: float) -> str:
        """``value`` as the page prints it: exactly :attr:`places` decimals."""
        return f"{value:.{self.places}f}"

    def check(self, value: float) -> float:
        """``value`` on the grid, if in range; else the message the reader sees (:func:`out_of_range`)."""
        refusal = out_of_range(self.label, self, value)
        if refusal is not None:
            raise LabInputError(refusal)
        return cast(float, self.on_grid(value))

    def read(self, args: JSONObject) -> float:
        """This control's value from the JSON the page sent (a whole number is a number too)."""
        value = args.get(self.name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise LabInputError(f"{self.label} must be a number")
        return self.check(value)

    def schema(self) -> DecimalSchema:
        return {
            "name": self.name,
            "kind": self.widget,
            "label": self.label,
            "low": self.low,
            "high": self.high,
            "range": range_words(self),
            "default": self.default,
            "step": self.step,
            "places": self.places,
        }

    def tried(self) -> tuple[float, ...]:
        """The default, the ends, the examples and :data:`BETWEEN` values between, each on the grid."""
        count = round((self.high - self.low) / self.step)
        between = (self.low + round(count * part / (BETWEEN + 1)) * self.step for part in range(1, BETWEEN + 1))
        values = (self.default, self.low, self.high, *self.examples, *between)
        return unique(tuple(round(value, self.places) for value in values))

    def parse(self, text: str) -> float:
        """This control's starting value from a chapter's ``key=value``."""
        if not DECIMAL.match(text):
            raise ValueError(
                f"{self.name} ({self.label}) must be a number such as {self.shown(self.default)}, not {text!r}"
            )
        refusal = out_of_range(f"{self.name} ({self.label})", self, float(text))
        if refusal is not None:
            raise ValueError(refusal)
        return cast(float, self.on_grid(float(text)))

    def problems(self) -> list[str]:
        """What is wrong with the declaration itself (its step, its range, its default)."""
        numbers = (self.low, self.high, self.default, self.step)
        if not all(isinstance(n, int | float) and not isinstance(n, bool) and math.isfinite(n) for n in numbers):
            return ["low, high, default and step must be numbers"]
        if self.step <= 0 or not self.low < self.high:
            return [f"needs low < high and a step above 0, not {self.low}..{self.high} by {self.step}"]
        found = [] if self.on_grid(self.high) is not None else [f"high {self.high} is not low plus whole steps"]
        if out_of_range("default", self, self.default) is not None:
            found.append(f"default {self.default} is not in {self.low}..{self.high} in steps of {self.step}")
        return found  # its examples are checked as every control's are (example_refusals)


@dataclass(frozen=True)
class Choice:
    """One of a few named options, shown as radio buttons: ``options`` are (value, label) pairs."""

    name: str
    label: str
    options: tuple[tuple[str, str], ...]
    default: str
    examples: tuple[str, ...] = ()
    """Unused by the sweep, which tries every option; accepted so that every control takes ``examples=``."""
    widget: ClassVar[Literal["choice"]] = "choice"

    def schema(self) -> ChoiceSchema:
        options: list[ChoiceOption] = [{"value": value, "label": label} for value, label in self.options]
        return {
            "name": self.name,
            "kind": self.widget,
            "label": self.label,
            "options": options,
            "default": self.default,
        }

    def tried(self) -> tuple[str, ...]:
        """Every option, the default first."""
        return unique((self.default, *(value for value, _ in self.options)))

    def refusal(self, subject: str, value: object) -> str | None:
        """Why ``value`` is not one of the options, said of ``subject`` (as :func:`out_of_range`), or None."""
        values = [option for option, _ in self.options]
        return None if value in values else f"{subject} must be one of {', '.join(values)}, not {value!r}"

    def read(self, args: JSONObject) -> str:
        value = args.get(self.name)
        refusal = self.refusal(self.label, value)
        if refusal is not None:
            raise LabInputError(refusal)
        return str(value)

    def parse(self, text: str) -> str:
        refusal = self.refusal(f"{self.name} ({self.label})", text)
        if refusal is not None:
            raise ValueError(refusal)
        return text


@dataclass(frozen=True)
class Checkbox:
    """On or off."""

    name: str
    label: str
    default: bool = False
    examples: tuple[bool, ...] = ()
    """Unused by the sweep, which tries both; accepted so that every control takes ``examples=``."""
    widget: ClassVar[Literal["checkbox"]] = "checkbox"

    def schema(self) -> CheckboxSchema:
        return {"name": self.name, "kind": self.widget, "label": self.label, "default": self.default}

    def tried(self) -> tuple[bool, ...]:
        """Both, the default first."""
        return (self.default, not self.default)

    def read(self, args: JSONObject) -> bool:
        value = args.get(self.name)
        if not isinstance(value, bool):
            raise LabInputError(f"{self.label} must be on or off")
        return value

    def parse(self, text: str) -> bool:
        words = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
        if text.lower() not in words:
            raise ValueError(f"{self.name} ({self.label}) must be true or false, not {text!r}")
        return words[text.lower()]


TEXT_LENGTH = "code points"
"""What a Text's ``limit`` counts: Unicode code points (Python's ``len``), so "😀" is one, not the two
UTF-16 units JavaScript's ``length`` counts. The page's link reader counts the same way because its
count is written from this declaration (``sitegen/site/page_script.py``'s ``contract``): a text the model
takes is a text its link gives back."""


def text_length(text: str) -> int:
    """``text``'s length as a Text's ``limit`` counts it (:data:`TEXT_LENGTH`)."""
    return len(text)


@dataclass(frozen=True)
class Text:
    """Free text of at most ``limit`` characters (:data:`TEXT_LENGTH`); no ``default`` means a chapter must give one."""

    name: str
    label: str
    limit: int
    default: str | None = None
    rows: int = 2
    examples: tuple[str, ...] = ()
    """Texts the model takes, for the tests and the build's sweep to type: nothing else is typed into
    the box, so a lab that refuses some input (numbers only, say) says here what it accepts."""
    widget: ClassVar[Literal["text"]] = "text"

    def schema(self) -> TextSchema:
        return {
            "name": self.name,
            "kind": self.widget,
            "label": self.label,
            "limit": self.limit,
            "rows": self.rows,
            "default": self.default,
        }

    def read(self, args: JSONObject) -> str:
        value = args.get(self.name)
        if not isinstance(value, str):
            raise LabInputError(f"{self.label} must be text")
        refusal = too_long(self.label, self, value)
        if refusal is not None:
            raise LabInputError(refusal)
        return value

    def tried(self) -> tuple[str, ...]:
        """The default (empty if none: a chapter gives the text) and the examples."""
        return unique(("" if self.default is None else self.default, *self.examples))

    def parse(self, text: str) -> str:
        refusal = too_long(f"{self.name} ({self.label})", self, text)
        if refusal is not None:
            raise ValueError(refusal)
        return text


Control: TypeAlias = Slider | Number | DecimalSlider | Choice | Checkbox | Text


def example_refusals(control: Control) -> list[tuple[JSONValue, str]]:
    """Each of ``control``'s examples that its own reader refuses, with the reason."""
    found: list[tuple[JSONValue, str]] = []
    for example in control.examples:
        try:
            control.read({control.name: example})
        except LabInputError as error:
            found.append((example, str(error)))
    return found


def read_words(
    words: Sequence[str], controls: Sequence[Control | Whole], kind: str, name: str
) -> tuple[dict[str, JSONValue], list[str]]:
    """A chapter's ``key=value`` words, each read by its control (a lab's and a figure's alike, so the
    build and the page share ranges): the values given, a refused one as None (so that a repeat is
    still a repeat), and every unknown, repeated or bad one as a problem, in the chapter's words."""
    values: dict[str, JSONValue] = {}
    problems: list[str] = []
    by_name = {control.name: control for control in controls}
    for word in words:
        key, equals, text = word.partition("=")
        if not equals:
            problems.append(f"{kind} parameter {word!r} is not key=value")
        elif key not in by_name:
            expected = ", ".join(sorted(by_name)) or "none"
            problems.append(f"{kind} {name!r} has no parameter {key!r}; expected {expected}")
        elif key in values:
            problems.append(f"{kind} parameter {key!r} is given twice")
        else:
            try:
                values[key] = by_name[key].parse(text)
            except ValueError as error:
                problems.append(str(error))
                values[key] = None
    return values, problems


class ParamsRefused(ValueError):
    """A chapter's ``key=value`` words that a lab's controls refuse, every problem at once (the build
    reports each at the lab's line: decision 0061)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = tuple(problems)


TEXT_KINDS: tuple[OutputKind, ...] = ("text", "status", "progress", "summary")


@dataclass(frozen=True)
class Output:
    """Something the lab shows, as its views compute it (see OutputKind).

    A text output with a ``label`` is a readout in the lab; every text output can also be
    shown in the lab's prose as ``[[name]]``. A tree output's ``label`` names it (a figure's title).
    """

    name: str
    label: str | None = None
    kind: OutputKind = "text"

    @property
    def is_text(self) -> bool:
        """Shown as text (``view["text"]``), not as an element tree (``view["parts"]``)."""
        return self.kind in TEXT_KINDS

    def schema(self) -> OutputSchema:
        return {"name": self.name, "kind": self.kind, "label": self.label}


@dataclass(frozen=True)
class Button:
    """A button; clicking it calls ``action`` (default: the button's name) with the controls' values.

    The call also carries ``state`` when the last view had one, so a button can
    move a run on. ``action=""`` leaves the click to the lab's own script.
    """

    name: str
    label: str
    action: str | None = None

    @property
    def calls(self) -> str:
        """The action a click calls ("" for none)."""
        return self.name if self.action is None else self.action

    def schema(self) -> ButtonSchema:
        return {"name": self.name, "label": self.label, "calls": self.calls}


class NotInLab(LookupError):
    """A template named a control or an output its lab does not declare. Said in words: a ``KeyError``
    would print as its repr, quotes escaped (``KeyError: "lab 'square' has no control 'tokenz'"``)."""

    def __str__(self) -> str:
        return str(self.args[0])


def names(declared: Sequence[Control | Output]) -> str:
    """The names of a lab's controls or outputs, as a message lists them ("none" if it has none)."""
    return ", ".join(item.name for item in declared) or "none"


@dataclass(frozen=True)
class Lab:
    """Everything about one lab; see the module docstring for who reads what."""

    name: str
    actions: Mapping[str, Action]
    """The model's entry points, by the name the page calls them with."""
    update: str
    """The action that computes the view from the controls: the starting view, and on every input."""
    controls: tuple[Control, ...] = ()
    outputs: tuple[Output, ...] = ()
    buttons: tuple[Button, ...] = ()
    warm_up: tuple[tuple[str, JSONObject], ...] = ()
    """Extra (action, args) calls for the snapshot; every other action is called with the defaults."""
    linked_state: tuple[Whole, ...] = ()
    """What of a view's ``state`` a link to the lab carries beside its controls, each a whole number
    under its name in the state (decode's ``steps``): a reader's link to a run in progress."""
    resume: str = ""
    """The action that builds the view a link names: the controls' values plus ``state`` holding
    just the ``linked_state`` fields. "" for the update action (when it reads the state itself)."""
    keeps_state: tuple[str, ...] = ()
    """Controls whose input asks for the ``resume`` action with the lab's linked state, not the update:
    a choice of what to look at, not of what to run (decode's mode: the run stays at its step)."""
    experimental: bool = False
    """Off unless a book's ``book.toml`` lists it in ``experimental_labs``."""
    problems: tuple[str, ...] = field(init=False, default=())
    """What is wrong with the declaration itself; the build reports these at the lab's file."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "problems", tuple(self._problems()))

    def _problems(self) -> list[str]:
        found = [] if NAME.match(self.name) else [f"lab name {self.name!r} is not lower-case words joined by '-'"]
        for what, names in (
            ("control", [control.name for control in self.controls]),
            ("output", [output.name for output in self.outputs]),
            ("button", [button.name for button in self.buttons]),
            ("action", list(self.actions)),
        ):
            found += [f"{what} name {name!r} is not a lower-case identifier" for name in names if not KEY.match(name)]
            found += [f"{what} {name!r} is declared twice" for name in sorted({n for n in names if names.count(n) > 1})]
        if self.update not in self.actions:
            found.append(f"update action {self.update!r} is not one of its actions")
        if self.resume and self.resume not in self.actions:
            found.append(f"resume action {self.resume!r} is not one of its actions")
        linked = [state.name for state in self.linked_state]
        found += [f"linked state {name!r} is not a lower-case identifier" for name in linked if not KEY.match(name)]
        found += [
            f"linked state {name!r} is declared twice, or is also a control's name (a link names both alike)"
            for name in sorted({n for n in linked if [*linked, *(c.name for c in self.controls)].count(n) > 1})
        ]
        names = [control.name for control in self.controls]
        found += [
            f"keeps_state names {name!r}, which is not one of its controls"
            for name in self.keeps_state
            if name not in names
        ]
        if self.keeps_state and not self.linked_state:
            found.append("keeps_state needs a linked_state to keep")
        kinds = get_args(OutputKind)
        found += [
            f"output {output.name!r} has kind {output.kind!r}; kinds: {', '.join(kinds)}"
            for output in self.outputs
            if output.kind not in kinds
        ]
        for button in self.buttons:
            if button.calls and button.calls not in self.actions:
                found.append(f"button {button.name!r} calls {button.calls!r}, which is not one of its actions")
        found += [
            f"warm-up calls {name!r}, which is not one of its actions"
            for name, _ in self.warm_up
            if name not in self.actions
        ]
        for what, control in [
            *(("control", c) for c in self.controls),
            *(("linked state", s) for s in self.linked_state),
        ]:
            if isinstance(control, Whole) and not all(
                isinstance(number, int) and not isinstance(number, bool)
                for number in (control.low, control.high, control.default, *control.examples)
            ):
                found.append(
                    f"{what} {control.name!r}: {type(control).__name__} takes whole numbers, not "
                    f"low={control.low!r}, high={control.high!r}, default={control.default!r}; for decimals declare "
                    f"DecimalSlider({control.name!r}, ..., step=0.1)"
                )
                continue
            if isinstance(control, DecimalSlider):
                found += [f"control {control.name!r}: {problem}" for problem in control.problems()]
                continue
            if isinstance(control, Whole) and out_of_range("default", control, control.default) is not None:
                found.append(
                    f"{what} {control.name!r}: default {control.default} is outside {control.low}..{control.high}"
                )
            if isinstance(control, Choice) and control.refusal("default", control.default) is not None:
                found.append(f"control {control.name!r}: default {control.default!r} is not one of its options")
        found += [
            f"control {control.name!r}: example {example!r} is refused: {refusal}"
            for control in self.controls
            for example, refusal in example_refusals(control)
        ]
        return found

    @property
    def module(self) -> str:
        """The module that declares it (:func:`module_of`)."""
        return module_of(self.name)

    def control(self, name: str) -> Control:
        """The control called ``name`` (templates use this for labels and ranges)."""
        for control in self.controls:
            if control.name == name:
                return control
        raise NotInLab(f"lab {self.name!r} has no control {name!r}; its controls: {names(self.controls)}")

    def output(self, name: str) -> Output:
        """The output called ``name`` (templates use this for labels and kinds)."""
        for output in self.outputs:
            if output.name == name:
                return output
        raise NotInLab(f"lab {self.name!r} has no output {name!r}; its outputs: {names(self.outputs)}")

    @property
    def fields(self) -> frozenset[str]:
        """What ``[[field]]`` may show in the lab's prose: its text outputs."""
        return frozenset(output.name for output in self.outputs if output.is_text)

    @property
    def parts(self) -> frozenset[str]:
        """Its tree outputs: pictures, tables and lists."""
        return frozenset(output.name for output in self.outputs if not output.is_text)

    def schema(self) -> LabSchema:
        """The lab as the page knows it: written once into each page that shows it, as JSON.

        The templates print its controls, buttons and outputs from this, and the page's
        script wires them from it: the action every input calls (``update``), each
        control's kind, each button's action, and which outputs are texts and which trees.
        A link to the lab (``static/kvpage/links.js``) is written and read from it too: the
        controls and the ``linked_state`` by name, checked against their kinds and ranges,
        and the view it names built by the ``resume`` action, which an input of a control in
        ``keeps_state`` calls too (with the lab's linked state as it is).
        """
        return {
            "name": self.name,
            "update": self.update,
            "resume": self.resume or self.update,
            "controls": [control.schema() for control in self.controls],
            "linked_state": [state.schema() for state in self.linked_state],
            "keeps_state": list(self.keeps_state),
            "buttons": [button.schema() for button in self.buttons],
            "outputs": [output.schema() for output in self.outputs],
        }

    def view_problems(self, view: JSONObject) -> list[str]:
        """What makes ``view`` not a view of this lab; empty if it is one.

        An action answers with a view, always of one shape: ``{"text": {output: str}, "parts": {output: tree},
        "state": ...}``: a text for every text output, an element tree (:mod:`kvpage.tree`) for every picture,
        table or list, and, optionally, the state the lab's next call carries back (a run in progress).
        """
        extra = sorted(set(view) - {"text", "parts", "state"})
        problems = [f"its view has {', '.join(map(repr, extra))}, which a view does not carry"] if extra else []
        text, parts = view.get("text"), view.get("parts", {})
        if not isinstance(text, dict) or not all(isinstance(value, str) for value in text.values()):
            return [*problems, "its view has no 'text' of strings for the page"]
        if not isinstance(parts, dict):
            return [*problems, "its view's 'parts' is not an object"]
        for what, wanted, got in (("text", self.fields, set(text)), ("part", self.parts, set(parts))):
            if sorted(wanted - got):
                problems.append(f"its view has no {what} for output(s) {', '.join(sorted(wanted - got))}")
            if sorted(got - wanted):
                problems.append(f"its view has {what} for no output: {', '.join(sorted(got - wanted))}")
        state = view.get("state")
        for linked in self.linked_state:
            value = state.get(linked.name) if isinstance(state, dict) else None
            if not isinstance(value, int) or isinstance(value, bool):
                problems.append(
                    f"its view's state has no whole number {linked.name!r}, which a link to the lab carries"
                )
        for name in sorted(set(parts) & self.parts):
            tree = parts[name]
            try:
                if not isinstance(tree, list):
                    raise TreeError("a part is a list of nodes")
                for node in tree:
                    check(node)
            except TreeError as error:
                problems.append(f"its part {name!r} is not a tree: {error}")
        return problems

    def defaults(self) -> dict[str, JSONValue]:
        """Every control at its default (a Text without one is empty)."""
        return {control.name: "" if control.default is None else control.default for control in self.controls}

    def sweep_calls(self, start: Mapping[str, JSONValue], state: JSONValue | None) -> list[tuple[str, JSONObject]]:
        """What the build's sweep calls for a lab placed at ``start`` whose starting view has ``state``:
        the ``update`` action with one control at a time moved to each value it tries (``tried``: a
        number's ends, default, examples and :data:`BETWEEN` values between; every option; both
        checkbox values; a text's default and examples), the others at ``start``; then every button
        that calls the model, pressed once from the start. Bounded: one control at a time, never every
        combination, so a lab of ``n`` controls is called about ``7 * n`` times plus its buttons."""
        carried: JSONObject = {} if state is None else {"state": state}
        calls = [
            (self.update, {**start, control.name: value, **carried})
            for control in self.controls
            for value in control.tried()
            if value != start.get(control.name)
        ]
        calls += [(button.calls, {**start, **carried}) for button in self.buttons if button.calls]
        return calls

    def parse_params(self, words: Sequence[str]) -> dict[str, JSONValue]:
        """Its starting values from a chapter's ``key=value`` words, read by its controls (so the build and
        the page share ranges); ParamsRefused with every unknown, repeated, bad or missing one."""
        values, problems = read_words(words, self.controls, "lab", self.name)
        for key, control in {control.name: control for control in self.controls}.items():
            if key in values:
                continue
            if control.default is None:
                problems.append(f"lab {self.name!r} needs parameter {key!r}")
            else:
                values[key] = control.default
        if problems:
            raise ParamsRefused(problems)
        return values

    def warm_up_calls(self) -> list[tuple[str, JSONObject]]:
        """One call of every action: the declared ones, then the defaults for any action they miss."""
        calls = list(self.warm_up)
        covered = {name for name, _ in calls}
        calls += [(name, self.defaults()) for name in self.actions if name not in covered]
        return calls
