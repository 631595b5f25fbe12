"""Search, in Chromium, on the two-chapter book: served, from the unzipped zip, and as the single file.

A phrase of each chapter, read from its Markdown (tests/search_targets.py), is found as it is
typed and lands on its heading; the combobox answers the keyboard as the WAI-ARIA pattern says;
a hostile query is only ever text. Landing runs every way: it goes to another chapter's page, by a
URL each way writes differently. The combobox's keyboard and a hostile query are the page's script
and the document's CSP, the same over http and from the folder (one page's bytes, its index a
classic script either way), so they run on the two documents (``DOCUMENTS``). The pages load no
Python for any of it (the chapter without labs is opened first). Every page is audited: no request
outside the book, no failed request, no console error, no CSP violation.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser_fixtures import DOCUMENTS, Book
from tests.conftest import TWO_CHAPTERS, Built
from tests.e2e.conftest import audit_page, painted
from tests.e2e.test_accessibility import AXE, axe_violations
from tests.search_targets import HOSTILE_QUERIES, LONGEST_QUERY, Target, quoted, search_targets

pytestmark = [pytest.mark.e2e, pytest.mark.book]

TARGETS = search_targets(TWO_CHAPTERS)


def search_box(page: Page) -> Locator:
    return page.get_by_role("combobox", name="Search the book")


def results(page: Page) -> Locator:
    return page.get_by_role("listbox", name="Search results").get_by_role("option")


def search_status(page: Page) -> Locator:
    return page.get_by_role("search").get_by_role("status")


def land(page: Page, book: Book, target: Target) -> None:
    """Search for the target's phrase as a reader does, and go to its heading by keyboard."""
    box = search_box(page)
    expect(box).to_be_visible()  # a page just opened shows it once its script has run
    painted(page)
    page.keyboard.press("/")
    expect(box).to_be_focused()
    box.press_sequentially(target.phrase)
    expect(results(page).first).to_contain_text(target.heading)
    expect(search_status(page)).to_have_text(re.compile(r"^\d+ results?$"))
    expect(box).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("ArrowDown")
    expect(results(page).first).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant", results(page).first.get_attribute("id") or "")
    page.keyboard.press("Enter")
    heading = page.get_by_role("heading", name=target.heading, exact=True)
    expect(heading).to_be_in_viewport()
    anchor = heading.get_attribute("id") or ""
    page_url = book.pages[target.slug]
    expect(page).to_have_url(page_url + "#" + anchor)
    assert anchor.startswith(f"{target.slug}--") == book.single


def test_a_phrase_of_each_chapter_lands_on_its_heading(page: Page, book: Book) -> None:
    with audit_page(page, book.origin):
        page.goto(book.first)
        for target in TARGETS:
            land(page, book, target)
        land(page, book, TARGETS[0])  # and back, from the chapter with the lab


on_each_document = pytest.mark.parametrize("book", DOCUMENTS, indirect=True)


@on_each_document
def test_the_combobox_by_keyboard(page: Page, book: Book) -> None:
    with audit_page(page, book.origin):
        page.goto(book.first)
        box = search_box(page)
        painted(page)
        page.keyboard.press("/")
        expect(box).to_be_focused()
        page.keyboard.type("token/")  # in a text field "/" is a character like any other
        expect(box).to_have_value("token/")
        page.keyboard.press("Backspace")
        options = results(page)
        expect(options.nth(1)).to_be_visible()  # "token" is in more than one section
        count = options.count()
        page.keyboard.press("ArrowUp")  # from the box, up goes to the last option
        expect(options.nth(count - 1)).to_have_attribute("aria-selected", "true")
        page.keyboard.press("ArrowDown")  # and down from the last wraps to the first
        expect(options.first).to_have_attribute("aria-selected", "true")
        expect(options.nth(count - 1)).to_have_attribute("aria-selected", "false")
        page.keyboard.press("ArrowDown")
        expect(box).to_have_attribute("aria-activedescendant", options.nth(1).get_attribute("id") or "")
        expect(box).to_be_focused()  # the options are chosen with aria-activedescendant: focus stays

        page.keyboard.press("Escape")
        expect(box).to_have_attribute("aria-expanded", "false")
        expect(page.get_by_role("listbox", name="Search results")).to_be_hidden()
        expect(box).not_to_have_attribute("aria-activedescendant", re.compile(".*"))  # no hidden option named
        expect(box).to_have_value("token")
        page.keyboard.press("ArrowDown")  # opens the list again
        expect(options.first).to_have_attribute("aria-selected", "true")
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        expect(box).to_have_value("")

        first = TARGETS[0]
        box.press_sequentially(first.phrase)
        expect(results(page).first).to_contain_text(first.heading)
        page.keyboard.press("Enter")  # with no option chosen, Enter goes to the first
        expect(page).to_have_url(re.compile(re.escape(book.pages[first.slug] + "#") + ".+"))
        expect(page.get_by_role("heading", name=first.heading, exact=True)).to_be_focused()


@on_each_document
def test_a_hostile_query_is_text(page: Page, book: Book) -> None:
    with audit_page(page, book.origin):
        page.goto(book.first)
        box = search_box(page)
        status = search_status(page)
        for query in HOSTILE_QUERIES:
            box.fill(query)
            if len(query) > LONGEST_QUERY:
                cut = f"(only the first {LONGEST_QUERY} characters were searched)"
                expect(status).to_have_text(re.compile(r"^\d+ results?.* " + re.escape(cut) + "$"))
            else:
                expect(status).to_have_text(f"No results for “{quoted(query)}”")
        assert page.evaluate("window.__injected") is None
        assert page.locator(".site-search img, .site-search script").count() == 0
        box.fill("")
        expect(page.locator(".search-popup")).to_be_hidden()


@pytest.mark.parametrize("document", DOCUMENTS)
def test_results_are_accessible_fit_360_px_and_do_not_print(
    page: Page, two_chapters: Built, document: str, request: pytest.FixtureRequest
) -> None:
    """axe-core finds nothing in light and dark, with results open and one chosen; at 360 px the
    list stays on the screen; printed, the search is not there."""
    if document == "single-file":
        url = origin = two_chapters.single.as_uri()
    else:
        origin = request.getfixturevalue("book_http").base
        url = origin + "first.html"
    with audit_page(page, origin):
        page.add_init_script(path=str(AXE))
        page.set_viewport_size({"width": 360, "height": 740})
        page.goto(url)
        box = search_box(page)
        box.fill("token")
        expect(results(page).nth(1)).to_be_visible()
        page.keyboard.press("ArrowDown")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            assert axe_violations(page) == [], scheme
        popup = page.locator(".search-popup").bounding_box()
        assert popup is not None and popup["x"] >= 0 and popup["x"] + popup["width"] <= 360, popup
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        under_a_heading = results(page).filter(has=page.locator(".search-heading")).last
        heading = under_a_heading.locator(".search-heading").inner_text()
        under_a_heading.click()  # a click goes where Enter would
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_in_viewport()
        expect(page).to_have_url(re.compile("#.+"))
        expect(box).to_be_visible()
        page.emulate_media(media="print")
        expect(box).to_be_hidden()
