"""``[text](chapter:slug)``: links between chapters of the book.

A link to a chapter the book has becomes a relative link to its page; one to a chapter not written
yet is never a dead link but its text, with a warning unless the book plans that chapter, so that a
warning every build repeats does not bury the new ones (:func:`chapter_links_plugin`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from sitegen.markdown.plugins.env import report

SCHEME = "chapter:"
COMING = "A chapter still to come in this book"
"""The title of a planned chapter's link text (its tooltip): the text itself stays as written."""


def chapter_links_plugin(md: MarkdownIt, pages: Mapping[str, str], planned: Collection[str] = ()) -> None:
    """Resolve ``chapter:SLUG`` links against ``pages`` (slug → relative URL); a link to a slug in
    ``planned`` (a chapter not written yet) becomes its text in a ``span.chapter-planned`` titled :data:`COMING`.

    A link to a chapter the book has becomes a relative link to its page (its
    ``#anchor`` is checked with every other link, see :mod:`sitegen.markdown.links`). A link
    to one it does not have yet renders as plain text (never a dead link) and is
    reported as a warning, which ``--strict`` turns into an error. A chapter the
    book's ``planned_chapters`` names is one the author knows is still to come: its
    links render as their text, exactly as written (a chapter's text is the author's,
    never added to), in a ``span.chapter-planned`` whose title says the chapter is
    coming, with no warning, so that a warning every build repeats does not bury the
    new ones.
    """

    def resolve(state: StateCore) -> None:
        for block in state.tokens:
            if block.type != "inline" or not block.children:
                continue
            kept: list[Token] = []
            closing: list[Token] | None = None  # what the close of a link left out becomes
            for child in block.children:
                href = str(child.attrs.get("href", "")) if child.type == "link_open" else ""
                if href.startswith(SCHEME):
                    slug, _, anchor = href[len(SCHEME) :].partition("#")
                    if slug in pages:
                        child.meta["written"] = unquote(href)
                        child.attrSet("href", pages[slug] + (f"#{anchor}" if anchor else ""))
                    elif slug in planned:
                        kept.append(
                            Token(
                                "chapter_planned_open", "span", 1, attrs={"class": "chapter-planned", "title": COMING}
                            )
                        )
                        closing = [Token("chapter_planned_close", "span", -1)]
                        continue
                    else:
                        report(
                            state.env,
                            block,
                            f"chapter {slug!r} is not in this book; the link renders as plain text",
                            child=child,
                            warning=True,
                        )
                        closing = []
                        continue
                if closing is not None and child.type == "link_close":
                    kept += closing
                    closing = None
                    continue
                kept.append(child)
            block.children = kept

    md.core.ruler.push("chapter_links", resolve)
