"""``[text](chapter:slug)``: links between chapters of the book.

A link to a chapter the book has becomes a relative link to its page (its
``#anchor`` is checked with every other link, see :mod:`sitegen.markdown.links`). A link
to one it does not have yet renders as plain text (never a dead link) and is
reported as a warning, which ``--strict`` turns into an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from sitegen.markdown.plugins.env import report

SCHEME = "chapter:"


def chapter_links_plugin(md: MarkdownIt, pages: Mapping[str, str]) -> None:
    """Resolve ``chapter:SLUG`` links against ``pages`` (slug → relative URL)."""

    def resolve(state: StateCore) -> None:
        for block in state.tokens:
            if block.type != "inline" or not block.children:
                continue
            kept: list[Token] = []
            dropping = False
            for child in block.children:
                href = str(child.attrs.get("href", "")) if child.type == "link_open" else ""
                if href.startswith(SCHEME):
                    slug, _, anchor = href[len(SCHEME) :].partition("#")
                    if slug in pages:
                        child.meta["written"] = unquote(href)
                        child.attrSet("href", pages[slug] + (f"#{anchor}" if anchor else ""))
                    else:
                        report(
                            state.env,
                            block,
                            f"chapter {slug!r} is not in this book; the link renders as plain text",
                            child=child,
                            warning=True,
                        )
                        dropping = True
                        continue
                if dropping and child.type == "link_close":
                    dropping = False
                    continue
                kept.append(child)
            block.children = kept

    md.core.ruler.push("chapter_links", resolve)
