"""How Python arrives: progress events while it loads, and which files each way of opening reads."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import PYTHON_READY_MS, Server, serve

pytestmark = pytest.mark.e2e

RECORD_PROGRESS = """
window.__progress = [];
window.__said = [];
document.addEventListener("kvpage:progress", (event) => window.__progress.push(event.detail));
document.addEventListener("DOMContentLoaded", () => {
  const line = document.querySelector("[data-role=runtime]");
  window.__said.push(line.textContent);
  new MutationObserver(() => window.__said.push(line.textContent)).observe(line, { childList: true });
});
"""


def load(page: Page, url: str) -> tuple[list[dict[str, Any]], list[str]]:
    page.add_init_script(RECORD_PROGRESS)
    page.goto(url)
    decode = page.get_by_role("region", name="Lab · prefill once, then decode")
    expect(decode.get_by_role("button", name="Generate")).to_be_enabled(timeout=PYTHON_READY_MS)
    progress: list[dict[str, Any]] = page.evaluate("window.__progress")
    said: list[str] = page.evaluate("window.__said")
    return progress, said


def test_progress_runs_from_downloading_to_ready(audited: tuple[Page, str]) -> None:
    page, url = audited
    progress, said = load(page, url)
    phases = [event["phase"] for event in progress]
    assert phases[-2:] == ["starting", "ready"], phases
    downloading = [event for event in progress if event["phase"] == "downloading"]
    assert set(phases[: len(downloading)]) <= {"downloading"}
    if url.endswith("kvpage.html"):  # the single-file book: everything is inline already
        assert downloading == []
    else:
        loaded = [event["loaded"] for event in downloading]
        assert loaded == sorted(loaded)
        total = downloading[0]["total"]
        assert total > 5_000_000
        assert progress[-1] == {"phase": "ready", "loaded": total, "total": total}
        assert any(text.startswith("Loading Python: ") and text.endswith(" MB…") for text in said), said
    assert said[-1].startswith("Live: these numbers are computed by kvpage's Python model")


def requested(page: Page, url: str, last: str) -> set[str]:
    """The file names ``url`` requested, up to ``last`` (which comes after the labs are live)."""
    names: set[str] = set()
    page.on("request", lambda request: names.add(request.url.rsplit("/", 1)[-1]))
    with page.expect_request(lambda request: request.url.endswith("/" + last)):
        load(page, url)
    return names


PACKED = {"pyodide.js.bin", "pyodide.asm.wasm.bin", "python.snapshot.bin", "python_stdlib.zip.bin"}
"""The gzipped binaries, as fetched over http; their scripts add ".js"."""


def test_over_http_the_binaries_come_packed_as_themselves(page: Page, http_site: Server) -> None:
    names = requested(page, http_site.base + "cache.html", "python_stdlib.zip.bin")
    assert names >= PACKED
    assert not any(name.endswith(".bin.js") for name in names), names


def test_an_unzipped_copy_served_over_http_falls_back_to_the_scripts(page: Page, unzipped_site: Path) -> None:
    assert not any(path.name.endswith(".bin") for path in unzipped_site.rglob("*"))  # the zip leaves them out
    with contextlib.contextmanager(serve)(unzipped_site) as server:
        names = requested(page, server.base + "cache.html", "python_stdlib.zip.bin.js")
    assert {f"{name}.js" for name in PACKED} <= names


def test_the_stdlib_zip_waits_until_the_labs_are_live(page: Page, http_site: Server) -> None:
    requested(page, http_site.base + "cache.html", "python_stdlib.zip.bin")
    live = page.evaluate("performance.getEntriesByName('kvpage:labs-live')[0].startTime")
    # A resource's timing entry appears when its response is complete, not when it is asked for.
    entry = "performance.getEntriesByType('resource').find((r) => r.name.endsWith('/python_stdlib.zip.bin'))"
    page.wait_for_function(f"() => {entry} !== undefined")
    asked = page.evaluate(f"{entry}.startTime")
    assert asked >= live


def test_from_a_folder_the_binaries_come_as_scripts(page: Page, unzipped_site: Path) -> None:
    names = requested(page, (unzipped_site / "cache.html").as_uri(), "python_stdlib.zip.bin.js")
    assert {f"{name}.js" for name in PACKED} <= names
    assert not PACKED & names
