"""Shared fixtures: one build of the site per test session, in a temporary folder."""

from __future__ import annotations

import shutil
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402  (the project's build.py, not PyPI's "build")
from sitegen import compiled_stdlib, runtime_cache  # noqa: E402
from sitegen.source import ChapterSource, load_source  # noqa: E402

CONTENT = ROOT / "content"

PROJECT = ("build.py", "pyproject.toml", ".gitignore", "content", "kvpage", "sitegen", "site_template")
"""What a build reads from the project (hatchling reads .gitignore); node_modules is linked, not copied."""
RUNTIME_CACHE = runtime_cache.CACHE_DIR
"""Built runtimes, by the hash of everything they are made from."""
COMPILED_CACHE = compiled_stdlib.CACHE_DIR
"""Pyodide's compiled stdlib, by the hash of Pyodide and the compile script."""


def project_copy(target: Path, *, caches: tuple[Path, ...] = (RUNTIME_CACHE, COMPILED_CACHE)) -> Path:
    """A copy of the project at ``target`` that a test may edit and build.

    The sources are fresh copies (new file times), Pyodide is linked. The ``caches`` of this
    checkout that exist are copied too: they are keyed by content, so they serve the copy exactly
    as they serve the checkout, and a build of the copy pays only for what the test changed (a
    model edit still builds a new runtime; only an unchanged one is reused).
    """
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PROJECT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore, copy_function=shutil.copy)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target / name)
    (target / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    for name in caches:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, target / name)
    return target


def book_chapters(content: Path = CONTENT) -> tuple[ChapterSource, ...]:
    """The book's chapters in order, read by sitegen's own loader.

    Tests derive the chapter list from the book, never write it out: adding
    ``content/04-x.md`` must not need an edit to any test.
    """
    source = load_source(content)
    assert source.complete, "\n".join(str(error) for error in source.errors)
    return source.chapters


def book_chapter(slug: str, content: Path = CONTENT) -> ChapterSource:
    """One chapter of the book, by slug: for tests of that chapter's own text and labs."""
    (chapter,) = [chapter for chapter in book_chapters(content) if chapter.meta.slug == slug]
    return chapter


def index_link_name(chapter: ChapterSource) -> str:
    """The accessible name of a chapter's link in index.html: its headline, then its title."""
    return f"{chapter.meta.headline} {chapter.meta.title}"


@dataclass(frozen=True)
class Built:
    site: Path
    zip: Path
    single: Path
    files: dict[str, bytes]


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """The real chapter built by the real pipeline, once per session, as GitHub Pages publishes it
    (the zip inside the site too, linked from the index page)."""
    out = tmp_path_factory.mktemp("build")
    options = build.Options(out=out / "site", dist=out / "dist", single_file=True, publish_zip=True)
    site = build.build(options)
    yield Built(
        site=options.out,
        zip=options.dist / f"{build.ZIP_TOP}.zip",
        single=options.dist / build.SINGLE_FILE,
        files=site.files,
    )


def unzipped(archive: Path, target: Path) -> Path:
    """``archive`` (the zip a reader downloads) extracted into ``target``: its one top folder."""
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(target)
    (top,) = target.iterdir()
    return top
