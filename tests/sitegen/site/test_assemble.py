"""The single-file book: chapters that share headings (and a lab) still hold every id once.

The fixture book (tests/books/same-headings/) has two chapters with a ``## Set-up``
heading and a lab under the same heading, linking to each other's. The HTML is
read with the standard library's parser here, not with sitegen's own.
"""

from __future__ import annotations

import shutil
import tracemalloc
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import pytest

from bench.book_size import make_book
from sitegen import pipeline
from sitegen.book.assets import Asset
from sitegen.errors import BuildError
from sitegen.markdown.ids import referring_tags, rewrite_tags
from sitegen.site.assemble import assemble_single_file, asset_inliner
from sitegen.site.templates import make_templates
from tests.conftest import ROOT
from tests.pagetext import Elements

BOOK = ROOT / "tests" / "books" / "same-headings" / "content"
REFERENCES = ("for", "aria-labelledby", "aria-describedby", "aria-controls", "data-shows")


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Elements]:
    out = tmp_path_factory.mktemp("same-headings")
    options = pipeline.Options(content=BOOK, out=out / "site", dist=out / "dist", single_file=True, strict=True)
    pipeline.build(options)
    return options.out, Elements((options.dist / pipeline.SINGLE_FILE).read_text(encoding="utf-8"))


def test_every_id_of_the_single_file_is_unique(single: tuple[Path, Elements]) -> None:
    _, page = single
    ids = page.ids()
    assert [value for value, count in Counter(ids).items() if count > 1] == []
    assert {"one", "two", "one--set-up", "two--set-up", "one--lab--the-square", "two--lab--the-square"} <= set(ids)


def test_every_in_page_link_of_the_single_file_lands(single: tuple[Path, Elements]) -> None:
    _, page = single
    ids = set(page.ids())
    links = [href for href in page.attribute("href", "a") if href.startswith("#")]
    assert {"#one--set-up", "#two--set-up", "#two", "#one--lab--the-square", "#two--lab--the-square"} <= set(links)
    assert [href for href in links if unquote(href[1:]) not in ids] == []
    assert [href for href in page.attribute("href", "a") if ".html" in href] == [], "a link left the single file"


def test_every_id_reference_of_the_single_file_lands(single: tuple[Path, Elements]) -> None:
    _, page = single
    ids = set(page.ids())
    referenced = [(name, value) for name in REFERENCES for refs in page.attribute(name) for value in refs.split()]
    assert ("aria-labelledby", "two--lab--the-square") in referenced
    assert ("for", "one--lab--the-square-tokens") in referenced
    assert [(name, value) for name, value in referenced if value not in ids] == []


def test_each_chapter_keeps_its_table_of_contents_with_a_label_of_its_own(single: tuple[Path, Elements]) -> None:
    _, page = single
    assert page.attribute("aria-label", "nav") == ["One: on this page", "Two: on this page"]


def test_the_pages_of_the_site_keep_their_own_ids(single: tuple[Path, Elements]) -> None:
    site, _ = single
    for name in ("one.html", "two.html"):
        page = Elements((site / name).read_text(encoding="utf-8"))
        ids = page.ids()
        assert len(ids) == len(set(ids)), name
        assert "set-up" in ids and "lab--the-square" in ids
    two = Elements((site / "two.html").read_text(encoding="utf-8"))
    assert "one.html#lab--the-square" in two.attribute("href", "a")


def test_the_single_file_inlines_the_book_s_files_as_data_uris() -> None:
    svg = Asset("img/a b.svg", "content/img/a b.svg", b"<svg/>", "image/svg+xml", (1, 1))
    csv = Asset("files/c.csv", "content/files/c.csv", b"1,2\n", "text/csv")
    body = (
        '<p><img src="img/a%20b.svg" alt="x"> <a href="./files/c.csv#row">numbers</a> '
        '<a href="files/c.csv" download="mine.csv">mine</a> <a href="other.html">page</a> '
        '<img src="https://example.org/x.png" alt="remote"></p>'
    )
    assert rewrite_tags(body, referring_tags(body), asset_inliner({svg.path: svg, csv.path: csv}))[0] == (
        f'<p><img src="{svg.data_uri()}" alt="x"> <a href="{csv.data_uri()}" download="c.csv">numbers</a> '
        f'<a href="{csv.data_uri()}" download="mine.csv">mine</a> <a href="other.html">page</a> '
        '<img src="https://example.org/x.png" alt="remote"></p>'
    )


# The single file is written a piece at a time (issue 49, decision 0063): the template's text around
# marks, each chapter rewritten and each script copied only as it is written, so the book is never
# one string; the bytes are the same as the whole page's were (tests/test_reproducible.py).


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
