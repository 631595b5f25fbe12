"""The shape of data that crosses the bridge: plain JSON, nothing else."""

from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = dict[str, JSONValue]


class LabInputError(ValueError):
    """Input a lab cannot use; its message is shown to the reader as is."""


def field(data: JSONObject, name: str, kind: type) -> JSONValue:
    """``data[name]`` if it is of ``kind`` (bool is never an int here), else a LabInputError."""
    if name not in data:
        raise LabInputError(f"missing field {name!r}")
    value = data[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise LabInputError(f"field {name!r} must be {kind.__name__}, not {type(value).__name__}")
    return value


def count(n: int) -> str:
    """A cell count as the page prints it: thousands separated by commas."""
    return f"{n:,}"


def times(more: int, fewer: int) -> str:
    """How many times ``fewer`` goes into ``more``, to one decimal, as the page prints it: ``14.9×``
    (the decode lab's readout and the chapter's thesis figure say it alike)."""
    return f"{more / fewer:.1f}×"
