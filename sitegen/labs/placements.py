"""A chapter's ``::: lab NAME key=value ...``: its words (:func:`split_info`), read by the lab's own
controls (``Lab.parse_params``) into a :class:`Placement`, and, once the labs stage has computed its
starting view (:mod:`sitegen.labs.stage`), the :class:`LabUse` its template prints.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from markupsafe import Markup

from kvpage.jsonvalue import JSONObject, JSONValue
from kvpage.lab import Lab
from kvpage.schema import ControlSchema, LabSchema, OutputSchema
from sitegen.labs.calls import request
from sitegen.labs.trees import to_html

Value = JSONValue

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
        return request(self.kind.name, self.kind.update, dict(self.params))


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


def split_info(info: str) -> list[str]:
    """The words of a container's info string, quotes honoured.

    Raises ValueError with a message for authors (shlex's own is terse).
    """
    try:
        return shlex.split(info, posix=True)
    except ValueError as error:
        raise ValueError(SHLEX_MESSAGES.get(str(error), str(error))) from None
