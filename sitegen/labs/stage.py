"""Stage "labs": every placement's starting view through ``kvpage.bridge.handle``, the very JSON call
the page's Python answers, then every action's warm-up and the sweep, all in one model process under
the book's ``build_timeout`` (:mod:`sitegen.labs.calls`). Each failure is a ``ContentError`` at the
chapter's line, and at the model's when the model is at fault (decision 0061).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import cast

from kvpage import bridge
from kvpage.jsonvalue import JSONObject
from kvpage.lab import Lab
from sitegen.errors import ContentError
from sitegen.labs.calls import Handle, limited_call
from sitegen.labs.model_lines import action_at, declared_at, raised_at, raised_note, shown_args
from sitegen.labs.model_process import ModelProcess
from sitegen.labs.placements import LabUse, Placement
from sitegen.memo import NO_MEMO, Memo

NO_USES: Mapping[tuple[str, int], LabUse] = MappingProxyType({})


@dataclass(frozen=True)
class Labs:
    """The labs stage's result: every placed lab with its starting view, and the errors of the others."""

    uses: Mapping[tuple[str, int], LabUse]
    """By ``Placement.key``."""
    errors: tuple[ContentError, ...] = ()


def failed(placement: Placement, message: str, model: bool = False) -> Labs:
    """``message`` at the chapter's lab line; when the ``model``'s action is at fault (a view the page
    cannot show), at the action's line too, since the author fixes the model."""
    errors = [ContentError(*placement.key, message)]
    at = action_at(placement.kind, placement.kind.update) if model else None
    if at is not None:
        errors.append(ContentError(*at, f"this action's view, at {placement.path}:{placement.line}: {message}"))
    return Labs(NO_USES, tuple(errors))


def starting_view(placement: Placement, handle: Handle = bridge.handle) -> Labs:
    """The lab at ``placement`` with its starting view, or the errors saying what went wrong.

    The view comes from ``handle``: the page's own call. A refusal and a failure of the model are
    both build errors at the lab's line: a page must never ship a lab that fails where it starts. So
    is a view that lacks what the lab's outputs show, and a call that does not finish in time.
    """
    lab, args = placement.kind, dict(placement.params)
    reply = limited_call(handle, lab.name, lab.update, args, placement.key, f"args {shown_args(args)}")
    if isinstance(reply, ContentError):
        return Labs(NO_USES, (reply,))
    if not reply["ok"]:
        error = bridge.for_the_author(reply)
        if not error.startswith(bridge.FAILED):
            return failed(placement, f"lab {lab.name!r} refuses its starting values: {error}")
        where = raised_note(str(reply.get("traceback", "")))
        said = f"lab {lab.name!r} failed at its starting values: {error.removeprefix(bridge.FAILED)}{where}"
        return failed(placement, said, model=bool(reply.get("advice")))
    view = cast(JSONObject, reply["result"])
    problems = lab.view_problems(view)
    if problems:
        return failed(placement, f"lab {lab.name!r}: {'; '.join(problems)}", model=True)
    return Labs(MappingProxyType({placement.key: LabUse(placement, view)}))


def starting_views(placements: Iterable[Placement], handle: Handle = bridge.handle) -> Labs:
    """Every placement's starting view, through ``handle`` (the page's ``kvpage.bridge.handle``)."""
    uses: dict[tuple[str, int], LabUse] = {}
    errors: list[ContentError] = []
    views: dict[str, JSONObject] = {}  # by request: a lab placed alike in many chapters is computed once
    for placement in placements:
        request = placement.request()
        if request in views:
            uses[placement.key] = LabUse(placement, views[request])
            continue
        found = starting_view(placement, handle)  # a failure is asked again, so its errors name each line
        for use in found.uses.values():
            views[request] = use.view
        uses.update(found.uses)
        errors.extend(found.errors)
    return Labs(MappingProxyType(uses), tuple(errors))


def warm_up(labs: Iterable[Lab], handle: Handle, project: Path) -> list[ContentError]:
    """Every action of ``labs`` called as the snapshot's warm-up calls it (``Lab.warm_up_calls``), at
    its ``LAB =`` line when one fails or does not finish: what would stop the snapshot, found here in
    milliseconds, each call under the time limit, rather than in Pyodide with none."""
    errors: list[ContentError] = []
    for lab in labs:
        where = declared_at(project, lab)
        for action, args in lab.warm_up_calls():
            during = f"build-time warm-up, args {shown_args(args)}"
            reply = limited_call(handle, lab.name, action, args, where, during)
            if isinstance(reply, ContentError):
                errors.append(reply)
                break  # the lab's other actions would only repeat it, each after the limit
            if not reply["ok"]:
                also = raised_note(str(reply.get("traceback", "")))
                message = (
                    f"lab {lab.name!r} action {action!r} failed at build-time warm-up "
                    f"(args {shown_args(args)}): {bridge.for_the_author(reply)}{also}"
                )
                errors.append(ContentError(*where, message))
    return errors


def swept(use: LabUse, handle: Handle) -> list[ContentError]:
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
        reply = limited_call(handle, lab.name, action, args, placement.key, f"swept {at}")
        if isinstance(reply, ContentError):
            errors.append(reply)
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
    placements: Sequence[Placement],
    labs: Mapping[str, Lab],
    project: Path,
    timeout: float,
    sweep: bool = True,
    memo: Memo = NO_MEMO,
) -> Labs:
    """Stage "labs": every placement's starting view, then the warm-up of every lab the book may show
    (but those already failing), then (unless ``sweep`` is off) every placed lab swept from its
    starting values (:func:`swept`), all in one model process under ``timeout`` seconds a call
    (started at the first call serve's ``memo`` has no reply to: :func:`remembered`)."""
    if not placements:
        return Labs(NO_USES)
    sound = [placement for placement in placements if not placement.kind.problems]  # a bad declaration is one
    with ModelProcess(timeout) as model:  # error, at its line (declaration_errors), not one more per call of it
        handle = remembered(model.handle, memo)
        found = starting_views(sound, handle)
        failing = {placement.kind.name for placement in placements if placement.key not in found.uses}
        warmed = warm_up([lab for name, lab in labs.items() if name not in failing], handle, project)
        sweeps = swept_once(found.uses.values(), handle) if sweep else []
    return Labs(found.uses, (*found.errors, *warmed, *sweeps))


def remembered(handle: Handle, memo: Memo) -> Handle:
    """``handle``, but a request answered in an earlier build of serve's worker gets that reply: the
    model's answer depends on the request alone, as the page's own calls assume, and an edit to the
    model starts a new worker. A call stopped past the limit raises, and so is never kept."""
    return handle if not memo.active else lambda text: memo.get(("reply", text), (), functools.partial(handle, text))


def swept_once(uses: Iterable[LabUse], handle: Handle) -> list[ContentError]:
    """Every use :func:`swept`, each lab at each starting request once for the book (its starting view,
    state and all, is one per request: :func:`starting_views`): a use like one swept already gets that
    one's errors at its own line."""
    done: dict[str, tuple[tuple[str, int], list[ContentError]]] = {}
    errors: list[ContentError] = []
    for use in uses:
        alike = use.placement.request()
        if alike not in done:
            done[alike] = (use.placement.key, swept(use, handle))
        first, found = done[alike]
        here = use.placement.key
        errors += [
            ContentError(*here, error.message) if (error.path, error.line) == first else error for error in found
        ]
    return errors
