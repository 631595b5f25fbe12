"""A ``[`` with no ``]`` after it is text at once: it can start no link, image, footnote or ``[[field]]``.

markdown-it looks for a label's end from every ``[``, so a line of a million unclosed ``[`` took 46 s
to build (issue 34); a ``[`` past the paragraph's last ``]`` is known to be text, and this rule says
so in one step, the page unchanged (:func:`brackets_plugin`).
"""

from __future__ import annotations

import re
import weakref

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

RUN = re.compile(r"[\[!]+")
LAST_CLOSE: weakref.WeakKeyDictionary[StateInline, int] = weakref.WeakKeyDictionary()
"""Where the last ``]`` of an inline run's source is (-1: none), found once for each run."""


def unclosed_bracket(state: StateInline, silent: bool) -> bool:
    """A run of ``[`` and ``!`` from a ``[`` or ``![`` after the source's last ``]``: plain text,
    consumed here in one step (one at a time, the pending text would be copied once for each)."""
    start = state.pos
    if not (state.src.startswith("[", start) or state.src.startswith("![", start)):
        return False
    last = LAST_CLOSE.get(state)
    if last is None:
        last = LAST_CLOSE[state] = state.src.rfind("]")
    if start < last:
        return False
    run = RUN.match(state.src, start, state.posMax)
    assert run is not None  # the source holds "[" here
    if not silent:
        state.pending += run.group()
    state.pos = run.end()
    return True


def brackets_plugin(md: MarkdownIt) -> None:
    """Read a ``[`` that nothing closes as text in one step (before the rules that start at ``[``).

    markdown-it looks for the end of a link's label from every ``[`` it meets, each look nesting up to
    its inline limit (20) before it gives up, so a ``[`` that is never closed costs about 20 of its
    steps: a line of a million ``[`` took 46 s to build (issue 34). Every construct that starts at a
    ``[`` (links, images, footnote references, a lab's ``[[field]]``) needs a ``]`` after it, so a ``[``
    past the paragraph's last ``]`` is known to be text before any rule looks for a label; this rule,
    ahead of them, says so in one step. The page is the same; only the time changes. Brackets that
    do close somewhere after still cost markdown-it its steps (docs/refusals.md, "Not refused, but
    slow", has the figures).
    """
    md.inline.ruler.before("link", "unclosed_bracket", unclosed_bracket)
