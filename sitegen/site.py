"""Stage 3, site: every output file as bytes in memory, keyed by its path.

Nothing is written here; the whole site exists in memory before the first byte
reaches disk, so a failure anywhere leaves the previous build untouched.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

import jinja2

from sitegen.errors import BuildError
from sitegen.pages import Page, Pages
from sitegen.runtime import RUNTIME_DIR, Runtime


@dataclass(frozen=True)
class Book:
    """Settings of the whole book, from ``content/book.toml``."""

    title: str


@dataclass(frozen=True)
class Site:
    """Every file of the site: relative path → content."""

    files: dict[str, bytes]


def load_book(path: Path, shown: str) -> Book:
    """Read ``book.toml``; a missing or malformed one is a content error."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BuildError([f'{shown}: missing; it names the book (title = "...")']) from None
    except tomllib.TOMLDecodeError as error:
        raise BuildError([f"{shown}: {error}"]) from None
    title = data.get("title")
    if not isinstance(title, str) or not title.strip():
        raise BuildError([f"{shown}: 'title' must be a non-empty string"])
    return Book(title=title)


def runtime_config(runtime: Runtime) -> str:
    """The JSON the page's loader reads, safe to embed inside a <script> element."""
    config = {"indexURL": f"{RUNTIME_DIR}/", "scripts": list(runtime.scripts), "lock": runtime.lock}
    return json.dumps(config, sort_keys=True).replace("<", "\\u003c")


def static_files(folder: Path) -> dict[str, bytes]:
    """The template's static files, as ``static/...`` paths."""
    return {
        f"static/{path.relative_to(folder).as_posix()}": path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def render_page(templates: jinja2.Environment, name: str, **context: object) -> bytes:
    try:
        return templates.get_template(name).render(**context).encode("utf-8")
    except jinja2.TemplateError as error:
        raise BuildError([f"site_template/{name}: {type(error).__name__}: {error}"]) from None


def assemble_site(pages: Pages, runtime: Runtime, book: Book, templates: jinja2.Environment, static: Path) -> Site:
    """Render the index and every chapter through the templates, add static and runtime files."""
    ordered = pages.pages
    files: dict[str, bytes] = {"index.html": render_page(templates, "index.html", book=book, pages=ordered)}
    config = runtime_config(runtime)
    for index, page in enumerate(ordered):
        previous: Page | None = ordered[index - 1] if index > 0 else None
        following: Page | None = ordered[index + 1] if index + 1 < len(ordered) else None
        files[page.url] = render_page(
            templates, "chapter.html", book=book, page=page, previous=previous, next=following, runtime_config=config
        )
    files |= static_files(static)
    if any(page.has_labs for page in ordered):
        files |= runtime.files
    return Site(files=dict(sorted(files.items())))
