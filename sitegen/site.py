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

from sitegen.csp import policy
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


def runtime_config(runtime: Runtime, scripts: list[str]) -> str:
    """The JSON the page's loader reads, safe to embed inside a <script> element.

    ``scripts`` are the runtime files the loader still has to fetch with
    ``<script src>``; the single-file page has them inline already, so none.
    """
    config = {"indexURL": f"{RUNTIME_DIR}/", "scripts": scripts, "lock": runtime.lock, "runtime": runtime.loader}
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
    csp = policy()
    files: dict[str, bytes] = {"index.html": render_page(templates, "index.html", book=book, pages=ordered, csp=csp)}
    config = runtime_config(runtime, list(runtime.scripts))
    for index, page in enumerate(ordered):
        previous: Page | None = ordered[index - 1] if index > 0 else None
        following: Page | None = ordered[index + 1] if index + 1 < len(ordered) else None
        files[page.url] = render_page(
            templates,
            "chapter.html",
            book=book,
            page=page,
            previous=previous,
            next=following,
            runtime_config=config,
            preload=runtime.loader["code"],
            csp=csp,
        )
    files |= static_files(static)
    if any(page.has_labs for page in ordered):
        files |= runtime.files
    return Site(files=dict(sorted(files.items())))


def inline_script(code: bytes, name: str) -> str:
    """``code`` as the text of an inline <script>; refuse what would end the element early."""
    text = code.decode("utf-8")
    lowered = text.lower()
    if "</script" in lowered or "<!--" in lowered:
        raise BuildError([f"{name}: contains '</script' or '<!--' and cannot be inlined in the single-file page"])
    return text


def assemble_single_file(
    pages: Pages, runtime: Runtime, book: Book, templates: jinja2.Environment, static: Path
) -> bytes:
    """One HTML file holding the whole book: styles, runtime and scripts inline, nothing to fetch.

    ``pages`` must be rendered with in-page chapter links (``#slug``). The loader
    finds the runtime's scripts already run, so it loads nothing.
    """
    css = (static / "kvpage.css").read_text(encoding="utf-8")
    scripts = [inline_script(runtime.files[path], path) for path in runtime.scripts]
    scripts.append(inline_script((static / "kvpage.js").read_bytes(), "static/kvpage.js"))
    return render_page(
        templates,
        "single.html",
        book=book,
        pages=pages.pages,
        css=css,
        scripts=scripts,
        runtime_config=runtime_config(runtime, []),
        csp=policy(inline_scripts=scripts, inline_styles=[css]),
    )
