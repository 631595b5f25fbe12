"""The per-chapter ``env`` the plugins share, typed: where we are, what went wrong, the labs placed, and
at render time the labs' starting views and the widget that prints them. markdown-it wants a
MutableMapping it may write its own keys into (references, footnotes), so it is one, with our fields
as attributes (decision 0061).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from markdown_it.token import Token

from sitegen.errors import ContentError
from sitegen.labs.placements import LabUse, Placement

Widget = Callable[[LabUse, "ChapterEnv"], str]
"""Renders a lab's controls as HTML; reports its own failures in the env it is given."""
NO_USES: Mapping[tuple[str, int], LabUse] = MappingProxyType({})


@dataclass(frozen=True, eq=False)
class ChapterEnv(dict[str, Any]):
    """One chapter's env: markdown-it's own keys as items, ours as fields."""

    path: str
    errors: list[ContentError] = field(default_factory=list)
    warnings: list[ContentError] = field(default_factory=list)
    placements: list[Placement] = field(default_factory=list)
    """The labs the chapter places, in order (:mod:`sitegen.markdown.plugins.lab_blocks`)."""
    labs: Mapping[tuple[str, int], LabUse] = field(default_factory=lambda: NO_USES)
    """At render time: each placed lab with its starting view, by ``Placement.key`` (the labs stage)."""
    widget: Widget | None = None
    """At render time: what prints a lab's controls (the pages stage's templates)."""

    def rendering(self, labs: Mapping[tuple[str, int], LabUse], widget: Widget) -> ChapterEnv:
        """This env for rendering with ``labs`` and ``widget``: the same problem lists and markdown-it's keys."""
        env = dataclasses.replace(self, labs=labs, widget=widget)
        env.update(self)
        return env

    def quiet(self) -> ChapterEnv:
        """A copy with problem lists of its own, for rendering a token again without reporting twice."""
        env = dataclasses.replace(self, errors=[], warnings=[], placements=[])
        env.update(self)
        return env


def new_env(path: str) -> ChapterEnv:
    """A fresh env for parsing the chapter at ``path``."""
    return ChapterEnv(path)


def chapter(env: Mapping[str, Any]) -> ChapterEnv:
    """The typed env markdown-it hands a rule back (it types it as a plain mapping)."""
    if not isinstance(env, ChapterEnv):
        raise TypeError(f"markdown rendered without new_env(): {type(env).__name__}")
    return env


def line_of(token: Token, child: Token | None = None) -> int:
    """1-based source line of ``token`` (markdown-it's ``map`` is 0-based).

    Inline tokens (``child``, a link or a ``[[field]]`` inside the paragraph
    ``token``) have no map of their own; the rules that make them record how
    many lines into the paragraph they start (see :mod:`sitegen.markdown.plugins.lines`).
    """
    line = token.map[0] + 1 if token.map else 1
    if child is not None:
        line += int(child.meta.get("line_offset", 0))
    return line


def report(
    env: Mapping[str, Any],
    token: Token,
    message: str,
    *,
    child: Token | None = None,
    warning: bool = False,
) -> None:
    """Record a problem at ``token``'s line; the build fails on errors after the whole run."""
    record(env, ContentError(chapter(env).path, line_of(token, child), message), warning=warning)


def record(env: Mapping[str, Any], error: ContentError, *, warning: bool = False) -> None:
    """Keep ``error`` (which may name another file, such as a template) with this document's problems."""
    found = chapter(env)
    (found.warnings if warning else found.errors).append(error)
