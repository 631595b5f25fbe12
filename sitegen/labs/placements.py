"""The labs a chapter may use, as the build sees them: ``::: lab NAME key=value ...``, and the labs stage.

Every lab is declared once, in its model's module (``kvpage/labs/NAME.py``
exports ``LAB``; see :mod:`kvpage.lab`). This module only reads those
declarations: a chapter's ``key=value`` words are parsed by the lab's own
controls (so the build and the page share ranges) into a :class:`Placement`.
The labs stage, :func:`lab_stage`, then computes every placement's starting
view with the lab's ``update`` action through ``kvpage.bridge.handle``, the very
JSON call the page's Python answers, so the numbers printed into the page and the
ones the page computes take one path; a refusal, a model failure or a call that
does not finish in the book's ``build_timeout`` is reported at the chapter line
that placed the lab. It then calls every action as the snapshot's warm-up will,
so that a failure there is reported at once, at the lab's ``LAB =`` line.
"""

from __future__ import annotations

import functools
import json
import shlex
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import cast

from markupsafe import Markup

from kvpage import bridge
from kvpage.catalog import find_labs, misnamed
from kvpage.jsonvalue import JSONObject, JSONValue
from kvpage.lab import Lab
from kvpage.schema import ControlSchema, LabSchema, OutputSchema
from sitegen.errors import ContentError
from sitegen.labs.model_errors import import_failure
from sitegen.labs.model_imports import module_file
from sitegen.labs.model_lines import action_at, declared_at, problem_at, raised_at, raised_note, shown_args
from sitegen.labs.model_process import MODEL_HOME, CallTimedOut, ModelProcess, ModelStopped, slow_import
from sitegen.labs.trees import to_html

Value = JSONValue
LAB_SCRIPTS = "static/labs"
"""The site's folder of the labs' own scripts (``site_template/static/labs/``)."""


def lab_script(name: str) -> str:
    """A lab's own script, if it has one: ``LAB_SCRIPTS/NAME.js`` registers itself by that name."""
    return f"{LAB_SCRIPTS}/{name}.js"


SHLEX_MESSAGES = {
    "No closing quotation": "a quote is not closed",
    "No escaped character": "it ends with a lone backslash",
}


@dataclass(frozen=True)
class Placement:
    """One ``::: lab`` of a chapter, as the Markdown plugin read it: which lab, its starting values, where."""

    kind: Lab
    params: Mapping[str, Value]
    heading_id: str
    """The id of the heading that names the lab's region (its controls' ids start with it)."""
    path: str
    line: int

    @property
    def key(self) -> tuple[str, int]:
        """What identifies it across stages: its chapter and line."""
        return self.path, self.line

    def request(self) -> str:
        """The JSON the page would send for this lab at its starting values: its update action."""
        return json.dumps({"lab": self.kind.name, "action": self.kind.update, "args": dict(self.params)})


@dataclass(frozen=True)
class LabUse:
    """One lab placed in a chapter with the starting view the labs stage computed: what its template prints."""

    placement: Placement
    view: JSONObject

    @property
    def kind(self) -> Lab:
        return self.placement.kind

    @property
    def params(self) -> Mapping[str, Value]:
        return self.placement.params

    @property
    def heading_id(self) -> str:
        return self.placement.heading_id

    @property
    def schema(self) -> LabSchema:
        """The lab's schema (``Lab.schema``): what the templates print its widgets from, as the page reads it."""
        return self.kind.schema()

    def control(self, name: str) -> ControlSchema:
        """The schema of control ``name``, as the page reads it (found by ``Lab.control``)."""
        return self.kind.control(name).schema()

    def output(self, name: str) -> OutputSchema:
        """The schema of output ``name``, as the page reads it (found by ``Lab.output``)."""
        return self.kind.output(name).schema()

    @property
    def text(self) -> Mapping[str, str]:
        """The starting view's texts, by output name."""
        return cast(Mapping[str, str], self.view["text"])

    def part(self, name: str) -> Markup:
        """The starting view's tree ``name`` as HTML, for the reader without JavaScript (``sitegen/labs/trees.py``)."""
        return Markup(to_html(cast(dict[str, list[JSONValue]], self.view.get("parts", {}))[name]))

    @property
    def state(self) -> str:
        """The starting view's state as JSON, for the page's script ("" if it has none)."""
        return json.dumps(self.view["state"], sort_keys=True) if "state" in self.view else ""

    @property
    def template(self) -> str:
        """The template of its controls and readouts: ``labs/NAME.html``."""
        return f"labs/{self.kind.name}.html"


def parse_params(lab: Lab, words: list[str]) -> tuple[dict[str, Value], list[str]]:
    """Read ``key=value`` words with ``lab``'s controls; unknown, repeated or bad ones are errors."""
    values: dict[str, Value] = {}
    given: set[str] = set()
    errors: list[str] = []
    controls = {control.name: control for control in lab.controls}
    for word in words:
        key, equals, text = word.partition("=")
        if not equals:
            errors.append(f"lab parameter {word!r} is not key=value")
        elif key not in controls:
            expected = ", ".join(sorted(controls)) or "none"
            errors.append(f"lab {lab.name!r} has no parameter {key!r}; expected {expected}")
        elif key in given:
            errors.append(f"lab parameter {key!r} is given twice")
        else:
            given.add(key)
            try:
                values[key] = controls[key].parse(text)
            except ValueError as error:
                errors.append(str(error))
    for key, control in controls.items():
        if key not in given:
            if control.default is None:
                errors.append(f"lab {lab.name!r} needs parameter {key!r}")
            else:
                values[key] = control.default
    return values, errors


class ViewProblem(str):
    """A starting view the model returned but the page cannot show (NaN in it, an output missing): the
    model's action is at fault, so the build names its line as well as the chapter's."""

    __slots__ = ()


def starting_view(placement: Placement, handle: Callable[[str], str] = bridge.handle) -> LabUse | str:
    """The lab at ``placement`` with its starting view, or what went wrong, as a sentence for the author.

    The view comes from ``handle(placement.request())``: the page's own call. A refusal and a
    failure of the model are both build errors at the lab's line: a page must never ship a lab
    that fails where it starts. So is a view that lacks what the lab's outputs show, and a call
    that does not finish in time (``handle`` raises CallTimedOut: :mod:`sitegen.labs.model_process`).
    """
    name = placement.kind.name
    try:
        reply = json.loads(handle(placement.request()))
    except (CallTimedOut, ModelStopped) as stopped:
        said = f" {stopped}" if isinstance(stopped, CallTimedOut) else f": {stopped}"
        return f"lab {name!r} action {placement.kind.update!r}{said} (args {shown_args(dict(placement.params))})"
    if not reply["ok"]:
        error = bridge.for_the_author(reply)
        if not error.startswith(bridge.FAILED):
            return f"lab {name!r} refuses its starting values: {error}"
        where = raised_note(str(reply.get("traceback", "")))
        said = f"lab {name!r} failed at its starting values: {error.removeprefix(bridge.FAILED)}{where}"
        return ViewProblem(said) if reply.get("advice") else said
    view = cast(JSONObject, reply["result"])
    problems = placement.kind.view_problems(view)
    if problems:
        return ViewProblem(f"lab {name!r}: {'; '.join(problems)}")
    return LabUse(placement, view)


@dataclass(frozen=True)
class Labs:
    """The labs stage's result: every placed lab with its starting view, and the errors of the others."""

    uses: Mapping[tuple[str, int], LabUse]
    """By ``Placement.key``."""
    errors: tuple[ContentError, ...] = ()


def starting_views(placements: Iterable[Placement], handle: Callable[[str], str] = bridge.handle) -> Labs:
    """Every placement's starting view, through ``handle`` (the page's ``kvpage.bridge.handle``)."""
    uses: dict[tuple[str, int], LabUse] = {}
    errors: list[ContentError] = []
    for placement in placements:
        found = starting_view(placement, handle)
        if isinstance(found, str):
            errors.append(ContentError(placement.path, placement.line, found))
            model = action_at(placement.kind, placement.kind.update) if isinstance(found, ViewProblem) else None
            if model is not None:  # the author fixes the model, so it is named at the model's line too
                errors.append(
                    ContentError(*model, f"this action's view, at {placement.path}:{placement.line}: {found}")
                )
        else:
            uses[placement.key] = found
    return Labs(MappingProxyType(uses), tuple(errors))


def warm_up(labs: Iterable[Lab], handle: Callable[[str], str], project: Path) -> list[ContentError]:
    """Every action of ``labs`` called as the snapshot's warm-up calls it (``Lab.warm_up_calls``), at
    its ``LAB =`` line when one fails or does not finish: what would stop the snapshot, found here in
    milliseconds, each call under the time limit, rather than in Pyodide with none."""
    errors: list[ContentError] = []
    for lab in labs:
        where = declared_at(project, lab)
        for action, args in lab.warm_up_calls():
            request = json.dumps({"lab": lab.name, "action": action, "args": args})
            try:
                reply = json.loads(handle(request))
            except (CallTimedOut, ModelStopped) as error:
                said = f" {error}" if isinstance(error, CallTimedOut) else f": {error}"
                message = f"lab {lab.name!r} action {action!r}{said} (build-time warm-up, args {shown_args(args)})"
                errors.append(ContentError(*where, message))
                break  # the lab's other actions would only repeat it, each after the limit
            if not reply["ok"]:
                also = raised_note(str(reply.get("traceback", "")))
                message = (
                    f"lab {lab.name!r} action {action!r} failed at build-time warm-up "
                    f"(args {shown_args(args)}): {bridge.for_the_author(reply)}{also}"
                )
                errors.append(ContentError(*where, message))
    return errors


def swept(use: LabUse, handle: Callable[[str], str]) -> list[ContentError]:
    """The lab at ``use`` called as ``Lab.sweep_calls`` says: each value a reader can reach from its
    controls, and each button from the start. A refusal (``LabInputError``) is the lab's own message
    to the reader and passes; a failure of the model (an exception, a view JSON cannot carry or over
    the bridge's cap), a view that is not the lab's, or a call that does not finish is an error at the
    chapter's lab line, and again at the model's line that raised, when there is one."""
    lab, placement = use.kind, use.placement
    errors: list[ContentError] = []
    for action, args in lab.sweep_calls(use.params, use.view.get("state")):
        moved = {name: value for name, value in args.items() if name != "state" and value != use.params.get(name)}
        at = f"at {shown_args(moved)}" if moved else "from its starting values"
        request = json.dumps({"lab": lab.name, "action": action, "args": args})
        try:
            reply = json.loads(handle(request))
        except (CallTimedOut, ModelStopped) as stopped:
            said = f" {stopped}" if isinstance(stopped, CallTimedOut) else f": {stopped}"
            errors.append(ContentError(*placement.key, f"lab {lab.name!r} action {action!r}{said} (swept {at})"))
            break  # every later call would wait out the limit too
        if reply["ok"]:
            problems = lab.view_problems(cast(JSONObject, reply["result"]))
            if problems:
                errors.append(ContentError(*placement.key, f"lab {lab.name!r} swept {at}: {'; '.join(problems)}"))
            continue
        failure = bridge.for_the_author(reply)
        if not failure.startswith(bridge.FAILED):
            continue
        raised = raised_at(str(reply.get("traceback", "")))
        raised = "" if raised.startswith("kvpage/bridge.py:") else raised  # the model's code is not kvpage's
        where = f" (raised at {raised})" if raised else ""
        said = f"action {action!r} {at}: {failure.removeprefix(bridge.FAILED)}"
        errors.append(ContentError(*placement.key, f"lab {lab.name!r} failed when swept, {said}{where}"))
        if raised:
            path, _, line = raised.rpartition(":")
            errors.append(ContentError(path, int(line), f"lab {lab.name!r} failed here when swept, {said}"))
    return errors


def lab_stage(
    placements: Sequence[Placement], labs: Mapping[str, Lab], project: Path, timeout: float, sweep: bool = True
) -> Labs:
    """Stage "labs": every placement's starting view, then the warm-up of every lab the book may show
    (but those already failing), then (unless ``sweep`` is off) every placed lab swept from its
    starting values (:func:`swept`), all in one model process under ``timeout`` seconds a call."""
    if not placements:
        return Labs(MappingProxyType({}))
    with ModelProcess(timeout) as model:
        found = starting_views(placements, model.handle)
        failing = {placement.kind.name for placement in placements if placement.key not in found.uses}
        warmed = warm_up([lab for name, lab in labs.items() if name not in failing], model.handle, project)
        sweeps = [error for use in found.uses.values() for error in swept(use, model.handle)] if sweep else []
    return Labs(found.uses, (*found.errors, *warmed, *sweeps))


def import_too_slow(timeout: float) -> ContentError | None:
    """The model's import, limited like its calls: where it was when ``timeout`` seconds ran out (a
    loop or a long computation at a module's top level), or None if it finished. Run in a child
    before the build imports the model itself, which has no limit (:func:`model_failure`). Once this
    process has imported the labs (:func:`all_labs`, kept for the process: serve restarts its build
    process when the model changes), there is no import left to limit, and no child is started."""
    if all_labs.cache_info().currsize:
        return None
    found = slow_import(timeout)
    if found is None:
        return None
    message = (
        f"importing the model did not finish in {timeout:g} s (build_timeout); it was running this line. "
        "Importing is limited like a lab's calls: compute what a lab needs when it is called"
    )
    return ContentError(*found, message)


def model_failure() -> ContentError | None:
    """The model's import failure at its line (a syntax error in a lab, say), or None if every lab imports.

    Everything else needs the labs, so the build stops at this one error.
    """
    try:
        all_labs()
    except Exception as error:  # whatever a model file raises as it is imported
        found = import_failure(error, MODEL_HOME)
        if found is None:
            raise
        return found
    return None


def split_info(info: str) -> list[str]:
    """The words of a container's info string, quotes honoured.

    Raises ValueError with a message for authors (shlex's own is terse).
    """
    try:
        return shlex.split(info, posix=True)
    except ValueError as error:
        raise ValueError(SHLEX_MESSAGES.get(str(error), str(error))) from None


@functools.cache
def all_labs() -> Mapping[str, Lab]:
    """Every lab kvpage has (experimental ones too), by name.

    Looked up once per process: a change to the model restarts ``serve``'s build process.
    """
    return MappingProxyType(find_labs())


def enabled_labs(experimental: Iterable[str] = (), labs: Mapping[str, Lab] | None = None) -> Mapping[str, Lab]:
    """The labs a book may use: every lab that is not experimental, and those of ``experimental`` it enables."""
    allowed = set(experimental)
    every = all_labs() if labs is None else labs
    return {name: lab for name, lab in every.items() if not lab.experimental or name in allowed}


def other_labs(labs: Collection[str]) -> frozenset[str]:
    """The module files (``kvpage/labs/square.py``) of every lab kvpage has but ``labs``: what a book
    whose labs are ``labs`` leaves out of its wheel, its snapshot and its runtime's cache key
    (:func:`sitegen.labs.model_imports.model_tree`), so a reader downloads only the labs the book may show
    and an edit to another lab's module rebuilds no runtime of this book."""
    return frozenset(module_file(lab.module) for name, lab in all_labs().items() if name not in labs)


def declaration_errors(project: Path, static: Collection[str], templates: str = "site_template") -> list[ContentError]:
    """What is wrong with the labs' declarations themselves, at their ``LAB =`` line.

    A lab whose button calls no action, whose name is not its module's, or a
    lab script (``static/labs/NAME.js``) for no lab would otherwise build and
    fail only in the reader's browser.
    """
    errors = [
        ContentError(*problem_at(project, lab, problem), f"lab {lab.name!r}: {problem}")
        for lab in all_labs().values()
        for problem in lab.problems
    ]
    for module, name in misnamed():
        errors.append(
            ContentError(
                module_file(module), 0, f"its LAB is named {name!r}; a lab's name is its module's, with '-' for '_'"
            )
        )
    for script in sorted(static):
        folder, _, file = script.rpartition("/")
        if folder == LAB_SCRIPTS and file.endswith(".js") and file.removesuffix(".js") not in all_labs():
            errors.append(ContentError(f"{templates}/{script}", 0, f"there is no lab {file.removesuffix('.js')!r}"))
    return errors
