#!/usr/bin/env python3
"""How long from saving a prose edit to seeing it in the open page, under ``build.py serve``.

Run from the project: ``python bench/serve_reload.py``. It serves a copy of
content/ (port 0), opens the chapter in Chromium (Debian's, as the tests do),
then several times: appends a sentence to the chapter and times until the page
shows it. The time includes the watcher noticing (it polls every 0.1 s), the
rebuild, the event to the page, the reload and the page's first paint of the
text; it does not wait for Python to start again. Each edit waits until the page
has settled (Python running), as an author's next edit would.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
RUNS = 7


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="kvpage-bench-") as tmp:
        content = Path(shutil.copytree(ROOT / "content", Path(tmp) / "content"))
        chapter = content / "03-cache.md"
        command = [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--content", str(content)]
        serve = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert serve.stdout is not None
            url = serve.stdout.readline().split()[1]
            with sync_playwright() as playwright:
                launch = {"executable_path": str(CHROMIUM), "args": ["--no-sandbox"]} if CHROMIUM.exists() else {}
                browser = playwright.chromium.launch(**launch)  # type: ignore[arg-type]
                page = browser.new_page()
                page.goto(url + "cache.html")
                times = []
                for run in range(RUNS):
                    # An author edits a page that has settled: its Python started (a page still
                    # starting Pyodide on its main thread answers the reload event late).
                    expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=60_000)
                    sentence = f"Reload check number {run}."
                    started = time.perf_counter()
                    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\n{sentence}\n", encoding="utf-8")
                    expect(page.get_by_text(sentence)).to_be_visible(timeout=30_000)
                    times.append(time.perf_counter() - started)
                browser.close()
        finally:
            serve.terminate()
            serve.wait()
    print(f"prose edit saved → new text on the open page: median {statistics.median(times):.2f} s")
    print(f"  runs: {', '.join(f'{value:.2f}' for value in times)} s")


if __name__ == "__main__":
    main()
