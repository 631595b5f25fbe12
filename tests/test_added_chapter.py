"""A second author's chapter, with a lab of its own, added to the book: the book's own tests still pass.

The book's tests (``pytest -m book``: the build, every lab in the browser, links, search) read the
book they check from the book itself, never a list of its chapters or labs, so they must hold for
any book that builds. This adds ``tests/books/added-chapter/`` (a chapter with a callout, a table,
code, a formula, a footnote, a cross-chapter link and the ``softmax`` lab, whose text box refuses
what is not a list of numbers and declares ``examples=``) to a copy of ``content/`` and runs those
tests on it, in a pytest of its own pointed at the copy (``KVPAGE_CONTENT``).
"""

from __future__ import annotations

import os
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


def added_book(target: Path) -> Path:
    """content/ with the added chapter's files, and the added book's book.toml (its labs turned on)."""
    book = shutil.copytree(CONTENT, target)
    for path in ADDED.iterdir():
        shutil.copy(path, book / path.name)
    return book


def own_environment() -> dict[str, str]:
    """This process's environment without what pytest and xdist set for their own tests: the pytest
    started here is a run of its own, not a worker of this one."""
    return {
        name: value for name, value in os.environ.items() if not name.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))
    }


def test_the_books_own_tests_pass_with_a_second_authors_chapter_added(tmp_path: Path) -> None:
    book = added_book(tmp_path / "content")
    command = [sys.executable, "-m", "pytest", "-m", "book", "-k", WAYS, "-q", "-p", "no:randomly"]
    command += ["-p", "no:cacheprovider", "--basetemp", str(tmp_path / "run")]
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
