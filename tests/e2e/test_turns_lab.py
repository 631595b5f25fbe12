"""A lab made only of generic controls, in Chromium: text box, slider, checkbox and buttons.

The fixture book (tests/books/turns/) uses the experimental "turns" lab, which
has no script of its own: everything it does on the page comes from its
declaration (kvpage/labs/turns.py) and static/kvpage/lab.js. It also imports a module
(statistics) inside a function that no other lab imports, so its numbers show
that the page's Python has what the model imports. Run over http, from the
unzipped zip (file://) and as the single file, with the network audit.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage.labs.turns import add, compute
from tests.browser_fixtures import WAYS
from tests.conftest import ROOT, Built, build_book
from tests.e2e.conftest import PYTHON_READY_MS, opened_book

pytestmark = pytest.mark.e2e

BOOK = ROOT / "tests" / "books" / "turns" / "content"
LAB = "Lab · a conversation, turn by turn"
SYSTEM = "You are a precise assistant."


@pytest.fixture(scope="module")
def turns_book(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return build_book(tmp_path_factory.mktemp("turns"), BOOK, strict=True)


@pytest.fixture(params=WAYS)
def opened(request: pytest.FixtureRequest, turns_book: Built, page: Page, tmp_path: Path) -> Iterator[tuple[Page, str]]:
    """The chapter's URL three ways, and the page with the audit attached."""
    with opened_book(request.param, turns_book, "turns.html", page, tmp_path) as found:
        yield found


def texts(view: dict[str, object]) -> dict[str, str]:
    return view["text"]  # type: ignore[return-value]


def test_every_generic_control_drives_the_model_then_a_refusal_blanks_its_numbers(opened: tuple[Page, str]) -> None:
    """Two flows on one visit (a fresh page restores Python, about 2 CPU-s: issue 47): every control
    moved, each answer the model's; then a refusal, shown in the lab, its numbers blanked until the
    text is taken again."""
    page, url = opened
    page.goto(url)
    lab = page.get_by_role("region", name=LAB)
    add_turn = lab.get_by_role("button", name="Add a turn")
    expect(add_turn).to_be_enabled(timeout=PYTHON_READY_MS)
    args = {"system": SYSTEM, "turn": 32, "cache": True}
    first = texts(compute(args))
    expect(lab.get_by_label("Turns", exact=True)).to_have_text("1")
    expect(lab.get_by_label("Tokens in context")).to_have_text(first["context"])
    expect(lab.get_by_text(f"The system prompt is {first['system_tokens']} tokens")).to_be_visible()

    add_turn.click()
    add_turn.click()
    two = add({**args, "state": {"turns": 1}})
    three = texts(add({**args, "state": two["state"]}))
    expect(lab.get_by_label("Turns", exact=True)).to_have_text("3")
    expect(lab.get_by_label("Cells paid by the last turn")).to_have_text(three["last"])
    expect(lab.get_by_label("Cells paid in all")).to_have_text(three["total"])
    expect(lab.get_by_label("Cells per turn, on average")).to_have_text(three["mean"])

    lab.get_by_label("Keep the KV cache between turns").uncheck()
    cold = texts(compute({**args, "cache": False, "state": {"turns": 3}}))
    expect(lab.get_by_label("Cells paid in all")).to_have_text(cold["total"])

    lab.get_by_label("Tokens per turn").fill("100")
    wide = texts(compute({**args, "cache": False, "turn": 100, "state": {"turns": 3}}))
    expect(lab.get_by_label("Tokens in context")).to_have_text(wide["context"])

    lab.get_by_label("System prompt").fill("<b>hi</b> & bye")
    typed = texts(compute({"system": "<b>hi</b> & bye", "turn": 100, "cache": False, "state": {"turns": 3}}))
    expect(lab.get_by_label("Tokens in context")).to_have_text(typed["context"])
    expect(lab.locator("b")).to_have_count(0)

    lab.get_by_role("button", name="Start over").click()
    expect(lab.get_by_label("Turns", exact=True)).to_have_text("1")
    a_refusal_is_shown_in_the_lab_and_blanks_its_numbers(lab)


def a_refusal_is_shown_in_the_lab_and_blanks_its_numbers(lab: Locator) -> None:
    lab.get_by_label("System prompt").fill("x" * 501)
    expect(lab.get_by_role("alert")).to_have_text("System prompt is 501 characters; the lab takes at most 500")
    expect(lab.get_by_label("Tokens in context")).to_have_text("—")
    lab.get_by_label("System prompt").fill(SYSTEM)
    expect(lab.get_by_role("alert")).to_be_hidden()
    expect(lab.get_by_label("Turns", exact=True)).to_have_text("1")
