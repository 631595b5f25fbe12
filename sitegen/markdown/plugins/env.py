"""The per-document ``env`` the plugins share: where we are and what went wrong."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, cast

from markdown_it.token import Token

from sitegen.errors import ContentError


def new_env(path: str) -> dict[str, Any]:
    """A fresh env for rendering the chapter at ``path``."""
    return {"path": path, "errors": [], "warnings": []}


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
    env: MutableMapping[str, Any],
    token: Token,
    message: str,
    *,
    child: Token | None = None,
    warning: bool = False,
) -> None:
    """Record a problem at ``token``'s line; the build fails on errors after the whole run."""
    record(env, ContentError(cast(str, env["path"]), line_of(token, child), message), warning=warning)


def record(env: MutableMapping[str, Any], error: ContentError, *, warning: bool = False) -> None:
    """Keep ``error`` (which may name another file, such as a template) with this document's problems."""
    cast(list[ContentError], env["warnings" if warning else "errors"]).append(error)
