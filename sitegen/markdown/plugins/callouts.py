"""``::: english`` / ``::: try`` / ``::: keep``: asides set apart from the prose.

The words of a callout (its heading or bold lead) stay in the Markdown; the
plugin adds only the box and a class to style it by.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from sitegen.markdown.plugins.containers import container
from sitegen.markdown.plugins.env import report


def callouts_plugin(md: MarkdownIt, kinds: Iterable[str]) -> None:
    """Add one container per callout kind, rendered as ``<aside class="callout KIND">``."""
    for kind in kinds:

        def render(
            self: object,
            tokens: Sequence[Token],
            idx: int,
            _options: OptionsDict,
            env: MutableMapping[str, Any],
            kind: str = kind,
        ) -> str:
            return f'<aside class="callout callout-{kind}">\n' if tokens[idx].nesting == 1 else "</aside>\n"

        def check(token: Token, env: MutableMapping[str, Any], kind: str = kind) -> None:
            extra = token.info.strip()[len(kind) :].strip()
            if extra:
                report(env, token, f"callout '{kind}' takes no parameters, got {extra!r}")

        def validate(params: str, _markup: str, kind: str = kind) -> bool:
            return params.split()[:1] == [kind]

        container(md, kind, render=render, validate=validate, on_open=check)
