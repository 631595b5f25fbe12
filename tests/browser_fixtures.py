"""The built books as the browser suites open them, shared by the Chromium tests (tests/e2e/) and
the Firefox and WebKit ones (tests/browsers/): a pytest plugin, listed once in tests/conftest.py's
``pytest_plugins``, so every suite gets these fixtures from here and none re-exports another's.

A book is opened one of the WAYS: served over http on 127.0.0.1 at a free port, its zip unzipped and
opened via file://, or its single file via file://. Each book's server and folder are session
fixtures made by :func:`book_fixtures`, only for the tests that ask for them.
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sitegen.markdown.pages import page_url
from tests.conftest import TWO_CHAPTERS, Built, book_chapters, unzipped


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class _HTTPServer(http.server.ThreadingHTTPServer):
    """Silent when a page goes away while a file is still being sent (a test ends, a page closes):
    that is the reader leaving, not an error of the site. Any other error is still printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class Server:
    root: Path
    base: str


def serve(
    root: Path, handler: type[http.server.SimpleHTTPRequestHandler] = QuietHandler, path: str = "/"
) -> Generator[Server]:
    """``root`` served by ``handler`` on 127.0.0.1 at a free port; ``path`` is where the site starts."""
    server = _HTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Server(root, f"http://127.0.0.1:{server.server_address[1]}{path}")
    finally:
        server.shutdown()
        server.server_close()


def book_fixtures(book: str, http: str, folder: str) -> tuple[Any, Any]:
    """Two session fixtures for the built book that the fixture ``book`` gives: ``http``, its site
    served on 127.0.0.1 at a free port, and ``folder``, the zip a reader downloads extracted to a
    fresh folder (its top folder). Every book the browser suites open two of the three ways gets
    them from here, by names its tests ask for."""

    def served(request: pytest.FixtureRequest) -> Iterator[Server]:
        yield from serve(request.getfixturevalue(book).site)

    def extracted(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
        return unzipped(request.getfixturevalue(book).zip, tmp_path_factory.mktemp(folder))

    served.__doc__ = f"The {book} book's site served on 127.0.0.1 at a free port."
    extracted.__doc__ = f"The {book} book's zip extracted to a fresh folder: its top folder."
    return pytest.fixture(scope="session", name=http)(served), pytest.fixture(scope="session", name=folder)(extracted)


http_site, unzipped_site = book_fixtures("built", "http_site", "unzipped_site")
"""The real chapter's book (tests/conftest.py's ``built``)."""
added_chapter_http, added_chapter_unzipped = book_fixtures(
    "added_chapter", "added_chapter_http", "added_chapter_unzipped"
)
"""The book with a second author's chapters added (tests/conftest.py's ``added_chapter``)."""


@dataclass(frozen=True)
class Where:
    """How the chapter is opened: its URL, and what counts as inside the site."""

    chapter: str
    origin: str


WAYS = ["http", "file", "single-file"]
"""How every browser test opens the chapter: served, from the unzipped zip, the single file."""
DOCUMENTS = ["http", "single-file"]
"""The two documents a reader can be handed: the site's chapter page (the same bytes over http and
from the unzipped zip via file://, which differ only in how Python's files arrive) and the single
file (its ids chapter-prefixed, its scripts and styles inline). What differs between the two is
what reads ids and what the inlining could lose: axe-core, the keyboard's id references, the
stylesheet's drawings at 360 px, in dark and in print, the Content-Security-Policy (a ``<meta>`` of
the document, the same over http and from the folder) against hostile input; those tests run on
both: ``@pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)``. A behaviour the labs'
script gives both documents alike (a flow of the labs, their readouts at each step) runs on the
chapter page over http; every lab of a single file goes live and redraws in test_every_lab, and
loading is checked every way where it differs (tests/README.md)."""


def opened_way(way: str, book: Built, page: str, served: Callable[[], Server], folder: Callable[[], Path]) -> Where:
    """``page`` of ``book`` opened ``way`` (one of WAYS): served over http (by ``served()``), from its
    unzipped zip (in ``folder()``), or its single file. Only the one that ``way`` needs is called, so
    a fixture's server or folder is made only for the tests that use it. Every way the browser tests
    open a book is this one function."""
    if way == "http":
        server = served()
        return Where(server.base + page, server.base)
    if way == "file":
        top = folder()
        return Where((top / page).as_uri(), top.as_uri() + "/")
    return Where(book.single.as_uri(), book.single.as_uri())


def way_of(request: pytest.FixtureRequest, book: Built, page: str, http: str, folder: str) -> Where:
    """:func:`opened_way` for a fixture parametrized by way: ``request.param``, with the session
    fixtures ``http`` and ``folder`` (:func:`book_fixtures`) as its server and unzipped folder."""
    return opened_way(
        request.param, book, page, lambda: request.getfixturevalue(http), lambda: request.getfixturevalue(folder)
    )


@dataclass(frozen=True)
class Book:
    """The two-chapter book opened one way: its first page, each chapter's page by slug, the origin."""

    first: str
    pages: dict[str, str]
    origin: str
    single: bool


book_http, book_unzipped = book_fixtures("two_chapters", "book_http", "book_unzipped")
"""The two-chapter book (tests/books/two-chapters)."""
kitchen_sink_server, kitchen_sink_unzipped = book_fixtures(
    "kitchen_sink", "kitchen_sink_server", "kitchen_sink_unzipped"
)
"""The kitchen-sink book (tests/books/kitchen-sink)."""


@pytest.fixture(params=WAYS)
def book(request: pytest.FixtureRequest, two_chapters: Built) -> Book:
    """The two-chapter book (tests/books/two-chapters) served, from its unzipped zip, or as its single file."""
    where = way_of(request, two_chapters, "first.html", "book_http", "book_unzipped")
    single = request.param == "single-file"
    pages = {
        chapter.meta.slug: where.chapter if single else where.origin + page_url(chapter)
        for chapter in book_chapters(TWO_CHAPTERS)
    }
    return Book(where.chapter, pages, where.origin, single=single)
