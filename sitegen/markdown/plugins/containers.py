"""``::: name`` containers that report what markdown-it lets pass silently.

mdit-py-plugins' container plugin closes a container never closed without a word, and leaves a
``::: typo`` or a stray ``:::`` in the text as a paragraph: :func:`container` reports the first,
:func:`unknown_containers_plugin` (used after every known container) the others.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, MutableMapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.utils import is_code_block

from sitegen.markdown.plugins.env import report

ALT = ["paragraph", "reference", "blockquote", "list"]
"""The chains the container plugin joins (a container may interrupt a paragraph)."""

STRAY = re.compile(r"(:{3,})[ \t]*")

OnOpen = Callable[[Token, MutableMapping[str, Any]], None]


def opening(token: Token) -> str:
    """``'::: english'``: a container's fence and name, as the author wrote them."""
    words = token.info.split()
    return f"{token.markup} {words[0]}" if words else token.markup


def container(
    md: MarkdownIt,
    name: str,
    render: Callable[..., str],
    validate: Callable[[str, str], bool] | None = None,
    on_open: OnOpen | None = None,
) -> None:
    """The container ``name``; an unclosed one is an error, ``on_open`` checks each opening.

    mdit-py-plugins' container plugin closes a container that is never closed at the end of the
    document (or of the block around it) without a word. Its rule sets ``state.line`` one past the
    closing line when it found one, and to the end of the enclosing block when it did not; that is the
    one reliable sign (the close token's ``markup`` is not: it can hold the opening fence when the
    container is the last line).
    """
    container_plugin(md, name, validate=validate, render=render)
    rule_name = f"container_{name}"
    rules = dict(zip(md.block.ruler.get_active_rules(), md.block.ruler.getRules(""), strict=True))
    rule = rules[rule_name]

    def checked(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        count = len(state.tokens)
        if not rule(state, start, end, silent):
            return False
        if silent:
            return True
        token = state.tokens[count]
        if token.map is not None and state.line == token.map[1]:
            outer = closed_around(state, count)
            if outer is not None:
                report(state.env, outer, cannot_close_message(outer, token))
            else:
                report(state.env, token, unclosed_message(token, inside=end < len(state.bMarks) - 1))
        if on_open is not None:
            on_open(token, state.env)
        return True

    md.block.ruler.at(rule_name, checked, {"alt": ALT})


def closed_around(state: StateBlock, count: int) -> Token | None:
    """The container around the one opened at ``state.tokens[count]`` when that one cannot close in it.

    A container whose fence is no longer than the one inside it ends at the inner one's closing
    line (or sooner): the inner one is then reported unclosed at its own line, which is seldom the
    mistake. The author forgot to close the outer one before it, or meant to nest them and gave
    the outer one too short a fence; both are fixed at the outer one's line.
    """
    inner = state.tokens[count]
    for token in reversed(state.tokens[:count]):
        if token.nesting == 1 and token.level == inner.level - 1:
            if not (token.type.startswith("container_") and token.map is not None):
                return None
            closer = token.map[1]
            fence = state.src[state.bMarks[closer] + state.tShift[closer] : state.eMarks[closer]]
            closed = closer < len(state.bMarks) - 1 and STRAY.fullmatch(fence) is not None
            return token if closed and len(token.markup) <= len(inner.markup) else None
    return None


def cannot_close_message(outer: Token, inner: Token) -> str:
    assert outer.map is not None and inner.map is not None
    fence, inside, line = opening(outer), opening(inner), inner.map[0] + 1
    return (
        f"'{fence}' ends at the '{outer.markup}' on line {outer.map[1] + 1}, so '{inside}' (line {line}) "
        f"cannot close inside it: close '{fence}' before line {line}, or give it a longer fence, "
        f"such as '{':' * (len(inner.markup) + 1)}', to nest '{inside}' in it"
    )


def unclosed_message(token: Token, *, inside: bool) -> str:
    fence = opening(token)
    if inside:
        return (
            f"'{fence}' is not closed inside the block around it: close it there with '{token.markup}' "
            "(to nest containers, give the outer one a longer fence, such as '::::')"
        )
    return f"'{fence}' is not closed: add a '{token.markup}' line where it ends"


def unknown_containers_plugin(md: MarkdownIt, known: Iterable[str]) -> None:
    """Report ``::: name`` for any name not in ``known``, and ``:::`` lines that close nothing."""
    names = sorted(known)

    def validate(params: str, _markup: str) -> bool:
        words = params.split()
        return bool(words) and words[0] not in names

    def report_unknown(token: Token, env: MutableMapping[str, Any]) -> None:
        name = token.info.split()[0]
        report(env, token, f"unknown container {name!r}; known containers: {', '.join(names)}")

    def render_nothing(*_args: object) -> str:
        return ""

    container(md, "unknown", render=render_nothing, validate=validate, on_open=report_unknown)

    def stray(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if is_code_block(state, start):
            return False
        text = state.src[state.bMarks[start] + state.tShift[start] : state.eMarks[start]]
        match = STRAY.fullmatch(text)
        if match is None:
            return False
        if silent:
            return True
        token = state.push("container_stray", "", 0)
        token.map = [start, start + 1]
        token.markup = match.group(1)
        report(state.env, token, f"'{token.markup}' closes nothing: no container is open here")
        state.line = start + 1
        return True

    md.block.ruler.before("fence", "container_stray", stray, {"alt": ALT})
    md.add_render_rule("container_stray", render_nothing)
