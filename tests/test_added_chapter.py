"""A second author's chapter, with a lab of its own, added to the book: the book's own tests still pass.

The book's tests (``pytest -m book``: the build, every lab in the browser, links, search) read the
book they check from the book itself, never a list of its chapters or labs, so they must hold for
any book that builds. This adds ``tests/books/added-chapter/`` to a copy of ``content/`` and runs
those tests on it, in a pytest of its own pointed at the copy (``KVPAGE_CONTENT``): two chapters,
"Attention" with the ``softmax`` lab (whose text box refuses what is not a list of numbers and
declares ``examples=``), and "Memory", which holds every construct docs/authoring.md documents, and
the ``memory`` lab, with a control of every kind and every word of the picture vocabulary
(tests/test_added_book.py holds the book to the guide).

The added book is content only (chapters, their images and download, and ``book.toml``; the labs'
models and templates are this checkout's), so the book tests that never read ``KVPAGE_CONTENT`` give there exactly
what they give in this run, and the nested run leaves them out (``READS_NO_BOOK``,
``READS_ITS_OWN_BOOK``, ``SAME_IN_EVERY_BOOK``): it runs every book test that reads the book it is
pointed at.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BOOK_ENVIRONMENT, CONTENT, ROOT

ADDED = ROOT / "tests" / "books" / "added-chapter" / "content"

pytestmark = pytest.mark.e2e
WAYS = "not subpath and not (file and not single)"
"""The browser tests over http and in the single file (which holds every chapter in one page): the
unzipped folder and the sub-path are the same pages as http's, reached another way."""


READS_NO_BOOK = ("tests/sitegen/labs/test_placements.py",)
"""Modules of book tests that never read a book: the labs' declarations, templates and scripts
(kvpage/, site_template/), which an author adding a lab changes, but the added book does not."""
READS_ITS_OWN_BOOK = ("tests/e2e/test_search.py",)
"""Modules of book tests that read only a fixed book of tests/books/, never ``KVPAGE_CONTENT``'s:
search in Chromium, on the two-chapter book (tests/books/two-chapters/) built from this checkout's
templates, scripts and model, none of which the added book changes. In the nested run they built
that book again and opened the same pages again (8 page loads); this run checks them on the same
files. The added book's own searchable text is still checked there (tests/sitegen/search/test_text.py)."""
READS_KVPAGE_CONTENT = re.compile(r"\bCONTENT\b|KVPAGE_CONTENT|\bbuilt\b|site_url|http_site|unzipped_site|rendered")
"""What a module reads ``KVPAGE_CONTENT``'s book through: the name of its folder, or of its builds."""
SAME_IN_EVERY_BOOK = (
    # The command line's default book, content/ of this checkout, not KVPAGE_CONTENT's: three builds
    # of the book this run's own tests/test_build.py builds.
    "tests/test_build.py::test_command_line_reports_success",
    "tests/test_build.py::test_long_steps_show_progress_unless_quiet",
    # The two-chapter book (tests/books/two-chapters/), built for these alone.
    "tests/test_build.py::test_index_shows_each_chapters_number_title_lede_and_labs[two_chapters]",
    "tests/test_build.py::test_a_two_chapter_book_builds_strictly_and_its_first_chapter_has_only_the_search_script",
    "tests/test_build.py::test_without_publish_zip_the_site_has_no_zip_and_no_link",
)
"""Book tests that build a book other than ``KVPAGE_CONTENT``'s: this run checks them, on the same files."""
BOOK_READERS = re.compile(r"tests\.conftest|KVPAGE_CONTENT|\bbuilt\b|two_chapters|shared_book")
"""What a test module reads a book through: the book fixtures and names of tests/conftest.py."""


def book_modules() -> list[str]:
    """The test modules that mark tests ``book`` (``pytest.mark.book``) and read a book: the nested run
    collects only them, not the whole suite's imports for the few tests it selects."""
    here = Path(__file__).resolve()
    found = [path for path in (ROOT / "tests").rglob("test_*.py") if path != here]
    names = [path.relative_to(ROOT).as_posix() for path in found if "mark.book" in path.read_text(encoding="utf-8")]
    for name in READS_NO_BOOK:
        assert name in names and not BOOK_READERS.search((ROOT / name).read_text(encoding="utf-8")), name
    for name in READS_ITS_OWN_BOOK:
        assert name in names and not READS_KVPAGE_CONTENT.search((ROOT / name).read_text(encoding="utf-8")), name
    return sorted(name for name in names if name not in (*READS_NO_BOOK, *READS_ITS_OWN_BOOK))


def added_book(target: Path) -> Path:
    """content/ with the added chapters and their files, and the added book's book.toml (its labs turned on)."""
    book = shutil.copytree(CONTENT, target)
    shutil.copytree(ADDED, book, dirs_exist_ok=True)
    return book


def own_environment() -> dict[str, str]:
    """This process's environment without what pytest and xdist set for their own tests: the pytest
    started here is a run of its own, not a worker of this one."""
    return {
        name: value for name, value in os.environ.items() if not name.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))
    }


def test_the_books_own_tests_pass_with_a_second_authors_chapter_added(tmp_path: Path) -> None:
    book = added_book(tmp_path / "content")
    code = [path for path in ADDED.rglob("*") if path.suffix in (".py", ".html", ".js")]
    assert not code, f"the added book is content only: {code}"
    command = [sys.executable, "-m", "pytest", *book_modules(), "-m", "book", "-k", WAYS, "-q", "-p", "no:randomly"]
    command += ["-p", "no:cacheprovider", "--basetemp", str(tmp_path / "run")]
    command += [f"--deselect={test}" for test in SAME_IN_EVERY_BOOK]
    result = subprocess.run(
        command,
        cwd=ROOT,
        env={**own_environment(), BOOK_ENVIRONMENT: str(book)},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
