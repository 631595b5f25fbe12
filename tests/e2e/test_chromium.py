"""The Chromium the e2e tests launch gets Playwright's feature switches and ours, merged, and our V8 flags."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.e2e.chromium import merged
from tests.e2e.conftest import BASELINE_WASM, CHROMIUM, NO_OMNIBOX_POPUP


def test_repeated_feature_switches_become_one_in_place_of_the_first() -> None:
    args = [
        "--a",
        "--disable-features=One,Two",
        "--enable-features=Up",
        "--b=c,d",
        "--disable-features=Two,Three",
        "--enable-features=,Down",
    ]
    assert merged(args) == ["--a", "--disable-features=One,Two,Three", "--enable-features=Up,Down", "--b=c,d"]


def test_other_arguments_pass_unchanged() -> None:
    args = ["--no-sandbox", "--user-data-dir=/tmp/x,y", "about:blank"]
    assert merged(args) == args


REAL_CHROMIUM = pytest.mark.skipif(not CHROMIUM.exists(), reason="Playwright's own Chromium is launched as it is")


def command_line(page: Page) -> list[str]:
    """The switches the running browser was started with, as chrome://version shows them."""
    page.goto("chrome://version")
    return page.locator("#command_line").inner_text().split()


@pytest.mark.e2e
@REAL_CHROMIUM
def test_the_browser_runs_with_one_list_of_disabled_features_holding_ours_and_playwrights(page: Page) -> None:
    disabled = [switch for switch in command_line(page) if switch.startswith("--disable-features=")]
    assert len(disabled) == 1, disabled
    names = disabled[0].removeprefix("--disable-features=").split(",")
    ours = NO_OMNIBOX_POPUP.removeprefix("--disable-features=").split(",")
    assert set(ours) <= set(names)
    assert len(names) > len(ours), "Playwright's own disabled features are missing"


@pytest.mark.e2e
@REAL_CHROMIUM
def test_the_browser_runs_webassembly_with_the_baseline_compiler_only(page: Page) -> None:
    js_flags = [switch for switch in command_line(page) if switch.startswith("--js-flags=")]
    assert js_flags == [BASELINE_WASM], js_flags
