"""Shared fixtures: one build of the site per test session, in a temporary folder."""

from __future__ import annotations

import copy
import fcntl
import json
import os
import pickle
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from sitegen import pipeline
from sitegen.book.source import ChapterSource, load_source
from sitegen.site.page_script import CONFIG_ID
from tests import scheduling
from tests.pagetext import json_scripts

ROOT = Path(__file__).resolve().parent.parent

pytest_plugins = ["tests.browser_fixtures"]
"""Fixtures every browser suite shares (tests/e2e/, tests/browsers/): one module, listed here once."""

BOOK_ENVIRONMENT = "KVPAGE_CONTENT"
"""The environment variable that points the tests at another book's folder: the book's own tests
(``pytest -m book``) hold for any book that builds (docs/authoring.md, "3. The chapter, and the tests")."""
CONTENT = Path(os.environ.get(BOOK_ENVIRONMENT) or ROOT / "content").resolve()
ADDED_CHAPTERS = ROOT / "tests" / "books" / "added-chapter" / "content"
"""A second author's chapters, each with a lab of its own, and the ``book.toml`` that turns those labs
on: content only, added to content/ as the book ``added-chapter`` (:func:`book_under_test`)."""
KITCHEN_SINK = ROOT / "tests" / "books" / "kitchen-sink" / "content"
"""A book whose one chapter uses every construct of the Markdown, the book's own files and a lab."""
TWO_CHAPTERS = ROOT / "tests" / "books" / "two-chapters" / "content"
"""A small book of two chapters: one without labs, one with the example lab (docs/authoring.md)."""


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

    @cached_property
    def _loader(self) -> dict[str, Any]:
        """The chapter page's loader config, parsed once a build: an HTML parser in pure Python reads
        the page, and the tests ask for the config many times (each packed file's name too)."""
        (config,) = page_configs(self.files["cache.html"].decode("utf-8"))
        return dict(config["python"])

    @property
    def runtime(self) -> dict[str, Any]:
        """The chapter's loader config (``sitegen.runtime.bundle.Loader``): what names Python's files have
        in this build. A copy: a test may change it."""
        return copy.deepcopy(self._loader)

    def packed(self, name: str) -> str:
        """The site path of the packed binary ``name``: ``pyodide.asm.wasm`` → ``pyodide/pyodide.asm.HASH.wasm.bin``."""
        return f"{self._loader['index_url']}{self._loader['packed'][name]}"  # read only: no copy


def build_book(out: Path, content: Path = CONTENT, **options: Any) -> Built:
    """The book in ``content`` built by the real pipeline into ``out``: its site, zip and single file."""
    chosen = pipeline.Options(content=content, out=out / "site", dist=out / "dist", single_file=True, **options)
    site = pipeline.build(chosen)
    return Built(
        site=chosen.out,
        zip=chosen.dist / f"{pipeline.ZIP_TOP}.zip",
        single=chosen.dist / pipeline.SINGLE_FILE,
        files=site.files,
    )


def shared_book(factory: pytest.TempPathFactory, name: str, content: Path = CONTENT, **options: Any) -> Built:
    """:func:`build_book` once for the whole run, in the run's own folder: the first test worker
    (xdist) that asks builds it under a lock, and every other worker reads that build.

    Each worker runs the session fixtures itself, so a book built per worker was built three times
    under ``make test`` (``pytest -n 3``), each build rendering, indexing, zipping and assembling it
    again. What the pipeline returned (``Built.files``) is kept beside the build, so every worker
    gets the pipeline's own answer, not a re-reading of the disk (tests/test_build.py compares the two).
    """
    run = factory.getbasetemp()  # under xdist, each worker's folder inside the run's
    shared = (run.parent if os.environ.get("PYTEST_XDIST_WORKER") else run) / name
    shared.mkdir(exist_ok=True)
    answer = shared / "files.pickle"
    with (shared / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not answer.exists():
            made = build_book(shared, content, **options)
            staged = answer.with_suffix(".partial")
            staged.write_bytes(pickle.dumps(made.files, protocol=pickle.HIGHEST_PROTOCOL))
            staged.replace(answer)
            return made
    files = pickle.loads(answer.read_bytes())
    return Built(
        shared / "site", shared / "dist" / f"{pipeline.ZIP_TOP}.zip", shared / "dist" / pipeline.SINGLE_FILE, files
    )


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """The real chapter built by the real pipeline, once per run (:func:`shared_book`), as GitHub
    Pages publishes it (the zip inside the site too, linked from the index page)."""
    yield shared_book(tmp_path_factory, "build", CONTENT, publish_zip=True)


@pytest.fixture(scope="session")
def rendered() -> pipeline.Rendered:
    """The book rendered by the real pipeline in memory (nothing written), once per test process:
    for tests of what a stage made (pages, runtime) rather than of the files on disk."""
    return pipeline.render(pipeline.Options(content=CONTENT))


CONTENT_BOOK, ADDED_BOOK = "content", "added-chapter"
BOOKS = (CONTENT_BOOK, ADDED_BOOK)
"""The books the book's own tests (marked ``book``) run on: content/, and content/ with the chapters of
ADDED_CHAPTERS added ("Attention" with the ``softmax`` lab, and "Memory", which holds every construct
docs/authoring.md documents and the ``memory`` lab; tests/test_added_book.py holds that book to the
guide). Those tests read the book they check from the book, never a list of its chapters or labs, so
a correct chapter added by a second author must pass them as the first author's does."""


@dataclass(frozen=True)
class BookUnderTest:
    """One of BOOKS: its name, its folder, its build, and the names of the session fixtures that serve
    that build over http and hold its unzipped zip (tests/browser_fixtures.py's ``book_fixtures``)."""

    name: str
    content: Path
    built: Built
    http: str
    folder: str


EVERY_BOOK = pytest.mark.parametrize("book_under_test", BOOKS, indirect=True)
"""The mark of a test that reads the whole book (its index, its single file, every chapter or lab):
it runs once on each of BOOKS. A test of the chapter's own page or labs (the seed's sentences, the
decode lab) takes ``built`` instead: a chapter added after it leaves its page as it was."""


@pytest.fixture(scope="session")
def added_chapter_content(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """content/ of this checkout with ADDED_CHAPTERS copied over it (its ``book.toml`` replacing
    content's), in a folder of this test process, named ``content`` as an author's is."""
    book = shutil.copytree(ROOT / "content", tmp_path_factory.mktemp(ADDED_BOOK) / "content")
    shutil.copytree(ADDED_CHAPTERS, book, dirs_exist_ok=True)
    return book


@pytest.fixture(scope="session")
def added_chapter(tmp_path_factory: pytest.TempPathFactory, added_chapter_content: Path) -> Built:
    """The added-chapter book built as ``built`` is, once per run (:func:`shared_book`)."""
    return shared_book(tmp_path_factory, ADDED_BOOK, added_chapter_content, publish_zip=True)


@pytest.fixture(scope="session")
def book_under_test(request: pytest.FixtureRequest) -> BookUnderTest:
    """The book a test marked ``EVERY_BOOK`` runs on (``request.param``, one of BOOKS); content/ for a
    test that asks for it unmarked. Only a choice between builds made once per run, so pytest may
    switch between the books as often as the order of the tests makes it."""
    if getattr(request, "param", CONTENT_BOOK) == CONTENT_BOOK:
        return BookUnderTest(CONTENT_BOOK, CONTENT, request.getfixturevalue("built"), "http_site", "unzipped_site")
    content = request.getfixturevalue("added_chapter_content")
    built = request.getfixturevalue("added_chapter")
    return BookUnderTest(ADDED_BOOK, content, built, "added_chapter_http", "added_chapter_unzipped")


RUNAWAY_BOOK = ROOT / "tests" / "books" / "runaway" / "content"
"""The test book of Python's worker: a lab whose button never returns, beside one that answers."""


@pytest.fixture(scope="session")
def runaway_built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The runaway book, built once per run (:func:`shared_book`)."""
    return shared_book(tmp_path_factory, "runaway", RUNAWAY_BOOK, strict=True)


def page_configs(html: str) -> list[dict[str, Any]]:
    """Every config in a page (sitegen.site.PageConfig; a page with labs has one), as JSON, read by an HTML parser."""
    return [json.loads(found) for found in json_scripts(html, CONFIG_ID)]


@pytest.fixture(scope="session")
def kitchen_sink(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The kitchen-sink book built strictly (a warning would fail it), with its single file, once per
    run (:func:`shared_book`)."""
    return shared_book(tmp_path_factory, "kitchen-sink", KITCHEN_SINK, strict=True)


@pytest.fixture(scope="session")
def two_chapters(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The two-chapter book built by the real pipeline, strictly, with its zip and single file, once
    per run (:func:`shared_book`)."""
    return shared_book(tmp_path_factory, "two-chapters", TWO_CHAPTERS, strict=True)


def unzipped(archive: Path, target: Path) -> Path:
    """``archive`` (the zip a reader downloads) extracted into ``target``: its one top folder."""
    with zipfile.ZipFile(archive) as opened:
        opened.extractall(target)
    (top,) = target.iterdir()
    return top


@pytest.hookimpl(trylast=True)  # after pytest's own grouping of tests by their fixtures' parameters
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest work units first (tests/scheduling.py)."""
    scheduling.longest_first(items)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """loadscope with the browser suites spread by way (tests/scheduling.py)."""
    return scheduling.make_scheduler(config, log)
