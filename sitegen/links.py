"""Links inside the book must land: on a page the site has, at a heading it has.

This runs once every chapter is parsed, because a link may point into any of
them; headings get their ids from mdit-py-plugins' anchors plugin (and a lab
may set its heading's id). Links that leave the site (``https:``, ``mailto:``)
are not followed: the build never touches the network.
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from markdown_it.token import Token

from sitegen.plugins.env import report


@dataclass(frozen=True)
class Targets:
    """Everything a link inside the book may point at."""

    anchors: Mapping[str, frozenset[str]]
    """Each page of the site (``cache.html``, ``index.html``) → the ids of its headings."""
    sources: Mapping[str, str]
    """Each chapter's page → its Markdown file, to name it in messages."""
    files: frozenset[str]
    """The site's other files (``static/kvpage.css``); their fragments are not checked."""
    complete: bool = True
    """False when a chapter could not be read: a missing page may just be that chapter."""


def heading_ids(tokens: Sequence[Token]) -> frozenset[str]:
    """The ids of a parsed chapter's headings."""
    return frozenset(str(token.attrs["id"]) for token in tokens if token.type == "heading_open" and "id" in token.attrs)


def link_problem(href: str, here: str, targets: Targets) -> str | None:
    """Why ``href``, on page ``here``, leads nowhere; None if it lands (or leaves the site)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return None
    if parts.path.startswith("/"):
        return "a path from the server's root breaks when the site is opened from disk; write a relative link"
    page = posixpath.normpath(unquote(parts.path)) if parts.path else here
    fragment = unquote(parts.fragment)
    if page in targets.anchors:
        ids = targets.anchors[page]
        if not fragment or fragment in ids:
            return None
        where = "this chapter" if page == here else targets.sources.get(page, page)
        guess = difflib.get_close_matches(fragment, sorted(ids), n=1)
        hint = f" (did you mean {guess[0]!r}?)" if guess else ""
        return f"{where} has no heading with the id {fragment!r}{hint}"
    if page in targets.files or not targets.complete:
        return None
    return f"the site has no page {page!r}"


def check_links(tokens: Sequence[Token], env: MutableMapping[str, Any], here: str, targets: Targets) -> None:
    """Report, at its line, every link of a parsed chapter that leads nowhere."""
    for block in tokens:
        if block.type != "inline" or not block.children:
            continue
        for child in block.children:
            if child.type != "link_open":
                continue
            href = str(child.attrs.get("href", ""))
            problem = link_problem(href, here, targets)
            if problem is not None:
                written = str(child.meta.get("written", unquote(href)))
                report(env, block, f"link to {written!r}: {problem}", child=child)
