"""The published site under a sub-path, as GitHub Pages serves a project: https://USER.github.io/REPO/.

The server answers only under /REPO/ (anything else is a 404), so a URL that is
absolute from the server's root breaks here. The chapter's Try-this flows also
run at this address (the ``http-subpath`` case of ``site_url``); this test walks
in the way a reader does: the index at /REPO/, the download, the chapter.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect

from tests.browser_fixtures import Server
from tests.chapter_labs import DECODE, chapter_run
from tests.conftest import Built, book_chapter, index_link_name
from tests.e2e.conftest import PYTHON_READY_MS, SUBPATH
from tests.e2e.test_labs import expect_run

pytestmark = pytest.mark.e2e


def test_index_download_and_chapter_under_a_subpath(page: Page, subpath_site: Server, built: Built) -> None:
    assert subpath_site.base.endswith(SUBPATH)
    problems: list[str] = []

    def check(response: Response) -> None:
        inside = response.url.startswith(subpath_site.base) or response.url.startswith(("blob:", "data:"))
        if response.status >= 400 or not inside:
            problems.append(f"{response.status} {response.url}")

    page.emulate_media(reduced_motion="reduce")  # Generate's run in one answer, as it ends (issue 47)
    page.on("response", check)
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.goto(subpath_site.base)
    expect(page.get_by_role("heading", level=1)).to_have_text("kvpage")

    with page.expect_download() as download:
        page.get_by_role("link", name="Download the book").click()
    saved = Path(download.value.path())
    assert download.value.suggested_filename == "kvpage-site.zip"
    assert saved.read_bytes() == built.zip.read_bytes()

    page.get_by_role("navigation", name="Chapters").get_by_role(
        "link", name=index_link_name(book_chapter("cache")), exact=True
    ).click()
    expect(page).to_have_url(subpath_site.base + "cache.html")
    decode = page.get_by_role("region", name=DECODE)
    expect(decode.get_by_role("button", name="Generate")).to_be_enabled(timeout=PYTHON_READY_MS)
    decode.get_by_role("button", name="Generate").click()
    expect_run(decode, chapter_run().after())
    page.get_by_role("link", name="kvpage").click()
    expect(page).to_have_url(subpath_site.base + "index.html")
    assert problems == []
