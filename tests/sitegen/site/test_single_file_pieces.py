"""The single file is written a piece at a time (issue 49): the template's text around marks, each
chapter rewritten and each script copied only as it is written, so the book is never one string.

The bytes are the same as the whole page's were: tests/test_reproducible.py and the e2e suites read
the file itself; here, what it costs and what a template must print.
"""

from __future__ import annotations

import shutil
import tracemalloc
from pathlib import Path

import pytest

from bench.book_size import make_book
from sitegen import pipeline
from sitegen.errors import BuildError
from sitegen.site.assemble import assemble_single_file
from sitegen.site.templates import make_templates
from tests.conftest import ROOT

BOOK = ROOT / "tests" / "books" / "same-headings" / "content"


def written(book: Path, target: Path) -> int:
    """The memory (tracemalloc's peak, bytes) it takes to assemble and write ``book``'s single file."""
    rendered = pipeline.render(pipeline.Options(content=book, sweep=False))
    tracemalloc.start()
    try:
        single = assemble_single_file(
            rendered.pages, rendered.runtime, rendered.search, rendered.book, rendered.templates
        )
        with target.open("wb") as handle:
            single.write(handle)
        peak: int = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert single.data() == target.read_bytes()
    return peak


def test_the_single_file_is_never_held_whole(tmp_path: Path) -> None:
    """Twenty chapters more cost less memory than a quarter of what they add to the file: the page as
    one string and then its bytes took twice that and more. (Copies of the chapter, as bench/ makes.)"""
    small, large = make_book(tmp_path, 1), make_book(tmp_path, 21)
    memory = [written(small, tmp_path / "small.html"), written(large, tmp_path / "large.html")]
    grown = (tmp_path / "large.html").stat().st_size - (tmp_path / "small.html").stat().st_size
    assert memory[1] - memory[0] < grown / 4, (memory, grown)


def test_a_template_that_does_not_print_each_chapter_is_refused(rendered: pipeline.Rendered, tmp_path: Path) -> None:
    folder = tmp_path / rendered.templates.folder.name
    shutil.copytree(rendered.templates.folder, folder)
    single = folder / "single.html"
    single.write_text(single.read_text(encoding="utf-8").replace("{{ page.body | safe }}", ""), encoding="utf-8")
    with pytest.raises(BuildError) as raised:
        assemble_single_file(rendered.pages, rendered.runtime, rendered.search, rendered.book, make_templates(folder))
    assert [str(error) for error in raised.value.errors] == [
        f"{folder.name}/single.html: must print each chapter's body and each script once: "
        "{{ page.body | safe }}, {{ code | safe }}"
    ]


def test_a_clash_in_the_single_file_writes_nothing(tmp_path: Path) -> None:
    """The single file is written only while publishing, so its checks run before: a slug that is an id
    of the template fails the build, and neither the site nor dist/ appears."""
    book = tmp_path / "content"
    shutil.copytree(BOOK, book)
    chapter = book / "02-two.md"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("slug: two", "slug: kvpage-search"), "utf-8")
    out = tmp_path / "out"
    options = pipeline.Options(content=book, out=out / "site", dist=out / "dist", single_file=True)
    with pytest.raises(BuildError) as raised:
        pipeline.build(options)
    assert [error.path for error in raised.value.errors] == ["content/02-two.md"]
    assert "slug 'kvpage-search' is also the id of an element" in str(raised.value.errors[0])
    assert not out.exists()
