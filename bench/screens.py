#!/usr/bin/env python3
"""Screenshots to look at: the book's first screens and the labs in the states a reader meets them.

    .venv/bin/python bench/screens.py                       # site/ as built, into /tmp/kvpage-screens
    .venv/bin/python bench/screens.py --site site --out shots --print   # also the chapter printed, as a PDF
    .venv/bin/python bench/screens.py --readme              # also the README's two lab pictures in docs/

Each page is opened from file:// (what the figure and the index must survive without a server, and
where the labs still run) in Debian's Chromium, at 360, 768 and 1280 px, light and dark:

- ``cache-first``, ``index-first``: the first screen (the viewport, not the whole page), what a
  reader sees before scrolling or acting;
- ``decode-cold``: the decode lab as it opens, before Generate (its preview curves);
- ``decode-generated``: after Generate, every step taken;
- ``decode-back``: stepped back to step 5 with the step slider's keys;
- ``next-one-letter``: the next-request lab after one letter of request 2's system prompt changed.

The labs' states need Python live in the page (up to a minute per page on a loaded machine).
``--print`` also writes the chapter as the browser prints it (``cache.pdf``), to check that page 1
is not half blank; ``--readme`` writes the two labs as README.md shows them (1,280 px, light: the
decode lab after Generate, the next request after a one-letter change) into docs/. The pictures
are for a person to look at; nothing here asserts (the tests do: tests/e2e/).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import Locator, Page, expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
SCREENS = {360: 800, 768: 1000, 1280: 900}
"""Viewport widths and the height of a first screen at each."""
PAGES = ("cache.html", "index.html")
LIVE_MS = 120_000
"""How long Python may take to start in the page (a loaded machine, two cores)."""
BACK_TO = 5
"""The step the decode lab is moved back to."""
README = {"decode-generated": "lab-decode.png", "next-one-letter": "lab-next-request.png"}
"""The states README.md shows, and their files in docs/."""


def lab(page: Page, name: str) -> Locator:
    return page.locator(f"section.lab[data-lab={name}]")


def one_letter_changed(text: str) -> str:
    """``text`` with one letter of its first word of four letters or more changed (``precise`` → ``precize``)."""
    word = next(word for word in text.split() if len(word) >= 4 and word.isalpha())
    at = text.index(word) + len(word) - 2
    return text[:at] + ("z" if text[at] != "z" else "y") + text[at + 1 :]


def take(page: Page, out: Path, stem: str, target: Locator | None = None) -> None:
    path = out / f"{stem}.png"
    if target is None:
        page.screenshot(path=path)
    else:
        target.screenshot(path=path)
    print(path)


def walk(page: Page, out: Path, suffix: str, readme: Path | None) -> None:
    """The decode and next-request labs through the states above, a shot of the lab at each."""
    decode, following = lab(page, "decode"), lab(page, "next-request")
    generate = decode.get_by_role("button", name="Generate")
    expect(generate).to_be_enabled(timeout=LIVE_MS)

    def shoot(state: str, target: Locator) -> None:
        target.scroll_into_view_if_needed()
        take(page, out, f"{state}-{suffix}", target)
        if readme is not None and state in README:
            target.screenshot(path=readme / README[state])
            print(readme / README[state])

    shoot("decode-cold", decode)
    generate.click()
    expect(generate).to_be_disabled(timeout=LIVE_MS)  # the run is done
    shoot("decode-generated", decode)
    slider = decode.get_by_role("slider", name="Steps taken")
    slider.focus()
    slider.press("Home")
    for _ in range(BACK_TO):
        slider.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", f"step {BACK_TO} of {slider.get_attribute('max')}")
    expect(decode.locator("[data-field=progress]")).to_have_text(f"step {BACK_TO} of {slider.get_attribute('max')}")
    shoot("decode-back", decode)
    box = following.get_by_role("textbox", name="Request 2")
    first = following.get_by_role("textbox", name="Request 1").input_value()
    box.fill(one_letter_changed(first))
    box.blur()  # the picture is of the lab, not of the focus ring
    shared = following.locator("output[data-field=shared]")
    expect(shared).not_to_have_text("—", timeout=LIVE_MS)
    expect(following.locator("[data-part=tokens2] [data-kind=differs]")).to_have_count(1)
    shoot("next-one-letter", following)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("site"), help="a built site (default: site)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/kvpage-screens"), help="where the PNGs go")
    parser.add_argument("--print", action="store_true", help="also print the chapter to cache.pdf")
    parser.add_argument("--readme", action="store_true", help="also write README.md's pictures into docs/")
    parser.add_argument("--first-only", action="store_true", help="only the first screens (no Python needed)")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    chapter = (options.site / "cache.html").resolve().as_uri()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for width, height in SCREENS.items():
            for scheme in ("light", "dark"):
                page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
                for name in PAGES:
                    page.goto((options.site / name).resolve().as_uri())
                    take(page, options.out, f"{Path(name).stem}-first-{width}-{scheme}")
                if not options.first_only:
                    page.goto(chapter)
                    walk(page, options.out, f"{width}-{scheme}", None)
                page.close()
        if options.readme:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme="light")
            page.goto(chapter)
            walk(page, options.out, "readme-1280-light", Path("docs"))
            page.close()
        if options.print:
            page = browser.new_page()
            page.goto(chapter)
            page.pdf(path=options.out / "cache.pdf", format="A4")
            print(options.out / "cache.pdf")
        browser.close()


if __name__ == "__main__":
    main()
