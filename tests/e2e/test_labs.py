"""The chapter's "Try this", performed in Chromium by role and label.

Each test runs four ways (see ``site_url``): served over http at the root and under a sub-path, opened from the
unzipped zip with file://, and as the single-file book.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import PYTHON_READY_MS, WAYS_AND_SUBPATH

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", WAYS_AND_SUBPATH, indirect=True)]

DECODE = "Lab · prefill once, then decode"
NEXT = "Lab · the next request"
REQUEST_2 = "You are a precise assistant. Answer briefly User: 3+3?"


def open_chapter(page: Page, url: str) -> tuple[Locator, Locator]:
    page.goto(url)
    decode = page.get_by_role("region", name=DECODE)
    expect(decode.get_by_role("button", name="Generate")).to_be_enabled(timeout=PYTHON_READY_MS)
    return decode, page.get_by_role("region", name=NEXT)


def test_try_this_decode(audited: tuple[Page, str]) -> None:
    page, url = audited
    decode, _ = open_chapter(page, url)
    expect(decode.get_by_text("cache cold")).to_be_visible()
    expect(decode.get_by_label("If every step recomputed")).to_have_text("256")

    decode.get_by_role("button", name="Generate").click()
    expect(decode.get_by_label("Paid so far")).to_have_text("616")
    expect(decode.get_by_label("This step")).to_have_text("31")
    expect(decode.get_by_label("If every step recomputed")).to_have_text("9,176")
    expect(decode.get_by_text("cache warm · 31 slots")).to_be_visible()

    decode.get_by_role("button", name="Reset").click()
    expect(decode.get_by_label("Paid so far")).to_have_text("0")
    expect(decode.get_by_label("This step")).to_have_text("—")
    expect(decode.get_by_text("cache cold")).to_be_visible()

    decode.get_by_role("radio", name="Recompute").check()
    decode.get_by_role("button", name="Generate").click()
    expect(decode.get_by_label("Paid so far")).to_have_text("9,176")
    expect(decode.get_by_label("If every step recomputed")).to_have_text("9,176")
    expect(decode.get_by_role("button", name="Generate")).to_be_disabled()


def test_step_pays_the_prefill_then_a_line(audited: tuple[Page, str]) -> None:
    page, url = audited
    decode, _ = open_chapter(page, url)
    step = decode.get_by_role("button", name="Step")
    step.click()
    expect(decode.get_by_label("This step")).to_have_text("256")
    expect(decode.get_by_text("cache warm · 16 slots")).to_be_visible()
    step.click()
    expect(decode.get_by_label("This step")).to_have_text("17")
    expect(decode.get_by_label("Paid so far")).to_have_text("273")
    expect(decode.get_by_label("If every step recomputed")).to_have_text(f"{256 + 17 * 17:,}")


def test_changing_a_control_resets_the_run(audited: tuple[Page, str]) -> None:
    page, url = audited
    decode, _ = open_chapter(page, url)
    decode.get_by_role("button", name="Step").click()
    expect(decode.get_by_label("Paid so far")).to_have_text("256")
    decode.get_by_label("Prefix length").fill("20")
    expect(decode.get_by_label("Paid so far")).to_have_text("0")
    expect(decode.get_by_label("If every step recomputed")).to_have_text("400")
    expect(decode.get_by_text("cache cold")).to_be_visible()
    decode.get_by_label("Tokens to generate").fill("2")
    decode.get_by_role("button", name="Generate").click()
    expect(decode.get_by_label("Paid so far")).to_have_text(f"{400 + 21:,}")


def test_try_this_next_request(audited: tuple[Page, str]) -> None:
    page, url = audited
    _, lab = open_chapter(page, url)
    shared = lab.get_by_label("Shared prefix")
    expect(shared).to_have_text("10 / 14 · hit through “:”")
    expect(lab.get_by_label("Cold prefill")).to_have_text("196")
    expect(lab.get_by_label("With prefix cache")).to_have_text("96")

    box = lab.get_by_label("Request 2", exact=True)
    box.fill("you" + REQUEST_2[3:])
    expect(shared).to_have_text("0 / 14 · no shared prefix")
    expect(lab.get_by_label("With prefix cache")).to_have_text("196")

    box.fill(REQUEST_2.replace("precise", "precize"))
    expect(shared).to_have_text("3 / 14 · hit through “a”")
    expect(lab.get_by_label("With prefix cache")).to_have_text(f"{196 - 9:,}")

    lab.get_by_label("Request 1", exact=True).fill("Hello there")
    expect(lab.get_by_text("Request 1 already paid 4 for 2 tokens.")).to_be_visible()
