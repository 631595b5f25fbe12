"""``::: lab NAME key=value`` blocks and ``[[field]]`` live numbers in their prose.

The plugin only parses and checks; the labs stage computes the starting views and the pages stage
renders with them, so a lab is computed once (decision 0062; the steps: :func:`labs_plugin`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Mapping, MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from kvpage.lab import Lab, ParamsRefused
from sitegen.labs.placements import LabUse, Placement, split_info
from sitegen.markdown.plugins.containers import container
from sitegen.markdown.plugins.env import chapter, line_of, report
from sitegen.markdown.plugins.lines import line_offset

FIELD = re.compile(r"\[\[([a-z0-9_]+)\]\]")


def _field_rule(state: StateInline, silent: bool) -> bool:
    match = FIELD.match(state.src, state.pos)
    if not match:
        return False
    if not silent:
        token = state.push("lab_field", "output", 0)
        token.content = match.group(1)
        token.meta["line_offset"] = line_offset(state, state.pos)
    state.pos = match.end()
    return True


def labs_plugin(md: MarkdownIt, kinds: Mapping[str, Lab], off: Collection[str] = ()) -> None:
    """Add lab containers for ``kinds``; the env's ``widget`` renders a lab's controls as HTML.

    ``off`` names labs that exist but this book has not enabled (experimental
    ones): using one is an error that says how to turn it on.

    The plugin only parses. A core rule checks every lab after parsing (unknown lab,
    bad parameter, no heading, unknown field) and hangs its :class:`Placement` (the
    lab, its starting values, its line) on the tokens and in the env's ``placements``.
    The labs stage (``sitegen.labs.stage.starting_views``) computes the starting views; the
    pages stage renders with them in the env's ``labs`` (by ``Placement.key``), and
    the renderers here print the region, each ``[[field]]``'s starting text and, through
    the env's ``widget``, the lab's template (:class:`sitegen.markdown.plugins.env.ChapterEnv`).
    """

    def resolve(state: StateCore) -> None:
        env = state.env
        kind: Lab | None = None
        current: Placement | None = None
        open_token: Token | None = None
        placements = chapter(env).placements
        for index, token in enumerate(state.tokens):
            if token.type == "container_lab_open":
                open_token = token
                kind, current = _resolve_lab(token, state.tokens, index, kinds, off, env)
                token.meta["lab"] = current
                if current is not None:
                    placements.append(current)
            elif token.type == "container_lab_close":
                token.meta["lab"] = current
                kind = current = open_token = None
            elif token.type == "inline" and token.children:
                _place_fields(token, open_token is not None, kind, current, env)

    def render(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        token = tokens[idx]
        use = _use(token, env)
        if use is None:
            return "<section>\n" if token.nesting == 1 else "</section>\n"
        if token.nesting == 1:
            state = f' data-state="{html.escape(use.state, quote=True)}"' if use.state else ""
            return (
                f'<section class="lab lab-{use.kind.name}" data-lab="{use.kind.name}"{state} '
                f'aria-labelledby="{use.heading_id}">\n'
            )
        env = chapter(env)
        if env.widget is None:
            raise TypeError("a lab rendered with no widget: ChapterEnv.rendering() gives it one")
        return env.widget(use, env) + "</section>\n"

    container(md, "lab", validate=lambda params, _markup: params.split()[:1] == ["lab"], render=render)
    md.inline.ruler.before("link", "lab_field", _field_rule)
    md.add_render_rule("lab_field", _render_field)
    md.core.ruler.push("labs", resolve)


def _place_fields(
    token: Token, in_lab: bool, kind: Lab | None, current: Placement | None, env: MutableMapping[str, Any]
) -> None:
    """Tie each ``[[field]]`` of an inline ``token`` to the lab it is in, or report why it cannot be.

    Outside a lab ``[[word]]`` is what CommonMark makes of it, the text itself (issue 46): a chapter may
    write a wiki-style name or a nested list in brackets without it being read as a lab's number."""
    for child in token.children or ():
        if child.type != "lab_field":
            continue
        if not in_lab:
            child.type, child.tag, child.content = "text", "", f"[[{child.content}]]"
        elif kind is not None and child.content not in kind.fields:
            known = ", ".join(sorted(kind.fields))
            message = f"lab {kind.name!r} has no field {child.content!r}; fields: {known}"
            report(env, token, message, child=child)
        elif current is not None:
            child.meta["lab"] = current


def _render_field(
    self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
) -> str:
    token = tokens[idx]
    text = html.escape(field_text(token, env))
    # Not live (an <output> is a polite status by default): the lab's summary says what an answer changed.
    return f'<output class="lab-field" data-field="{html.escape(token.content)}" aria-live="off">{text}</output>'


def field_text(token: Token, env: Mapping[str, Any]) -> str:
    """What a ``[[field]]`` shows before Python is live: its lab's starting text ("" if it has none)."""
    use = _use(token, env)
    return use.text[token.content] if use is not None else ""


def _use(token: Token, env: Mapping[str, Any]) -> LabUse | None:
    """The lab (with its starting view) that ``token`` belongs to, if the labs stage computed one."""
    placement: Placement | None = token.meta.get("lab")
    if placement is None:
        return None
    return chapter(env).labs.get(placement.key)


def _resolve_lab(
    token: Token,
    tokens: Sequence[Token],
    index: int,
    kinds: Mapping[str, Lab],
    off: Collection[str],
    env: MutableMapping[str, Any],
) -> tuple[Lab | None, Placement | None]:
    """The lab's kind (if known: its fields can be checked even when it fails) and its placement."""
    try:
        words = split_info(token.info.strip())[1:]
    except ValueError as error:
        report(env, token, f"cannot read the lab line: {error}")
        return None, None
    name = words[0] if words else ""
    kind = kinds.get(name)
    if kind is None and name in off:
        report(env, token, f'lab {name!r} is experimental: enable it in book.toml with experimental_labs = ["{name}"]')
        return None, None
    if kind is None:
        known = ", ".join(sorted(kinds))
        report(
            env,
            token,
            f"unknown lab {name!r}; known labs: {known}" if name else f"a lab needs a name; known labs: {known}",
        )
        return None, None
    try:
        params, problems = kind.parse_params(words[1:]), []
    except ParamsRefused as refused:
        params, problems = {}, list(refused.problems)
    heading = tokens[index + 1] if index + 1 < len(tokens) else None
    if heading is None or heading.type != "heading_open":
        problems.append(f"lab {name!r} must start with a heading that names it (e.g. '## Lab · ...')")
    for problem in problems:
        report(env, token, problem)
    if problems or heading is None:
        return kind, None
    heading_id = str(heading.attrs.get("id") or f"lab-{name}")
    heading.attrSet("id", heading_id)
    return kind, Placement(kind, params, heading_id, chapter(env).path, line_of(token))
