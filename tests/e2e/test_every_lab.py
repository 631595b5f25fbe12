"""Every lab of the book, whatever the book holds, goes live in Chromium and redraws with Python's numbers.

Nothing here names a chapter or a lab: the labs are read from the book by the build's own stages
(source, chapters, labs; nothing rendered), so a chapter with a new lab is checked the moment it
is added. Run on content/ and on the book with a second author's chapters added
(tests/conftest.py's BOOKS), each way once: content/ under a sub-path (its chapter pages, served as
GitHub Pages serves a project); the added-chapter book, which holds content/'s chapters and labs
and more, over http and as its single file (every chapter's labs in one page, their ids prefixed
by chapter). content/'s own single file is not run again here (a fresh page restores Python, about
2 CPU-s: issue 47): it holds the same chapter and labs, prefixed the same way, as a part of that
book's, and its two labs are moved in it by test_accessibility.py, test_reader.py and
test_lab_visuals.py's single-file tests. From the unzipped zip over file:// the pages are http's,
only their files arrive otherwise: the Try this (tests/e2e/test_labs.py), the worker's tests and
the loader's (tests/e2e/test_loading.py) open them that way. For each chapter that has labs, with
the network, console and CSP audit: every lab's controls wake up and no lab shows an error; then
each control is moved in turn (a slider or number box one notch, another radio option, the text box given the first of
its declared ``examples`` that differs, or edited if it declares none, a checkbox flipped), and,
while some readout still shows the build's text, each enabled button that calls the model is pressed.
After every move each readout must show what CPython's model computes for the values the page
now holds (through ``kvpage.bridge.handle``, the call the page's Python answers), and by the end
every readout must have shown a text other than the build's: one printed by the build and never
touched by Python fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage import bridge
from kvpage.jsonvalue import JSONObject, JSONValue
from kvpage.lab import Checkbox, Choice, Control, DecimalSlider, Lab, Text, Whole
from sitegen.book.source import load_book, load_source
from sitegen.labs.placements import LabUse
from sitegen.labs.stage import starting_views
from sitegen.markdown.ids import prefixed
from sitegen.markdown.pages import parse_chapters
from tests.browser_fixtures import Where
from tests.conftest import BookUnderTest
from tests.e2e.conftest import PYTHON_READY_MS, in_books

pytestmark = [pytest.mark.e2e, pytest.mark.book, in_books(["http-subpath"], ["http", "single-file"])]


@dataclass(frozen=True)
class Chapter:
    """A chapter of the book that has labs: its page, its slug, and its labs with their starting views."""

    url: str
    slug: str
    labs: tuple[LabUse, ...]


def chapters_with_labs(content: Path) -> list[Chapter]:
    """The book's chapters that place labs, read by the build's first stages (no page rendered)."""
    book, errors = load_book(content / "book.toml", "book.toml")
    assert book is not None, errors
    source = load_source(content)
    chapters = parse_chapters(source, book.experimental_labs)
    labs = starting_views(chapters.placements)
    assert not labs.errors, labs.errors
    slugs = {chapter.path: chapter.meta.slug for chapter in source.chapters}
    found = [
        Chapter(item.url, slugs[item.path], tuple(labs.uses[placement.key] for placement in item.placements))
        for item in chapters.listed
        if item.placements
    ]
    assert found, f"{content}: no chapter places a lab"
    return found


@pytest.fixture(scope="module")
def chapters(book_under_test: BookUnderTest) -> list[Chapter]:
    return chapters_with_labs(book_under_test.content)


# ---- the page as the model sees it ---------------------------------------------------------------


@dataclass
class Model:
    """One lab as its page holds it: every control's value and the last view's state, and the model's
    answer to a call made with them, as ``static/kvpage/calls.js`` sends it."""

    lab: Lab
    values: dict[str, JSONValue]
    state: JSONValue | None

    def call(self, action: str) -> dict[str, str]:
        """The texts of the view ``action`` returns for the values now held; the state moves on."""
        args: JSONObject = dict(self.values) if self.state is None else {**self.values, "state": self.state}
        reply = json.loads(bridge.handle(json.dumps({"lab": self.lab.name, "action": action, "args": args})))
        assert reply["ok"], f"{self.lab.name}.{action}({args}) refused: {reply['error']}"
        view = cast(JSONObject, reply["result"])
        self.state = view.get("state")
        return cast(dict[str, str], view["text"])


def moved(control: Control, value: JSONValue) -> JSONValue:
    """Another value for ``control``, one a reader reaches in one move from ``value``."""
    if isinstance(control, Whole):
        number = cast(int, value)
        return number + 1 if number < control.high else number - 1
    if isinstance(control, DecimalSlider):  # one step, as the model rounds it
        decimal = cast(float, value)
        return control.check(decimal + control.step if decimal < control.high else decimal - control.step)
    if isinstance(control, Choice):
        return next(option for option, _ in control.options if option != value)
    if isinstance(control, Checkbox):
        return not value
    text = cast(str, value)
    if control.examples:  # the lab says what its box takes: nothing else is typed into it
        return next((example for example in control.examples if example != text), text)
    return text + " and more" if len(text) + 9 <= control.limit else text[:-1]


def move(region: Locator, control: Control, value: JSONValue) -> None:
    """Set ``control`` to ``value`` the way a reader does, by its label."""
    if isinstance(control, Choice):
        label = dict(control.options)[cast(str, value)]
        region.get_by_role("radio", name=label, exact=True).check()
    elif isinstance(control, Checkbox):
        region.get_by_label(control.label, exact=True).set_checked(bool(value))
    elif isinstance(control, Text):
        region.get_by_label(control.label, exact=True).fill(cast(str, value))
    else:
        region.get_by_label(control.label, exact=True).fill(str(value))


def readouts(lab: Lab) -> dict[str, str]:
    """The lab's labelled text outputs: output name → label."""
    return {output.name: output.label for output in lab.outputs if output.kind == "text" and output.label}


def expect_shown(region: Locator, lab: Lab, texts: dict[str, str]) -> None:
    for name, label in readouts(lab).items():
        expect(region.get_by_label(label, exact=True)).to_have_text(texts[name])


def exercise(region: Locator, use: LabUse) -> None:
    """Move every control, then press buttons while a readout is untouched; each time the page must show
    the model's texts. Fails if a readout never left the build's text."""
    lab = use.kind
    model = Model(lab, dict(use.params), use.view.get("state"))
    built = dict(use.text)
    changed: set[str] = set()

    def check(texts: dict[str, str]) -> None:
        expect_shown(region, lab, texts)
        changed.update(name for name in readouts(lab) if texts[name] != built[name])

    for control in lab.controls:
        value = moved(control, model.values[control.name])
        model.values[control.name] = value
        move(region, control, value)
        check(model.call(lab.update))
    for button in lab.buttons:
        pressed = region.get_by_role("button", name=button.label, exact=True)
        # A button that would do nothing here is disabled (the decode lab's Back at step 0): not pressed.
        if button.calls and set(readouts(lab)) - changed and pressed.is_enabled():
            pressed.click()
            check(model.call(button.calls))
    untouched = {readouts(lab)[name] for name in set(readouts(lab)) - changed}
    assert not untouched, f"lab {lab.name!r}: no move changed {sorted(untouched)}, so nothing shows Python drew them"


# ---- the test ------------------------------------------------------------------------------------


@pytest.fixture
def opened(audited: tuple[Page, str], site_url: Where) -> Iterator[tuple[Page, str, bool]]:
    """The audited page, the chapter URL it was given, and whether it is the single file."""
    page, url = audited
    yield page, url, site_url.chapter == site_url.origin


def test_every_lab_goes_live_and_redraws_with_the_models_numbers(
    opened: tuple[Page, str, bool], chapters: list[Chapter]
) -> None:
    page, url, single = opened
    for chapter in chapters:
        page.goto(url if single else url.rsplit("/", 1)[0] + "/" + chapter.url)
        expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=PYTHON_READY_MS)
        for use in chapter.labs:
            heading = prefixed(chapter.slug, use.heading_id) if single else use.heading_id
            region = page.get_by_role("region").filter(has=page.locator(f"#{heading}"))
            expect(region).to_have_count(1)
            for control in use.kind.controls:
                expect(region.locator(f"[data-control={control.name}]").first).to_be_enabled()
            expect(region.get_by_role("alert")).to_be_hidden()
            expect_shown(region, use.kind, dict(use.text))  # the build's numbers, before any move
            exercise(region, use)
            expect(region.get_by_role("alert")).to_be_hidden()
