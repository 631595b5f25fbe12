"""Links and images inside the book must land: on a page the site has, at a heading it has, or on a file of the book.

This runs once every chapter is parsed, because a link may point into any of them. The build never
touches the network, and the page loads nothing from outside itself; what is checked and why:
:func:`check_links`.
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from markdown_it.token import Token

from sitegen.book.assets import Asset
from sitegen.book.image_size import IMAGE_TYPES, RASTER, ImageError, raster_size
from sitegen.errors import ContentError
from sitegen.markdown.ids import start_tags
from sitegen.markdown.plugins.env import chapter, line_of, record, report

ROOT_PATH = "a path from the server's root breaks when the site is opened from disk; write a relative link"
SHOWABLE = "PNG, JPEG, GIF, WebP or SVG"
RAW_REFERENCES = {
    "a": "href",
    "area": "href",
    "img": "src",
    "source": "src",
    "video": "src",
    "audio": "src",
    "track": "src",
}
"""The attribute of raw HTML that names a file, by element (an ``<img>``'s must be an image)."""
OUTSIDE = "it is outside the book's folder, and the site holds only the book's own files: move the file into content/"


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
    assets: Mapping[str, Asset] = field(default_factory=dict)
    """The book's own files (images, downloads) by their path relative to ``content/``."""
    refused: Mapping[str, str] = field(default_factory=dict)
    """Paths of the book the build refused to read (a link out of its folder, a page or script), files or
    folders → the path its own error names them by."""


def heading_ids(tokens: Sequence[Token]) -> frozenset[str]:
    """The ids of a parsed chapter's headings."""
    return frozenset(str(token.attrs["id"]) for token in tokens if token.type == "heading_open" and "id" in token.attrs)


def book_path(path: str, here: str) -> str:
    """A link's path as a path of the site (``img/x.svg``), ``here`` when it has none."""
    return posixpath.normpath(unquote(path)) if path else here


def outside(path: str) -> str | None:
    """Why ``path`` (normalised) is not a path inside the book, or None if it is."""
    if path == ".." or path.startswith("../"):
        return OUTSIDE
    return None


def refused(path: str, targets: Targets) -> str | None:
    """Why ``path`` names a file the build refused (or one in a refused folder), or None."""
    parts = path.split("/")
    for count in range(len(parts), 0, -1):
        prefix = "/".join(parts[:count])
        if prefix in targets.refused:
            return f"the build refuses {targets.refused[prefix]} (its own error says why)"
    return None


def missing(path: str, targets: Targets) -> str:
    """What to say about a path that is neither a page nor a file of the book, with the likeliest one meant."""
    known = sorted({*targets.anchors, *targets.assets})
    guess = difflib.get_close_matches(path, known, n=1, cutoff=0.8)
    hint = f" (did you mean {guess[0]!r}?)" if guess else ""
    if path.endswith(".html"):
        return f"the site has no page {path!r}{hint}"
    return f"the book has no file {path!r}{hint}"


def link_problem(href: str, here: str, targets: Targets) -> str | None:
    """Why ``href``, on page ``here``, leads nowhere; None if it lands (or leaves the site)."""
    parts = urlsplit(href)
    if parts.scheme == "file":
        return "a file: URL points into the author's own disk, not the book: put the file in content/"
    if parts.scheme or parts.netloc:
        return None
    if parts.path.startswith("/"):
        return ROOT_PATH
    page = book_path(parts.path, here)
    fragment = unquote(parts.fragment)
    if page in targets.anchors:
        ids = targets.anchors[page]
        if not fragment or fragment in ids:
            return None
        where = "this chapter" if page == here else targets.sources.get(page, page)
        guess = difflib.get_close_matches(fragment, sorted(ids), n=1)
        hint = f" (did you mean {guess[0]!r}?)" if guess else ""
        return f"{where} has no heading with the id {fragment!r}{hint}"
    problem = outside(page) or refused(page, targets)
    if problem is not None:
        return problem
    if page in targets.assets or page in targets.files or not targets.complete:
        return None
    return missing(page, targets)


def image_problem(src: str, targets: Targets) -> str | None:
    """Why ``src`` is not an image of the book the page can show; None if it is."""
    parts = urlsplit(src)
    if parts.scheme or parts.netloc:
        return "an image must be a file of the book (the page loads nothing from outside itself): put it in content/"
    if parts.path.startswith("/"):
        return ROOT_PATH
    if not parts.path:
        return "an image needs the path of its file"
    path = book_path(parts.path, "")
    problem = outside(path) or refused(path, targets)
    if problem is not None:
        return problem
    asset = targets.assets.get(path)
    if asset is None:
        return missing(path, targets)
    if not asset.is_image:
        return f"{path!r} is not an image a page can show ({SHOWABLE}: {', '.join(sorted(IMAGE_TYPES))})"
    return unreadable(asset)


def unreadable(asset: Asset) -> str | None:
    """Why an image of the book cannot be shown, if its bytes are not the image its name says.

    The file's own error names only the file; this one is at each line that shows it (issue 34).
    """
    if asset.size is not None or asset.media_type not in RASTER:
        return None
    try:
        raster_size(asset.media_type, asset.data)
    except ImageError as error:
        return f"{asset.shown} cannot be shown: {error} (by its name, {asset.media_type})"
    return None


def used_asset(href: str, targets: Targets) -> str | None:
    """The file of the book a link or image points at, if any."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = book_path(parts.path, "")
    return path if path in targets.assets else None


def check_links(tokens: Sequence[Token], env: MutableMapping[str, Any], here: str, targets: Targets) -> frozenset[str]:
    """Report, at its line, every link and image of a parsed chapter that leads nowhere; return the
    book's files they use. Each image that lands gets its file's size (``meta["size"]``) for ``<img>``.

    This runs once every chapter is parsed, because a link may point into any of
    them; headings get their ids from mdit-py-plugins' anchors plugin (and a lab
    may set its heading's id). Links that leave the site (``https:``, ``mailto:``)
    are not followed: the build never touches the network. Images never leave it:
    the page loads nothing from outside itself, so an image is always a file of the
    book (:mod:`sitegen.book.assets`), and the check records its size for ``<img>``.
    A link or an image may not climb out of the book's folder (``../``): the site
    holds only what the book holds. Raw HTML in a chapter is held to the same
    rules: an ``<img src>`` or ``<a href>`` is checked, and the file it names ships
    (:func:`check_raw_html`).
    """
    used: set[str] = set()
    for block in tokens:
        if block.type == "html_block":
            used |= check_raw_html(block.content, line_of(block), env, here, targets)
        if block.type != "inline" or not block.children:
            continue
        for child in block.children:
            if child.type == "html_inline":
                used |= check_raw_html(child.content, line_of(block, child), env, here, targets)
                continue
            if child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                problem = link_problem(href, here, targets)
                if problem is not None:
                    written = str(child.meta.get("written", unquote(href)))
                    report(env, block, f"link to {written!r}: {problem}", child=child)
            elif child.type == "image":
                href = str(child.attrs.get("src", ""))
                problem = image_problem(href, targets)
                if problem is not None:
                    report(env, block, f"image {unquote(href)!r}: {problem}", child=child)
            else:
                continue
            asset = used_asset(href, targets)
            if asset is not None:
                used.add(asset)
                if child.type == "image" and targets.assets[asset].size is not None:
                    child.meta["size"] = targets.assets[asset].size
    return frozenset(used)


def check_raw_html(html: str, line: int, env: MutableMapping[str, Any], here: str, targets: Targets) -> frozenset[str]:
    """The same checks for the files raw HTML names (starting at ``line``); the book's files it uses."""
    used: set[str] = set()
    for offset, tag, attrs in start_tags(html):
        name = RAW_REFERENCES.get(tag)
        value = next((value for key, value in attrs if key == name), None) if name else None
        if value is None:
            continue
        problem = image_problem(value, targets) if tag == "img" else link_problem(value, here, targets)
        if problem is not None:
            what = "image" if tag == "img" else "link to"
            record(env, ContentError(chapter(env).path, line + offset, f"{what} {unquote(value)!r}: {problem}"))
        asset = used_asset(value, targets)
        if asset is not None:
            used.add(asset)
    return frozenset(used)
