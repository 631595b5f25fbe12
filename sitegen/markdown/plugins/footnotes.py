"""Footnotes (``[^1]`` and ``[^1]: …``), by mdit-py-plugins' footnote plugin, as GFM has them.

Two additions: the link back is named for what it does, and the plugin's two silences (a reference
without its note, a note nothing refers to) are reported at their line (:func:`footnotes_plugin`).
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import render_footnote_anchor

from sitegen.errors import ContentError
from sitegen.markdown.plugins.env import chapter, line_of, record, report

UNDEFINED = re.compile(r"\[\^([^\]\s]+)\]")
UNUSED = (
    "footnote [^{label}] is never referred to, so the page leaves its note out: cite it with [^{label}] or remove it"
)


def footnotes_plugin(md: MarkdownIt) -> None:
    """GFM footnotes; a named back link; a reference without its note is an error.

    The plugin numbers the notes and lists them at the end of the chapter, each with a link
    back to where it was cited. Two additions: that link is named for what it does ("Back to
    reference 1") rather than read out as an arrow, and the plugin's two silences are
    reported: a reference whose note is never written, which it leaves in the text as ``[^1]``,
    is an error at its line; a note that no text refers to, which it leaves out of the page, is a
    warning at the note's line (an error under ``--strict``), since the author wrote it to be read.
    """
    md.use(footnote_plugin, inline=False)

    def render_back(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        number = int(tokens[idx].meta["id"]) + 1
        link = render_footnote_anchor(self, tokens, idx, options, env)
        named = f' class="footnote-backref" aria-label="Back to reference {number}"'
        return link.replace(' class="footnote-backref"', named, 1)

    def check(state: StateCore) -> None:
        for block in state.tokens:
            for child in block.children or ():
                if child.type != "text":
                    continue
                for match in UNDEFINED.finditer(child.content):
                    label = match.group(1)
                    message = f"footnote [^{label}] has no note: add a line '[^{label}]: …' (after a blank line)"
                    lines_in = block.content[: max(0, block.content.find(match.group(0)))].count("\n")
                    record(state.env, ContentError(chapter(state.env).path, line_of(block) + lines_in, message))

    def unused(state: StateCore) -> None:
        refs = state.env.get("footnotes", {}).get("refs", {})
        for token in state.tokens:
            if token.type == "footnote_reference_open" and refs.get(f":{token.meta['label']}", -1) < 0:
                report(state.env, token, UNUSED.format(label=token.meta["label"]), warning=True)

    md.add_render_rule("footnote_anchor", render_back)
    md.core.ruler.push("footnotes_defined", check)
    md.core.ruler.before("footnote_tail", "footnotes_unused", unused)
