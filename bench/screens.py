#!/usr/bin/env python3
"""Screenshots to look at: the book's first screens and the labs in the states a reader meets them.

    .venv/bin/python bench/screens.py                       # site/ as built, into /tmp/kvpage-screens
    .venv/bin/python bench/screens.py --site site --out shots --print   # also the chapter printed, as a PDF
    .venv/bin/python bench/screens.py --readme              # also the README's two lab pictures in docs/
    .venv/bin/python bench/screens.py --before 87ffac3      # before/after: a git ref built in a clone
    .venv/bin/python bench/screens.py --before /tmp/before/site   # before/after: a site built already

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

``--before`` makes the same set of an older page beside it, in one command: a built site (a folder
with cache.html), or a git ref, which is cloned from this repository into a temporary folder and
built there as a newcomer would (``make deps``, then ``build.py``: minutes, and its own
virtualenv). The pictures go into OUT/before and OUT/after, with OUT/index.html showing each pair
side by side; a state the old page does not have (its decode lab had no step slider, say) is
skipped, and listed there and on the terminal.
"""

from __future__ import annotations

import argparse
import html
import subprocess
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

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
STATES = ("decode-cold", "decode-generated", "decode-back", "next-one-letter")
"""The labs' states, in the order they are taken."""
ROOT = Path(__file__).resolve().parents[1]


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


def walk(page: Page, out: Path, suffix: str, readme: Path | None) -> list[str]:
    """The decode and next-request labs through the states above, a shot of the lab at each; the
    states this page does not have (an older page's), each with why, are returned."""
    decode, following = lab(page, "decode"), lab(page, "next-request")
    generate = decode.get_by_role("button", name="Generate")
    expect(generate).to_be_enabled(timeout=LIVE_MS)
    skipped = []

    def shoot(state: str, target: Locator) -> None:
        # The lab's top at the screen's: a part pinned while the lab scrolls (the decode lab's step
        # controls, position: sticky) is then drawn where the lab puts it, not over what is below it.
        target.evaluate("(lab) => lab.scrollIntoView({ block: 'start' })")
        take(page, out, f"{state}-{suffix}", target)
        if readme is not None and state in README:
            target.screenshot(path=readme / README[state])
            print(readme / README[state])

    shoot("decode-cold", decode)
    generate.click()
    expect(generate).to_be_disabled(timeout=LIVE_MS)  # the run is done
    shoot("decode-generated", decode)
    slider = decode.get_by_role("slider", name="Steps taken")
    if slider.count() == 0:
        skipped.append("decode-back: no step slider")
    else:
        slider.focus()
        slider.press("Home")
        for _ in range(BACK_TO):
            slider.press("ArrowRight")
        expect(slider).to_have_attribute("aria-valuetext", f"step {BACK_TO} of {slider.get_attribute('max')}")
        expect(decode.locator("[data-field=progress]")).to_have_text(f"step {BACK_TO} of {slider.get_attribute('max')}")
        shoot("decode-back", decode)
    box = following.get_by_role("textbox", name="Request 2")
    first = following.get_by_role("textbox", name="Request 1").input_value()
    shared = following.locator("output[data-field=shared]")
    seed = shared.inner_text()
    box.fill(one_letter_changed(first))
    box.blur()  # the picture is of the lab, not of the focus ring
    expect(shared).not_to_have_text(seed, timeout=LIVE_MS)
    expect(shared).not_to_have_text("—", timeout=LIVE_MS)
    shoot("next-one-letter", following)
    return skipped


def shots(browser: Browser, site: Path, out: Path, first_only: bool) -> list[str]:
    """Every first screen and lab state of ``site`` at each width and scheme, into ``out``; the
    states it lacks, each as ``STATE-WIDTH-SCHEME: why``."""
    out.mkdir(parents=True, exist_ok=True)
    skipped = []
    for width, height in SCREENS.items():
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
            for name in PAGES:
                page.goto((site / name).resolve().as_uri())
                take(page, out, f"{Path(name).stem}-first-{width}-{scheme}")
            if not first_only:
                page.goto((site / "cache.html").resolve().as_uri())
                for missing in walk(page, out, f"{width}-{scheme}", None):
                    state, why = missing.split(": ", 1)
                    skipped.append(f"{state}-{width}-{scheme}: {why}")
            page.close()
    return skipped


def built_ref(ref: str, folder: Path) -> Path:
    """The site of git ref ``ref``, cloned from this repository into ``folder`` and built there as
    a newcomer builds it (its own virtualenv and npm packages: ``make deps``, then ``build.py``)."""
    clone = folder / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", "--detach", ref], check=True)
    subprocess.run(["make", "--no-print-directory", "deps"], cwd=clone, check=True)
    subprocess.run([str(clone / ".venv" / "bin" / "python"), "build.py"], cwd=clone, check=True)
    return clone / "site"


def pictures(first_only: bool = False) -> list[str]:
    """Every picture's name (without .png) a set has, in the order index.html shows them."""
    names = []
    for state in ("cache-first", "index-first", *(() if first_only else STATES)):
        for width in SCREENS:
            names += [f"{state}-{width}-{scheme}" for scheme in ("light", "dark")]
    return names


def compare(out: Path, before: str, skipped: list[str], first_only: bool = False) -> Path:
    """OUT/index.html: each picture of OUT/before beside OUT/after's, and the states skipped."""
    why = dict(line.split(": ", 1) for line in skipped)
    rows = []
    for name in pictures(first_only):
        cells = []
        for side in ("before", "after"):
            if (out / side / f"{name}.png").exists():
                cells.append(f'<td><img src="{side}/{name}.png" alt="{side}: {name}" loading="lazy"></td>')
            else:
                cells.append(f"<td>not taken: {html.escape(why.get(name, 'missing'))}</td>")
        rows.append(f"<tr><th>{name}</th>{''.join(cells)}</tr>")
    notes = "".join(f"<li>{html.escape(line)}</li>" for line in skipped) or "<li>none</li>"
    page = f"""<!doctype html><meta charset="utf-8"><title>kvpage before/after</title>
<style>body{{font:14px system-ui,sans-serif}} td,th{{vertical-align:top;text-align:left;padding:4px}}
img{{max-width:48vw}}</style>
<h1>Before ({html.escape(before)}) and after</h1><h2>States the old page does not have</h2><ul>{notes}</ul>
<table><tr><th></th><th>before</th><th>after</th></tr>{"".join(rows)}</table>
"""
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("site"), help="a built site (default: site)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/kvpage-screens"), help="where the PNGs go")
    parser.add_argument("--print", action="store_true", help="also print the chapter to cache.pdf")
    parser.add_argument("--readme", action="store_true", help="also write README.md's pictures into docs/")
    parser.add_argument("--first-only", action="store_true", help="only the first screens (no Python needed)")
    parser.add_argument("--before", metavar="SITE_OR_REF", help="also an older page: a built site or a git ref")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    chapter = (options.site / "cache.html").resolve().as_uri()
    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="kvpage-before-") as scratch:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        if options.before is None:
            shots(browser, options.site, options.out, options.first_only)
        else:
            given = Path(options.before)
            old = given if (given / "cache.html").is_file() else built_ref(options.before, Path(scratch))
            skipped = shots(browser, old, options.out / "before", options.first_only)
            skipped += shots(browser, options.site, options.out / "after", options.first_only)
            for line in skipped:
                print(f"skipped {line}")
            print(compare(options.out, options.before, skipped, options.first_only))
        if options.readme:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme="light")
            page.goto(chapter)
            walk(page, options.out, "readme-1280-light", ROOT / "docs")
            page.close()
        if options.print:
            page = browser.new_page()
            page.goto(chapter)
            page.pdf(path=options.out / "cache.pdf", format="A4")
            print(options.out / "cache.pdf")
        browser.close()


if __name__ == "__main__":
    main()
