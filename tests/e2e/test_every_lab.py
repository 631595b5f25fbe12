"""Every lab of the book, whatever the book holds, goes live in Chromium with the model's numbers.

Nothing here names a chapter or a lab: the labs are read from the book by the
build's own stages, so a chapter with a new lab is checked the moment it is
added. For each chapter that has labs, opened the four ways of
``WAYS_AND_SUBPATH`` (http, under a sub-path, the unzipped zip over file://, the
single file) with the network, console and CSP audit: every lab's controls wake
up, no lab shows an error, and every readout shows what CPython's model computed
for the lab's starting values.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from sitegen import pipeline
from sitegen.ids import prefixed
from sitegen.labs import LabUse
from sitegen.pages import Page as Chapter
from tests.e2e.conftest import PYTHON_READY_MS, WAYS_AND_SUBPATH, Where

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", WAYS_AND_SUBPATH, indirect=True)]

RENDERED = pipeline.render(pipeline.Options())
CHAPTERS = [page for page in RENDERED.pages.pages if page.labs]


def heading(use: LabUse, page_slug: str, single: bool) -> str:
    return prefixed(page_slug, use.heading_id) if single else use.heading_id


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[chapter.url for chapter in CHAPTERS])
def test_every_lab_goes_live_with_the_models_numbers(
    audited: tuple[Page, str], site_url: Where, chapter: Chapter
) -> None:
    page, url = audited
    single = site_url.chapter == site_url.origin
    slug = chapter.source.meta.slug
    page.goto(url if single else url.rsplit("/", 1)[0] + "/" + chapter.url)
    expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=PYTHON_READY_MS)
    for use in chapter.labs:
        region = page.get_by_role("region").filter(has=page.locator(f"#{heading(use, slug, single)}"))
        expect(region).to_have_count(1)
        for control in use.kind.controls:
            expect(region.locator(f"[data-control={control.name}]").first).to_be_enabled()
        expect(region.get_by_role("alert")).to_be_hidden()
        for output in use.kind.outputs:
            if output.kind == "text" and output.label:
                expect(region.get_by_label(output.label, exact=True)).to_have_text(use.text[output.name])
