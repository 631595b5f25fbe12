#!/usr/bin/env python3
"""How long from saving an edit to seeing it in the open page, under ``build.py serve``.

Run from the project: ``python bench/serve_reload.py [--runs 7] [--model-runs 3] [--chapters N] [--json FILE]``.
It copies the project (content/, kvpage/, the build code; node_modules linked, the runtime
and compiled-stdlib caches copied) to a temporary folder, serves the copy (port 0), opens the chapter in Chromium
(Debian's, as the tests do), and times, on the page's own clock:

- **prose**: a sentence appended to the chapter → the reloaded page's first contentful paint
  (the chapter is static HTML, so that paint holds the new sentence);
- **model**: a label changed in the model (``kvpage/labs/decode.py``; a new version each time)
  with the decode lab's Mode set to Recompute → the open page, not reloaded, shows the lab computed
  again by the new model at that Mode (serve restarts its build process, which builds only the
  wheel; the page fetches it and swaps it into its running Python: ``sitegen/serve/livereload.js``).

Each time runs from the moment the file is written (``time.time()``) to the page's
``performance.timeOrigin`` + the entry's ``startTime`` (for a model edit, a mark the page makes
when the new label is drawn); it includes the watcher noticing (it polls every 0.1 s), the
rebuild, the event to the page and the reload or swap. Each is checked against a Playwright wait
on the same page, so a clock that disagreed would stop the run. After each model edit, a Forward
click must show the new model's text at the reader's Mode, and the page must not have reloaded.
Each edit waits until the page has settled (its Python running), as an author's next edit would.
``--json FILE`` writes every sample (seconds), which ``bench/figures.py`` reads.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from book_size import make_book  # noqa: E402  (bench/, the script's folder)

from kvpage.costs import MODE_NAMES, context_at_step  # noqa: E402
from kvpage.jsonvalue import count  # noqa: E402
from kvpage.labs import decode as decode_lab  # noqa: E402
from tests.project_copy import project_copy  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
DECODE = "Lab · prefill once, then decode"
COLD, WARM = '"cache cold"', 'f"no cache kept · {count(recomputed)} tokens recomputed"'
"""Two strings of the model that the decode lab shows, in Recompute mode: before Forward and after."""
SETTLED_MS = 120_000
CHANGED_MS = 180_000
CLOCK_SLACK = 0.05
"""How far the page's clock may run ahead of the Playwright wait that saw the change (s)."""


def settle(page: Page) -> None:
    """Wait until the page's Python runs: a page still starting it answers the reload event late."""
    expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=SETTLED_MS)


def page_time(page: Page, entry: str) -> float:
    """When ``entry`` (a paint or a mark) happened, in seconds since the epoch, on the page's clock."""
    script = (
        "name => { const e = performance.getEntriesByName(name)[0];"
        " return e ? performance.timeOrigin + e.startTime : null; }"
    )
    try:  # the text is in the DOM before the page is painted: wait for the paint's entry
        page.wait_for_function(f"({script})({json.dumps(entry)}) !== null", timeout=CHANGED_MS)
    except PlaywrightError as error:
        raise SystemExit(f"bench: the reloaded page has no {entry!r} entry: {error}") from error
    return float(page.evaluate(script, entry)) / 1000


def since(saved: float, page: Page, entry: str) -> float:
    """Seconds from the save to ``entry``, checked against the wait that saw it: the entry (a paint
    may come after the text the test waited for is in the DOM) cannot be later than the moment it was read."""
    at = page_time(page, entry)
    waited = time.time() - saved
    seconds = at - saved
    if not 0 < seconds <= waited + CLOCK_SLACK:
        raise SystemExit(f"bench: the page's clock says {seconds:.3f} s, the wait took {waited:.3f} s")
    return seconds


def prose_edit(page: Page, chapter: Path, run: int) -> float:
    settle(page)
    sentence = f"Reload check number {run}."
    saved = time.time()
    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\n{sentence}\n", encoding="utf-8")
    expect(page.get_by_text(sentence)).to_be_visible(timeout=CHANGED_MS)
    return since(saved, page, "first-contentful-paint")


SEEN = """([region, text]) => {
  const observer = new MutationObserver(() => {
    if (!region.textContent.includes(text)) return;
    observer.disconnect();
    performance.mark("bench:model-shown");
  });
  observer.observe(region, { subtree: true, childList: true, characterData: true });
}"""
"""Marks the moment ``text`` is in ``region`` (the new model's label drawn), on the page's clock."""


def model_edit(page: Page, model: Path, current: str, version: str) -> float:
    """Change the model's labels from version ``current`` to ``version``: seconds until the open page
    shows the lab computed by the new model, at the Mode the reader chose."""
    settle(page)
    text = model.read_text(encoding="utf-8")
    old_cold, old_warm = labels(current)
    new_cold, new_warm = labels(version)
    if old_cold not in text or old_warm not in text:
        raise SystemExit(f"bench: {model} no longer holds {old_cold} and {old_warm}")
    decode = page.get_by_role("region", name=DECODE)
    page.evaluate("performance.clearMarks('bench:model-shown'); window.__benchNotReloaded = true")
    page.evaluate(SEEN, [decode.element_handle(), shown(new_cold)])
    saved = time.time()
    model.write_text(text.replace(old_cold, new_cold, 1).replace(old_warm, new_warm, 1), encoding="utf-8")
    expect(decode.get_by_text(shown(new_cold), exact=True)).to_be_visible(timeout=CHANGED_MS)
    seconds = since(saved, page, "bench:model-shown")
    if page.evaluate("window.__benchNotReloaded") is not True:
        raise SystemExit("bench: the page reloaded on a model edit")
    expect(decode.get_by_role("radio", name=MODE_NAMES["recompute"])).to_be_checked()
    decode.get_by_role("button", name="Forward").click()  # the new Python answers, with the new label
    held = count(context_at_step(decode_lab.PROMPT.default, 1))  # the rows step 1 pays again, recomputing
    expect(decode.get_by_text(shown(new_warm).replace("{count(recomputed)}", held), exact=True)).to_be_visible()
    return seconds


def labels(version: str) -> tuple[str, str]:
    """The model's two strings at ``version`` ("" is the model as committed)."""
    if not version:
        return COLD, WARM
    return f'"cache cold {version}"', f'f"no cache kept {version} · {{count(recomputed)}} tokens recomputed"'


def shown(label: str) -> str:
    """What the page shows for a label of the model's source."""
    return label.removeprefix("f").strip('"')


def measure(runs: int, model_runs: int, chapters: int = 0) -> dict[str, list[float]]:
    """``chapters``: serve a book of that many copies of the chapter (``bench/book_size.py``'s), editing
    and opening the last; 0 serves the project's own book."""
    found: dict[str, list[float]] = {"prose": [], "model": []}
    with tempfile.TemporaryDirectory(prefix="kvpage-bench-") as tmp:
        # serve's first build then reuses this project's runtime, as in the checkout a writer serves.
        project = project_copy(ROOT, Path(tmp) / "project")
        command = [sys.executable, str(project / "build.py"), "serve", "--port", "0"]
        chapter, opened = project / "content" / "03-cache.md", "cache.html"
        if chapters:
            book = make_book(Path(tmp), chapters)
            command += ["--content", str(book)]
            chapter, opened = book / f"{chapters:03d}-cache.md", f"cache-{chapters}.html"
        serve = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            assert serve.stdout is not None
            url = serve.stdout.readline().split()[1]
            with sync_playwright() as playwright:
                launch: dict[str, Any] = {"args": ["--no-sandbox"]}
                if CHROMIUM.exists():
                    launch["executable_path"] = str(CHROMIUM)
                browser = playwright.chromium.launch(**launch)
                page = browser.new_page()
                page.goto(url + opened)
                for run in range(runs):
                    found["prose"].append(prose_edit(page, chapter, run))
                settle(page)
                page.get_by_role("region", name=DECODE).get_by_role("radio", name=MODE_NAMES["recompute"]).check()
                model = project / "kvpage" / "labs" / "decode.py"
                versions = [""] + [f"v{run + 1}" for run in range(model_runs)]
                for current, version in itertools.pairwise(versions):
                    found["model"].append(model_edit(page, model, current, version))
                browser.close()
        finally:
            serve.terminate()
            serve.wait()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="prose edits (7)")
    parser.add_argument("--model-runs", type=int, default=5, help="model edits, each to a new version (5)")
    parser.add_argument("--json", type=Path, help="also write every sample here")
    parser.add_argument("--chapters", type=int, default=0, help="serve a book of this many chapters (0: the book)")
    args = parser.parse_args(argv)
    found = measure(args.runs, args.model_runs, args.chapters)
    names = {
        "prose": "prose edit saved → new text on the open page",
        "model": "model edit saved → the open page shows the new model's numbers (no reload)",
    }
    for key, name in names.items():
        values = found[key]
        if values:
            print(f"{name}: median {statistics.median(values):.2f} s")
            print(f"  runs: {', '.join(f'{value:.2f}' for value in values)} s")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
