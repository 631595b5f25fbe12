"""The per-document ``env`` the plugins share: where we are and what went wrong."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, cast

from markdown_it.token import Token

from sitegen.errors import ContentError


def new_env(path: str) -> dict[str, Any]:
    """A fresh env for rendering the chapter at ``path``."""
    return {"path": path, "errors": [], "warnings": []}


def line_of(token: Token) -> int:
    """1-based source line of ``token`` (markdown-it's ``map`` is 0-based)."""
    return token.map[0] + 1 if token.map else 1


def report(env: MutableMapping[str, Any], token: Token, message: str, *, warning: bool = False) -> None:
    """Record a problem at ``token``'s line; the build fails on errors after the whole run."""
    bucket = cast(list[ContentError], env["warnings" if warning else "errors"])
    bucket.append(ContentError(cast(str, env["path"]), line_of(token), message))
