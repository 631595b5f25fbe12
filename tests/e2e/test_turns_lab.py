"""A lab made only of generic controls, in Chromium: text box, slider, checkbox and buttons.

The fixture book (tests/books/turns/) uses the experimental "turns" lab, which
has no script of its own: everything it does on the page comes from its
declaration (kvpage/labs/turns.py) and static/kvpage/labs.js. It also imports a module
(statistics) inside a function that no other lab imports, so its numbers show
that the page's Python has what the model imports. Run over http, from the
unzipped zip (file://) and as the single file, with the network audit.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

import build
from kvpage.labs.turns import add, compute
from tests.conftest import ROOT, unzipped
from tests.e2e.conftest import PYTHON_READY_MS, Server, audit_page, serve

pytestmark = pytest.mark.e2e

BOOK = ROOT / "tests" / "books" / "turns" / "content"
LAB = "Lab · a conversation, turn by turn"
SYSTEM = "You are a precise assistant."


@pytest.fixture(scope="module")
def turns_book(tmp_path_factory: pytest.TempPathFactory) -> build.Options:
    out = tmp_path_factory.mktemp("turns")
    options = build.Options(content=BOOK, out=out / "site", dist=out / "dist", strict=True, single_file=True)
    build.build(options)
    return options


@pytest.fixture(params=["http", "file", "single-file"])
def opened(
    request: pytest.FixtureRequest, turns_book: build.Options, page: Page, tmp_path: Path
) -> Iterator[tuple[Page, str]]:
    """The chapter's URL three ways, and the page with the audit attached."""
    servers: Generator[Server] | None = None
    if request.param == "http":
        servers = serve(turns_book.out)
        server = next(servers)
        url, origin = server.base + "turns.html", server.base
    elif request.param == "file":
        top = unzipped(turns_book.dist / f"{build.ZIP_TOP}.zip", tmp_path)
        url, origin = (top / "turns.html").as_uri(), top.as_uri() + "/"
    else:
        url = origin = (turns_book.dist / build.SINGLE_FILE).as_uri()
    try:
        with audit_page(page, origin):
            yield page, url
    finally:
        if servers is not None:
            servers.close()  # shuts the server down, whether or not the audit passed


def texts(view: dict[str, object]) -> dict[str, str]:
    return view["text"]  # type: ignore[return-value]


def test_every_generic_control_drives_the_model(opened: tuple[Page, str]) -> None:
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


def test_a_refusal_is_shown_in_the_lab_and_blanks_its_numbers(opened: tuple[Page, str]) -> None:
    page, url = opened
    page.goto(url)
    lab = page.get_by_role("region", name=LAB)
    expect(lab.get_by_role("button", name="Add a turn")).to_be_enabled(timeout=PYTHON_READY_MS)
    lab.get_by_label("System prompt").fill("x" * 501)
    expect(lab.get_by_role("alert")).to_have_text("System prompt is 501 characters; the lab takes at most 500")
    expect(lab.get_by_label("Tokens in context")).to_have_text("—")
    lab.get_by_label("System prompt").fill(SYSTEM)
    expect(lab.get_by_role("alert")).to_be_hidden()
    expect(lab.get_by_label("Turns", exact=True)).to_have_text("1")
