#!/usr/bin/env python3
"""How fast the labs come alive in WebKit (WebKitGTK's MiniBrowser), the engine of Safari.

    xvfb-run -a .venv/bin/python bench/webkit.py dist/kvpage.html            # the single file, 5 runs
    xvfb-run -a .venv/bin/python bench/webkit.py site/cache.html --http      # the site over http (bench/serving.py)
    xvfb-run -a .venv/bin/python bench/webkit.py site/cache.html --runs 3    # the site from file://

Needs Debian's ``webkit2gtk-driver`` and ``xvfb`` (``apt-get install -y webkit2gtk-driver xvfb``)
and Selenium (``.venv/bin/pip install -c constraints.txt -e '.[bench]'``). Each run is a new
WebDriver session, so a new browser with cold caches. It prints, per run and as medians, the
page's ``kvpage:labs-live`` mark and, to tell HTML parsing from starting Python, when the document
was parsed (``domInteractive``) and the ``kvpage:assets-decoded`` mark, all from navigation start;
under each run, where its cold start went (the first worker's and the unpacker's marks, as
``bench/run.py`` prints them).
Compositing is off (``WEBKIT_DISABLE_COMPOSITING_MODE=1``): Xvfb has no GPU.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PHASES, went
from serving import serve

DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
TIMEOUT_S = 120
LABELS = {"parsed": "document parsed", "decoded": "assets decoded", "live": "labs live"}
TIMES = (
    """
const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? null;
const navigation = performance.getEntriesByType("navigation")[0];
return {
  state: document.documentElement.dataset.python ?? "",
  parsed: navigation ? navigation.domInteractive : null,
  decoded: mark("kvpage:assets-decoded"),
  live: mark("kvpage:labs-live"),
  phases: ("""
    + PHASES
    + """)(),
  status: document.querySelector("[data-role=runtime]")?.textContent ?? "",
};
"""
)


def one_run(url: str) -> dict[str, Any]:
    webdriver: Any = importlib.import_module("selenium.webdriver")  # the bench extra, not the test one
    options = webdriver.WebKitGTKOptions()
    options.binary_location = MINIBROWSER
    options.add_argument("--automation")
    driver = webdriver.WebKitGTK(options=options, service=webdriver.WebKitGTKService(executable_path=DRIVER))
    try:
        driver.set_page_load_timeout(TIMEOUT_S)
        driver.get(url)
        deadline = time.monotonic() + TIMEOUT_S
        found: dict[str, Any] = driver.execute_script(TIMES)
        while found["state"] not in ("ready", "failed") and time.monotonic() < deadline:
            time.sleep(0.05)  # WebDriver offers no event to wait on here; the marks carry the timing
            found = driver.execute_script(TIMES)
        return found
    finally:
        driver.quit()


def ms(value: float | None) -> str:
    return "—" if value is None else f"{value:,.0f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("page", type=Path, help="an HTML file: dist/kvpage.html, or site/cache.html")
    parser.add_argument("--http", action="store_true", help="serve the page's folder over http instead of file://")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--name", default="ours", help="the page's name in --json runs (default: ours)")
    parser.add_argument("--json", type=Path, help="also write the runs here, shaped like bench/run.py's")
    args = parser.parse_args(argv)
    os.environ.setdefault("WEBKIT_DISABLE_COMPOSITING_MODE", "1")
    page = args.page.resolve()
    runs: list[dict[str, Any]] = []
    with serve(page.parent) if args.http else contextlib.nullcontext(None) as base:
        url = f"{base}{page.name}" if base else page.as_uri()
        for index in range(args.runs):
            found = one_run(url)
            runs.append(found)
            why = "" if found["live"] else f" ({found['state']}: {found['status']})"
            times = ", ".join(f"{label} {ms(found[key])}" for key, label in LABELS.items())
            print(f"run {index + 1}/{args.runs}: {times}{why}", file=sys.stderr)
            if found["phases"]:
                print(f"  {went(found['phases'])}", file=sys.stderr)

    def median(key: str) -> float | None:
        values = [run[key] for run in runs if run[key] is not None]
        return statistics.median(values) if values else None

    if args.json:
        shaped = [
            {
                "page": args.name,
                "mode": "http" if args.http else "file",
                "browser": "WebKit",
                "live_ms": run["live"],
                "fcp_ms": None,
                "failure": "" if run["live"] is not None else f"{run['state']}: {run['status']}",
                "phases": run["phases"],
            }
            for run in runs
        ]
        args.json.write_text(json.dumps(shaped, indent=1) + "\n", encoding="utf-8")
    mode = "http" if args.http else "file://"
    print(f"WebKitGTK MiniBrowser, {args.page} over {mode}, {args.runs} cold runs, medians:")
    print("  " + ", ".join(f"{label} {ms(median(key))}" for key, label in LABELS.items()))
    failed = [run for run in runs if run["live"] is None]
    for run in failed:
        print(f"  never live: {run['state']}: {run['status']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
