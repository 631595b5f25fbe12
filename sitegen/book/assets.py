"""The book's own files besides its chapters: images, SVG drawings, downloads.

All are read before any page is rendered, so the pages stage can check every image and link against
them; images are measured and SVGs checked here, each problem at its file and line. A page or a
script is refused unread, as nothing of the pages' policy would hold for it (:func:`refusal`).
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from sitegen.book.image_size import IMAGE_TYPES, ImageError, raster_size
from sitegen.book.inside import list_files
from sitegen.book.svg import read_svg
from sitegen.errors import ContentError

BOOK_FILES = ("book.toml",)
"""Files at the book's top that are the book's settings, not assets."""
DEFAULT_TYPES = mimetypes.MimeTypes()
"""Python's built-in table only (the system's mime.types differs between machines, and the
single file must not)."""
ACTIVE = frozenset({".html", ".htm", ".xhtml", ".xht", ".shtml", ".xml", ".xsl", ".xslt"})
ACTIVE_SCRIPTS = frozenset({".js", ".mjs", ".cjs"})
ACTIVE_MESSAGE = (
    "a page or a script ({suffix}) cannot be one of the book's files: opened from the site it would run "
    "outside the pages' rules and Content-Security-Policy; put its text in a chapter, or ship it as .txt"
)


@dataclass(frozen=True)
class Asset:
    """One file of the book: where it is (relative to ``content/``), its bytes, and what it holds."""

    path: str
    shown: str
    """The path messages name it by, beside the chapters: ``content/img/x.svg``."""
    data: bytes
    media_type: str
    size: tuple[int, int] | None = None
    """Width and height in CSS pixels, for an image whose size could be read."""

    @property
    def is_image(self) -> bool:
        return self.media_type in IMAGE_TYPES.values()

    def data_uri(self) -> str:
        """The file as a ``data:`` URI, for the single-file book."""
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"


@dataclass(frozen=True)
class Assets:
    """Every asset of the book by its path, and the problems found reading them."""

    files: Mapping[str, Asset]
    errors: tuple[ContentError, ...] = ()
    refused: Mapping[str, str] = field(default_factory=dict)
    """Paths (files or folders) the build refused and did not read → the path messages name them by."""


def media_type(path: str) -> str:
    """The media type a file is served and inlined as, from its name."""
    suffix = PurePosixPath(path).suffix.lower()
    guessed = IMAGE_TYPES.get(suffix) or DEFAULT_TYPES.guess_type(path, strict=False)[0]
    return guessed or "application/octet-stream"


def is_asset(relative: PurePosixPath) -> bool:
    """Whether a file of ``content/`` (relative to it) is an asset, rather than a chapter, the settings or hidden."""
    if any(part.startswith(".") for part in relative.parts):
        return False
    at_top = len(relative.parts) == 1
    return not (at_top and (relative.suffix == ".md" or relative.name in BOOK_FILES))


def read_asset(path: str, shown: str, data: bytes) -> tuple[Asset, list[ContentError]]:
    """One file as an asset: measured if it is an image, checked if it is an SVG."""
    kind = media_type(path)
    if kind == "image/svg+xml":
        svg = read_svg(data)
        problems = [ContentError(shown, line, text) for line, text in svg.problems]
        return Asset(path, shown, data, kind, svg.size), problems
    if kind in IMAGE_TYPES.values():
        try:
            return Asset(path, shown, data, kind, raster_size(kind, data)), []
        except ImageError as error:
            return Asset(path, shown, data, kind), [ContentError(shown, 0, f"{error} (by its name, {kind})")]
    return Asset(path, shown, data, kind), []


def refusal(relative: PurePosixPath) -> str | None:
    """Why a file of the book is refused by its name (a page or a script), or None.

    Two kinds of file are refused, at the file, and never read: a symbolic link out of the
    book's folder (:mod:`sitegen.book.inside`), and a page or a script (``.html``, ``.js``, …).
    Such a file would not be shown by a chapter but opened on its own, from the site's
    folder, where none of the pages' rules hold: no Content-Security-Policy (a page's is in
    its own ``<meta>``), no check of what it runs. Shipping it under the pages' policy would
    mean rewriting the author's file; refusing it is simpler and leaves nothing to trust.
    """
    suffix = relative.suffix.lower()
    if suffix in ACTIVE or suffix in ACTIVE_SCRIPTS:
        return ACTIVE_MESSAGE.format(suffix=suffix)
    return None


def load_assets(content: Path) -> Assets:
    """Read every asset under ``content``; problems are kept on the result, none is raised.

    A symbolic link out of ``content`` and a page or script are refused before they are read.

    Everything under ``content/`` that is not a chapter (``*.md`` at the top), ``book.toml`` or
    hidden (a name starting with ``.``) is an asset. All of them are read here, before any
    page is rendered, so the pages stage can check every image and link against them; the
    ones a chapter refers to are then copied into the site at the same relative path (a
    chapter's page sits at the site's top as its Markdown file sits at the book's top, so
    ``img/x.svg`` means the same file in both), and inlined as ``data:`` URIs in the
    single-file book. The ones nothing refers to are only warned about. Images are measured here
    (their width and height go into ``<img>``), and SVGs are checked for anything that could run
    code (:mod:`sitegen.book.svg`), each problem at its file and line.
    """
    files: dict[str, Asset] = {}
    errors: list[ContentError] = []
    refused: dict[str, str] = {}
    shown_folder = content.name
    listing = list_files(content, is_asset)
    for relative, why in listing.refused.items():
        refused[str(relative)] = f"{shown_folder}/{relative}"
        errors.append(ContentError(refused[str(relative)], 0, why))
    for relative, real in listing.files.items():
        shown = f"{shown_folder}/{relative}"
        why_not = refusal(relative)
        if why_not is not None:
            refused[str(relative)] = shown
            errors.append(ContentError(shown, 0, why_not))
            continue
        asset, problems = read_asset(str(relative), shown, real.read_bytes())
        files[asset.path] = asset
        errors.extend(problems)
    return Assets(files, tuple(errors), refused)
