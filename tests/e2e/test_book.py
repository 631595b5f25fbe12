"""A book of two chapters, read in Chromium: index, table of contents, previous/next, cross-references.

The fixture book (tests/books/two-chapters/) has a chapter without labs, whose page
must load no Python at all, and a chapter with the example lab, which it enables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Request, expect

from kvpage.jsonvalue import LabInputError
from kvpage.labs import square
from tests.browser_fixtures import Server, serve
from tests.chapter_labs import lab_params
from tests.conftest import TWO_CHAPTERS, Built
from tests.e2e.conftest import PYTHON_READY_MS

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def book_site(two_chapters: Built) -> Iterator[Server]:
    yield from serve(two_chapters.site)


@pytest.fixture
def requests(page: Page) -> list[str]:
    seen: list[str] = []

    def record(request: Request) -> None:
        seen.append(request.url)

    page.on("request", record)
    page.on("pageerror", lambda error: seen.append(f"page error: {error}"))
    return seen


def test_index_lists_the_chapters_in_order(page: Page, book_site: Server) -> None:
    page.goto(book_site.base)
    links = page.get_by_role("navigation", name="Chapters").get_by_role("link")
    # Each chapter, then the labs it holds (the second chapter has the square lab).
    expect(links).to_have_text(["01 · Basics First steps", "02 · Basics The square", "Lab · the square"])
    expect(page.get_by_role("search").get_by_role("combobox", name="Search the book")).to_be_visible()


def test_a_chapter_without_labs_loads_no_python(page: Page, book_site: Server, requests: list[str]) -> None:
    """Not even once the reader searches: search needs its own script and its index, nothing else."""
    page.goto(book_site.base + "first.html")
    expect(page.get_by_role("heading", level=1)).to_have_text("First steps")
    page.wait_for_load_state("load")
    names = [url.removeprefix(book_site.base) for url in requests]
    assert names == ["first.html", "static/kvpage.css", "static/search.js"]
    page.get_by_role("combobox", name="Search the book").fill("square")
    expect(page.get_by_role("option").first).to_contain_text("The square")
    names = [url.removeprefix(book_site.base) for url in requests]
    assert names == ["first.html", "static/kvpage.css", "static/search.js", "search/index.js"]


def test_table_of_contents_previous_next_and_cross_references(page: Page, book_site: Server) -> None:
    page.goto(book_site.base + "index.html")
    page.get_by_role("link", name=re.compile("First steps")).click()

    contents = page.get_by_role("navigation", name="On this page")
    expect(contents.get_by_role("link")).to_have_text(["Setting out", "A detail worth a heading", "Onwards"])
    contents.get_by_role("link", name="A detail worth a heading").click()
    expect(page).to_have_url(book_site.base + "first.html#a-detail-worth-a-heading")
    expect(page.get_by_role("heading", name="A detail worth a heading")).to_be_in_viewport()

    page.get_by_role("navigation", name="Chapters").get_by_role("link", name=re.compile("The square")).click()
    expect(page).to_have_url(book_site.base + "second.html")
    previous = page.get_by_role("navigation", name="Chapters").get_by_role("link", name=re.compile("First steps"))
    expect(previous).to_have_attribute("rel", "prev")

    page.get_by_role("link", name="a detail of the first chapter").click()
    expect(page).to_have_url(book_site.base + "first.html#a-detail-worth-a-heading")
    expect(page.get_by_role("heading", name="A detail worth a heading")).to_be_in_viewport()

    page.get_by_role("link", name="the square lab").click()
    expect(page).to_have_url(book_site.base + "second.html#lab--the-square")
    expect(page.get_by_role("region", name="Lab · the square")).to_be_in_viewport()


def test_the_example_lab_computes_in_python(page: Page, book_site: Server) -> None:
    page.goto(book_site.base + "second.html")
    lab = page.get_by_role("region", name="Lab · the square")
    tokens = lab.get_by_label("Tokens")
    expect(tokens).to_be_enabled(timeout=PYTHON_READY_MS)
    cells = lab.get_by_label("Cells a cold prefill pays")
    start = int(lab_params("square", TWO_CHAPTERS / "02-second.md")["tokens"])
    expect(cells).to_have_text(squared(start))
    tokens.fill(str(start + 1))
    expect(cells).to_have_text(squared(start + 1))
    too_many = square.TOKENS.high + 1
    tokens.fill(str(too_many))
    with pytest.raises(LabInputError) as refused:  # the model's own message for it
        square.TOKENS.check(too_many)
    expect(lab.get_by_role("alert")).to_have_text(str(refused.value))
    expect(cells).to_have_text("—")


def squared(tokens: int) -> str:
    """The square lab's readout for ``tokens``, as the model computes it."""
    return str(square.compute({"tokens": tokens})["text"]["cells"])  # type: ignore[index]
