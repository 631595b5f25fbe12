#!/usr/bin/env python3
"""Screenshots of the book's first screens, to look at: the chapter and the index, 360 and 1280 px, light and dark.

    .venv/bin/python bench/screens.py                       # site/ as built, into /tmp/kvpage-screens
    .venv/bin/python bench/screens.py --site site --out shots --print   # also the chapter printed, as a PDF

Each page is opened from file:// (what the figure and the index must survive without a server or
Python) in Debian's Chromium, and only the first screen is taken (the viewport, not the whole
page): what a reader sees before scrolling or acting. ``--print`` also writes the chapter as the
browser prints it (``cache.pdf``), to check that page 1 is not half blank. The pictures are for a
person to look at; nothing here asserts (the tests do: tests/e2e/test_figure.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
SCREENS = {360: 800, 1280: 900}
"""Viewport widths and the height of a first screen at each."""
PAGES = ("cache.html", "index.html")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("site"), help="a built site (default: site)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/kvpage-screens"), help="where the PNGs go")
    parser.add_argument("--print", action="store_true", help="also print the chapter to cache.pdf")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for width, height in SCREENS.items():
            for scheme in ("light", "dark"):
                page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
                for name in PAGES:
                    page.goto((options.site / name).resolve().as_uri())
                    shot = options.out / f"{Path(name).stem}-{width}-{scheme}.png"
                    page.screenshot(path=shot)
                    print(shot)
                page.close()
        if options.print:
            page = browser.new_page()
            page.goto((options.site / "cache.html").resolve().as_uri())
            page.pdf(path=options.out / "cache.pdf", format="A4")
            print(options.out / "cache.pdf")
        browser.close()


if __name__ == "__main__":
    main()
