"""Stage 3, site: every output file as bytes in memory, keyed by its path.

Nothing is written here; the whole site exists in memory before the first byte
reaches disk, so a failure anywhere leaves the previous build untouched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from sitegen.errors import BuildError, ContentError
from sitegen.pages import INDEX, Page, Pages
from sitegen.runtime import RUNTIME_DIR, Runtime
from sitegen.source import Book
from sitegen.templates import TemplateFailed, Templates


@dataclass(frozen=True)
class Site:
    """Every file of the site: relative path → content."""

    files: dict[str, bytes]


def runtime_config(runtime: Runtime) -> str:
    """The JSON the page's loader reads, safe to embed inside a <script> element."""
    config = {"indexURL": f"{RUNTIME_DIR}/", "scripts": list(runtime.scripts), "lock": runtime.lock}
    return json.dumps(config, sort_keys=True).replace("<", "\\u003c")


def static_names(folder: Path) -> dict[str, Path]:
    """The template's static files (none if ``folder`` does not exist) by their ``static/...`` path."""
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    return {f"static/{path.relative_to(folder).as_posix()}": path for path in files}


def static_files(folder: Path) -> dict[str, bytes]:
    """The template's static files, as ``static/...`` paths."""
    return {name: path.read_bytes() for name, path in static_names(folder).items()}


def assemble_site(pages: Pages, runtime: Runtime | None, book: Book, templates: Templates) -> Site:
    """Render the index and every chapter through the templates, add static and runtime files.

    ``runtime`` is needed (and only given) when some page has a lab. Every
    template failure is collected; one failing in many pages is reported once,
    naming the pages.
    """
    ordered = pages.pages
    config = runtime_config(runtime) if runtime is not None else ""
    files: dict[str, bytes] = {}
    failures: dict[ContentError, list[str]] = {}

    def render(url: str, name: str, **context: object) -> None:
        try:
            files[url] = templates.render(name, **context).encode("utf-8")
        except TemplateFailed as failed:
            failures.setdefault(failed.error, []).append(url)

    render(INDEX, "index.html", book=book, pages=ordered)
    for index, page in enumerate(ordered):
        previous: Page | None = ordered[index - 1] if index > 0 else None
        following: Page | None = ordered[index + 1] if index + 1 < len(ordered) else None
        context = {"book": book, "page": page, "previous": previous, "next": following, "runtime_config": config}
        render(page.url, "chapter.html", **context)
    if failures:
        raise BuildError(
            sorted(
                ContentError(error.path, error.line, f"{error.message} (rendering {', '.join(urls)})")
                for error, urls in failures.items()
            )
        )
    files |= static_files(templates.folder / "static")
    if runtime is not None:
        files |= runtime.files
    return Site(files=dict(sorted(files.items())))
