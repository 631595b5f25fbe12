"""The labs a chapter may declare, and how their Markdown parameters are read.

A lab is declared in Markdown as ``::: lab NAME key=value ...``. Each kind
names its parameters (with the model's own ranges, so the build and the page
can never disagree), the fields its prose may show with ``[[field]]``, the
template of its controls, and how to compute its initial view with the model.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import cast

from kvpage.jsonvalue import JSONObject
from kvpage.labs import decode, next_request, square

Value = int | str
INTEGER = re.compile(r"-?[0-9]+")
SHLEX_MESSAGES = {
    "No closing quotation": "a quote is not closed",
    "No escaped character": "it ends with a lone backslash",
}


@dataclass(frozen=True)
class Param:
    """One ``key=value`` parameter: how to read it and its default (None: required)."""

    read: Callable[[str], Value]
    default: Value | None = None


def whole_number(allowed: range, name: str) -> Callable[[str], Value]:
    """A reader for an integer parameter in ``allowed``; its errors read like sentences."""

    def read(text: str) -> Value:
        if not INTEGER.fullmatch(text):
            raise ValueError(f"{name} must be a whole number, not {text!r}")
        value = int(text)
        if value not in allowed:
            raise ValueError(f"{name} must be between {allowed.start} and {allowed.stop - 1}, not {value}")
        return value

    return read


def text_up_to(limit: int, name: str) -> Callable[[str], Value]:
    """A reader for a text parameter of at most ``limit`` characters."""

    def read(text: str) -> Value:
        if len(text) > limit:
            raise ValueError(f"{name} is {len(text):,} characters; at most {limit:,} are allowed")
        return text

    return read


@dataclass(frozen=True)
class LabKind:
    """Everything the build knows about one kind of lab."""

    name: str
    template: str
    params: Mapping[str, Param]
    fields: frozenset[str]
    initial: Callable[[Mapping[str, Value]], JSONObject]
    experimental: bool = False
    """Off unless the book's ``book.toml`` lists it in ``experimental_labs`` (the example lab)."""


@dataclass(frozen=True)
class LabUse:
    """One lab placed in a chapter: its kind, parameters and initial view."""

    kind: LabKind
    params: Mapping[str, Value]
    view: JSONObject
    heading_id: str

    @property
    def text(self) -> Mapping[str, str]:
        """The initial view's formatted numbers, by field name."""
        return cast(Mapping[str, str], self.view["text"])


def parse_params(kind: LabKind, words: list[str]) -> tuple[dict[str, Value], list[str]]:
    """Read ``key=value`` words for ``kind``; unknown, repeated or bad ones are errors."""
    values: dict[str, Value] = {}
    given: set[str] = set()
    errors: list[str] = []
    for word in words:
        key, equals, text = word.partition("=")
        if not equals:
            errors.append(f"lab parameter {word!r} is not key=value")
        elif key not in kind.params:
            expected = ", ".join(sorted(kind.params)) or "none"
            errors.append(f"lab {kind.name!r} has no parameter {key!r}; expected {expected}")
        elif key in given:
            errors.append(f"lab parameter {key!r} is given twice")
        else:
            given.add(key)
            try:
                values[key] = kind.params[key].read(text)
            except ValueError as error:
                errors.append(str(error))
    for key, param in kind.params.items():
        if key not in given:
            if param.default is None:
                errors.append(f"lab {kind.name!r} needs parameter {key!r}")
            else:
                values[key] = param.default
    return values, errors


def split_info(info: str) -> list[str]:
    """The words of a container's info string, quotes honoured.

    Raises ValueError with a message for authors (shlex's own is terse).
    """
    try:
        return shlex.split(info, posix=True)
    except ValueError as error:
        raise ValueError(SHLEX_MESSAGES.get(str(error), str(error))) from None


DECODE = LabKind(
    name="decode",
    template="labs/decode.html",
    params={
        "prompt": Param(whole_number(decode.PROMPT_RANGE, "prompt (Prefix length)"), 16),
        "tokens": Param(whole_number(decode.TOKENS_RANGE, "tokens (Tokens to generate)"), decode.DEFAULT_TOKENS),
    },
    fields=frozenset({"this_step", "paid", "recompute_total"}),
    initial=lambda params: decode.start({"prompt": params["prompt"], "tokens": params["tokens"], "mode": "kv"}),
)

NEXT_REQUEST = LabKind(
    name="next-request",
    template="labs/next_request.html",
    params={
        "request1": Param(text_up_to(next_request.MAX_REQUEST_CHARS, "request1")),
        "request2": Param(text_up_to(next_request.MAX_REQUEST_CHARS, "request2")),
    },
    fields=frozenset({"request1_cost", "request1_tokens", "shared", "cold", "cached"}),
    initial=lambda params: next_request.compare({"request1": params["request1"], "request2": params["request2"]}),
)

SQUARE = LabKind(
    name="square",
    template="labs/square.html",
    params={"tokens": Param(whole_number(square.TOKENS_RANGE, "tokens (Tokens)"), 16)},
    fields=frozenset({"tokens", "cells"}),
    initial=lambda params: square.compute({"tokens": params["tokens"]}),
    experimental=True,
)
"""The example lab of docs/authoring.md: the smallest complete lab, off by default."""

LAB_KINDS: Mapping[str, LabKind] = {kind.name: kind for kind in (DECODE, NEXT_REQUEST, SQUARE)}


def enabled_kinds(experimental: Iterable[str] = ()) -> Mapping[str, LabKind]:
    """The labs a book may use: every lab that is not experimental, and those of ``experimental`` it enables."""
    allowed = set(experimental)
    return {name: kind for name, kind in LAB_KINDS.items() if not kind.experimental or name in allowed}
