#!/usr/bin/env python3
"""How fast the chapter's labs come alive, against stock Pyodide in the same run.

    python bench/run.py              # 7 cold runs of each page, http and file://
    python bench/run.py --runs 11    # more runs
    python bench/run.py --quick      # one run each, few interactions: the test suite's smoke run

It builds the site (or takes ``--site``), then a *stock* page from it: the same chapter, CSS and lab
code, and the same pool of Python workers, but each worker made with Pyodide as shipped in
``node_modules/pyodide`` (a module worker importing ``pyodide.mjs``, ``loadPyodide()``, its
``.mjs``, wasm and ``.py`` standard library) with the same kvpage wheel installed by
``loadPackage("kvpage")`` through the same lock file (``stock_spawn.js``, bundled in place of the page's
loader, and ``stock_worker.mjs``).
Both are opened over http (``bench/serving.py``: 127.0.0.1, text gzipped as GitHub Pages sends
it) and from file://, alternating page and order, each run in a fresh browser context, and it
prints medians and the ratio ours/stock:

- labs live: navigation start → the page's ``kvpage:labs-live`` mark (controls enabled: the first
  worker's Python is ready; the page computes nothing at start-up, the build did);
- first contentful paint;
- where our cold start went, printed with each run: when the page's first Python worker reached each
  phase (its ``kvpage:worker-PHASE`` marks: started, compiled, decoded, instantiated, restored)
  and the unpacker had decoded each zstd binary (``kvpage:unpacked-NAME``), from navigation start;
- interactions, p50/p95 over all runs: a slider key press, a keystroke in a request box, a Forward
  click, from the trusted input event to the lab's DOM updated and laid out (``bench/measure.js``);
- bytes received until the labs were live, over http: the bodies as the browser received them
  (each response body's size as Playwright reports it, for the page itself and every file it or its
  workers requested before the ``kvpage:labs-live`` mark) from a server that gzips text types as GitHub Pages does
  (``bench/serving.py``); and in all, after a run of interactions;
- bytes the page loaded: raw, gzip -9 and brotli q11 (what a server would send compressed; q5 in
  ``--quick``), and as GitHub Pages would send them (gzip for text types only: ``PAGES_GZIPS``).

Stock Pyodide cannot start from file:// (a module worker from a file:// URL, its ``import()`` and
``fetch`` of sibling files are refused there); the table says so instead of a number.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import hashlib
import json
import re
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from sitegen.site.output import stage_file  # noqa: E402
from sitegen.site.page_script import page_script  # noqa: E402

sys.path.insert(0, str(HERE))
from harness import add_also, add_options, also_sites, workspace  # noqa: E402
from serving import PAGES_GZIPS, serve  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
LIVE_TIMEOUT_MS = 60_000
STOCK_FILES = ("pyodide.mjs", "pyodide.mjs.map", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
Key = tuple[str, str]
"""(page, mode): ("ours" or "stock", "http" or "file")."""
SINGLE_FILE = "kvpage.html"
MODULES = ROOT / "site_template" / "static" / "kvpage"
"""The page's modules (sitegen/site/page_script.py): the stock page's script is bundled from them,
its loader replaced."""
DECODE = "Lab · prefill once, then decode"
NEXT = "Lab · the next request"


@dataclass
class Run:
    """One cold page load and what it measured."""

    page: str
    mode: str
    live_ms: float | None = None
    fcp_ms: float | None = None
    failure: str = ""
    interactions: dict[str, list[dict[str, float]]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    received_live: float | None = None
    """Bytes of bodies received until the labs were live (the page and what it requested before); None from disk."""
    received_all: float | None = None
    """… and in all, once the run's interactions were done."""
    phases: dict[str, float] = field(default_factory=dict)
    """Our page's marks of how far its first worker and the unpacker were (PHASES), ms from navigation."""


PHASES = """() => Object.fromEntries(performance.getEntriesByType("mark")
    .filter((mark) => /^kvpage:(worker|unpacked)-/.test(mark.name))
    .reverse()  // the first of each name wins: worker-ready comes again for the spare
    .map((mark) => [mark.name.slice("kvpage:".length), mark.startTime]))"""


def stock_script(work: Path) -> bytes:
    """The page's script with stock Pyodide's loader: its modules bundled with ``stock_spawn.js`` in
    place of stage "spawn" (the same exports), and without stages "assets" and "unpacking", which
    only "spawn" imports."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(MODULES, work)
    shutil.copy(HERE / "stock_spawn.js", work / "spawn.js")
    (work / "assets.js").unlink()
    (work / "unpacking.js").unlink()
    return page_script(work)


def build_stock(ours: Path, out: Path) -> Path:
    """Our chapter with stock Pyodide: same HTML body, CSS, lab code and wheel; its own loader."""
    site = out / "stock"
    shutil.rmtree(site, ignore_errors=True)
    (site / "pyodide").mkdir(parents=True)
    (site / "static").mkdir()
    package = ROOT / "node_modules" / "pyodide"
    for name in STOCK_FILES:
        shutil.copy(package / name, site / "pyodide" / name)
    lock = json.loads((ours / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    wheel = lock["packages"]["kvpage"]["file_name"]
    shutil.copy(ours / "pyodide" / wheel, site / "pyodide" / wheel)
    shutil.copy(ours / "pyodide" / "pyodide-lock.json", site / "pyodide" / "pyodide-lock.json")
    for static in (ours / "static").iterdir():  # the page's own CSS and scripts (the labs' too), as built
        if static.is_dir():
            shutil.copytree(static, site / "static" / static.name)
        elif static.name != "kvpage.js":
            shutil.copy(static, site / "static" / static.name)
    shutil.copy(HERE / "stock_worker.mjs", site / "static" / "stock_worker.mjs")
    (site / "static" / "kvpage.js").write_bytes(stock_script(out / "stock-modules"))
    html = (ours / "cache.html").read_text(encoding="utf-8")
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', "", html)  # stock: no policy to meet
    if '<script src="static/kvpage.js" defer></script>' not in html:
        raise SystemExit("bench: cache.html has no <script src=static/kvpage.js>")
    (site / "cache.html").write_text(html, encoding="utf-8")
    return site


def interact(page: Any, samples: int) -> dict[str, list[dict[str, float]]]:
    """Slider key presses, keystrokes in Request 2 and Forward clicks (the decode lab's step), each timed
    by measure.js."""
    decode = page.get_by_role("region", name=DECODE)
    lab = page.get_by_role("region", name=NEXT)
    done = 0
    results: dict[str, list[dict[str, float]]] = {}

    def timed(kind: str, action: Callable[[int], None]) -> None:
        nonlocal done
        for index in range(samples):
            action(index)
            done += 1
            page.evaluate("count => window.__bench.until(count)", done)
        results[kind] = page.evaluate(f"window.__bench.samples.slice({done - samples}, {done})")

    slider = decode.get_by_label("Prefix length")
    slider.focus()
    timed("slider", lambda index: slider.press("ArrowRight" if index % 2 == 0 else "ArrowLeft"))
    box = lab.get_by_label("Request 2", exact=True)
    box.focus()
    box.press("End")
    timed("keystroke", lambda index: box.press("x" if index % 2 == 0 else "Backspace"))
    decode.get_by_role("button", name="Reset").click()
    done += 1
    page.evaluate("count => window.__bench.until(count)", done)
    step = decode.get_by_role("button", name="Forward")
    timed("step", lambda index: step.click())
    return results


@dataclass
class Received:
    """Bodies as the browser received them (compressed or not), of every request a page made: its
    own and its workers' (Playwright reports a dedicated worker's requests on the context, where the
    page's Resource Timing holds only the page's: stock Pyodide's worker fetches its 12 MB unseen
    there). Each is (start, bytes), start in ms since the epoch."""

    bodies: list[tuple[float, int]] = field(default_factory=list)

    def add(self, request: Any) -> None:
        self.bodies.append((request.timing["startTime"], max(0, request.sizes()["responseBodySize"])))

    def until(self, epoch_ms: float | None) -> int:
        """Bytes of the requests started by ``epoch_ms`` (None: all)."""
        return sum(size for start, size in self.bodies if epoch_ms is None or start <= epoch_ms)


def measure(browser: Any, url: str, page_name: str, mode: str, samples: int) -> Run:
    run = Run(page=page_name, mode=mode)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script(path=str(HERE / "measure.js"))
        page.on("request", lambda request: run.requests.append(request.url))
        received = Received()
        context.on("requestfinished", received.add)
        page.goto(url)
        page.set_default_timeout(LIVE_TIMEOUT_MS)
        page.evaluate("() => window.__bench.python()")
        found = page.evaluate(
            """() => ({
                live: performance.getEntriesByName("kvpage:labs-live")[0]?.startTime ?? null,
                fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
                status: document.querySelector("[data-role=runtime]")?.textContent ?? "",
            })"""
        )
        run.fcp_ms = found["fcp"]
        if found["live"] is None:
            run.failure = found["status"]
        else:
            run.live_ms = found["live"]
            run.phases = page.evaluate(PHASES)
            if mode == "http":
                run.received_live = received.until(page.evaluate("performance.timeOrigin") + found["live"])
            run.interactions = interact(page, samples)
            if mode == "http":
                run.received_all = received.until(None)
    except Exception as error:  # noqa: BLE001 - a run that breaks is a result to report, not a crash
        run.failure = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    finally:
        context.close()
    return run


def pages_bytes(path: Path, raw: int, gz: int) -> int:
    """What a reader of GitHub Pages downloads for ``path``: gzip for the types in PAGES_GZIPS."""
    return gz if path.suffix.lower() in PAGES_GZIPS else raw


SIZE_CACHE = ROOT / ".cache" / "bench-sizes.json"
"""Compressed sizes by sha256: brotli q11 of the 13 MB wasm takes ~20 s, and it rarely changes."""


def compressed_sizes(paths: set[Path], quality: int) -> dict[Path, tuple[int, int, int]]:
    """Raw, gzip -9 and brotli bytes of each file (brotli at ``quality``, through Node's zlib)."""
    cache: dict[str, list[int]] = json.loads(SIZE_CACHE.read_text()) if SIZE_CACHE.is_file() else {}
    found: dict[Path, tuple[int, int, int]] = {}
    for path in sorted(paths):
        data = path.read_bytes()
        digest = f"{hashlib.sha256(data).hexdigest()} q{quality}"
        if digest not in cache:
            brotli = subprocess.run(
                [
                    "node",
                    "-e",
                    "const z=require('zlib');const d=require('fs').readFileSync(process.argv[1]);"
                    "process.stdout.write(String(z.brotliCompressSync(d,{params:{"
                    "[z.constants.BROTLI_PARAM_QUALITY]:+process.argv[2],"
                    "[z.constants.BROTLI_PARAM_SIZE_HINT]:d.length}}).length))",
                    str(path),
                    str(quality),
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            cache[digest] = [len(data), len(gzip.compress(data, compresslevel=9, mtime=0)), int(brotli)]
        raw, gz, br = cache[digest]
        found[path] = (raw, gz, br)
    # Staged whole and renamed, as the build writes its files: two runs at once (the test suite's
    # smoke run and a bench) each leave a complete file, never one cut short.
    stage_file((json.dumps(cache, indent=0, sort_keys=True) + "\n").encode(), SIZE_CACHE).replace(SIZE_CACHE)
    return found


def local_file(url: str, roots: dict[str, Path]) -> Path | None:
    for base, root in roots.items():
        if url.startswith(base):
            return root / unquote(urlsplit(url).path[len(urlsplit(base).path) :])
    return None


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def markdown(lines: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = ["| " + " | ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)) + " |" for line in lines]
    out.insert(1, "| " + " | ".join("-" * width for width in widths) + " |")
    return "\n".join(out)


class Results:
    """Every run, and the files each page loaded, summarised as medians and percentiles."""

    def __init__(self, runs: list[Run], roots: dict[str, Path], quality: int) -> None:
        self.runs = runs
        self.roots = roots
        self.loaded: dict[Key, set[Path]] = {}
        for run in runs:
            key = (run.page, run.mode)
            if run.requests and key not in self.loaded:
                paths = {local_file(url, roots) for url in run.requests}
                self.loaded[key] = {path for path in paths if path is not None and path.is_file()}
        self.quality = quality
        self.sizes = compressed_sizes(set().union(*self.loaded.values()), quality)

    def of(self, key: Key) -> list[Run]:
        return [run for run in self.runs if (run.page, run.mode) == key]

    def median(self, key: Key, pick: Callable[[Run], float | None]) -> float | None:
        values = [value for run in self.of(key) if (value := pick(run)) is not None]
        return statistics.median(values) if values else None

    def interaction(self, key: Key, kind: str, what: str, fraction: float) -> float | None:
        values = [sample[what] for run in self.of(key) for sample in run.interactions.get(kind, [])]
        return percentile(values, fraction) if values else None

    def bytes(self, key: Key, index: int) -> float | None:
        return float(sum(self.sizes[path][index] for path in self.loaded[key])) if key in self.loaded else None

    def pages(self, key: Key) -> float | None:
        """Bytes loaded as GitHub Pages would send them (``pages_bytes``)."""
        if key not in self.loaded:
            return None
        return float(sum(pages_bytes(path, *self.sizes[path][:2]) for path in self.loaded[key]))

    def received(self, key: Key, until_live: bool) -> float | None:
        """Median bytes received over http, until the labs were live or in all."""
        return self.median(key, lambda run: run.received_live if until_live else run.received_all)

    def live(self, key: Key) -> float | None:
        return self.median(key, lambda run: run.live_ms)

    def fcp(self, key: Key) -> float | None:
        return self.median(key, lambda run: run.fcp_ms)

    def failures(self) -> list[str]:
        found = {(run.page, run.mode, run.failure) for run in self.runs if run.failure}
        return [f"{page} {mode}: {failure}" for page, mode, failure in sorted(found)]


def ms(value: float | None) -> str:
    return "never" if value is None else f"{value:,.0f} ms"


def went(phases: dict[str, float]) -> str:
    """A run's phases (Run.phases) in the order they came, each with its time from navigation."""
    return ", ".join(f"{phase} {ms(at)}" for phase, at in sorted(phases.items(), key=lambda item: item[1]))


def mb(value: float | None) -> str:
    return "—" if value is None else f"{value / 1e6:.2f} MB"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a is not None and b else "—"


def main_table(results: Results) -> str:
    """Ours against stock, http and file://, with the ratios."""
    columns: list[Key] = [("ours", "http"), ("stock", "http"), ("ours", "file"), ("stock", "file")]
    lines = [["", "ours http", "stock http", "ours file://", "stock file://", "http ours/stock", "file ours/stock"]]

    def add(name: str, values: list[float | None], show: Callable[[float | None], str]) -> None:
        lines.append([name, *map(show, values), ratio(values[0], values[1]), ratio(values[2], values[3])])

    add("labs live (median)", [results.live(key) for key in columns], ms)
    add("first contentful paint (median)", [results.fcp(key) for key in columns], lambda v: ms(v) if v else "—")
    kinds = (("slider", "slider key"), ("keystroke", "request keystroke"), ("step", "Forward click"))
    for kind, label in kinds:
        for what in ("latency", "work") if kind == "keystroke" else ("latency",):
            for fraction, tag in ((0.5, "p50"), (0.95, "p95")):
                name = f"{label}{' (from the debounced update)' if what == 'work' else ''} {tag}"
                values = [results.interaction(key, kind, what, fraction) for key in columns]
                add(name, values, lambda v: "—" if v is None else f"{v:,.1f} ms")
    add("bytes received until labs live (text gzipped)", [results.received(key, True) for key in columns], mb)
    add("bytes received in all (text gzipped)", [results.received(key, False) for key in columns], mb)
    for index, kind in enumerate(("raw", "gzip -9", f"brotli q{results.quality}")):
        add(f"bytes loaded, {kind}", [results.bytes(key, index) for key in columns], mb)
    add("bytes loaded, as GitHub Pages sends", [results.pages(key) for key in columns], mb)
    return markdown(lines)


def single_table(results: Results, singles: dict[str, Path]) -> str:
    """Each single-file book, opened from file:// (everything inline: nothing else is loaded)."""
    keys: list[Key] = [(name, "single") for name in singles]
    lines = [["", *(f"{name} single file" for name in singles)]]
    lines.append(["labs live (median)", *(ms(results.live(key)) for key in keys)])
    lines.append(
        ["first contentful paint (median)", *(ms(results.fcp(key)) if results.fcp(key) else "—" for key in keys)]
    )
    lines.append(["file size", *(mb(float(path.stat().st_size)) for path in singles.values())])
    for index, kind in ((1, "gzip -9"), (2, f"brotli q{results.quality}")):
        lines.append([f"bytes loaded, {kind}", *(mb(results.bytes(key, index)) for key in keys)])
    lines.append(["bytes loaded, as GitHub Pages sends", *(mb(results.pages(key)) for key in keys)])
    return markdown(lines)


def variants_table(results: Results, pages: list[str]) -> str:
    """Labs live for every page measured (e.g. one site per lever), against stock over http."""
    header = ["page", "labs live http", "labs live file://", "vs stock http", "FCP http", "brotli http", "Pages http"]
    lines = [[*header, "received until live"]]
    stock = results.live(("stock", "http"))
    for page in pages:
        http, file = results.live((page, "http")), results.live((page, "file"))
        fcp, brotli = results.fcp((page, "http")), results.bytes((page, "http"), 2)
        sent, live = mb(results.pages((page, "http"))), mb(results.received((page, "http"), True))
        lines.append([page, ms(http), ms(file), ratio(http, stock), ms(fcp) if fcp else "—", mb(brotli), sent, live])
    return markdown(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_options(
        parser,
        7,
        runs_help="cold runs per page and mode",
        quick_help="one run each, 2 interactions, brotli q5: a smoke test of the harness",
        work_help="the builds",
    )
    parser.add_argument("--samples", type=int, default=10, help="timed interactions of each kind per run")
    add_also(parser, "another built site to measure alongside")
    parser.add_argument(
        "--single",
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="also open this single-file book (dist/kvpage.html) from file://; NAME defaults to 'ours'",
    )
    parser.add_argument("--no-stock", action="store_true", help="skip the stock page (its column says '—')")
    args = parser.parse_args(argv)
    runs, samples = (1, 2) if args.quick else (args.runs, args.samples)

    from playwright.sync_api import sync_playwright

    with workspace(args, "kvpage-bench-") as (work, ours):
        sites = {"ours": ours} if args.no_stock else {"ours": ours, "stock": build_stock(ours, work)}
        singles = {
            (name if path else "ours"): Path(path or name).resolve()
            for name, _, path in (single.partition("=") for single in args.single)
        }
        if not singles and not args.site and (work / "ours" / "dist" / SINGLE_FILE).is_file():
            singles["ours"] = work / "ours" / "dist" / SINGLE_FILE
        sites |= also_sites(args.also)
        results: list[Run] = []
        with contextlib.ExitStack() as stack:
            bases = {name: stack.enter_context(serve(folder)) for name, folder in sites.items()}
            playwright = stack.enter_context(sync_playwright())
            launch: dict[str, Any] = {"args": LAUNCH_ARGS}
            if CHROMIUM.exists():
                launch["executable_path"] = str(CHROMIUM)
            browser = playwright.chromium.launch(**launch)
            names = list(sites)
            for index in range(runs):
                # Every page in turn, starting one further along each time, so no page is always first.
                order = names[index % len(names) :] + names[: index % len(names)]
                for mode in ("http", "file", "single"):
                    for name in order + [name for name in singles if name not in order]:
                        if name not in (singles if mode == "single" else sites):
                            continue
                        url = (
                            bases[name] + "cache.html"
                            if mode == "http"
                            else singles[name].as_uri()
                            if mode == "single"
                            else (sites[name] / "cache.html").as_uri()
                        )
                        run = measure(browser, url, name, mode, samples)
                        results.append(run)
                        shown = ms(run.live_ms) if run.live_ms is not None else f"never ({run.failure[:80]})"
                        print(f"run {index + 1}/{runs} {name:8} {mode:4}: labs live {shown}", file=sys.stderr)
                        if run.phases:
                            print(f"  {went(run.phases)}", file=sys.stderr)
            browser.close()
        roots = {bases[name]: folder for name, folder in sites.items()}
        roots |= {folder.as_uri() + "/": folder for folder in sites.values()}
        roots |= {path.as_uri(): path for path in singles.values()}
        summary = Results(results, roots, quality=5 if args.quick else 11)
        print(main_table(summary))
        if singles:
            print()
            print(single_table(summary, singles))
        if args.also:
            print()
            print(
                variants_table(summary, [name for name in names if name != "stock"] + ["stock"] * (not args.no_stock))
            )
        print(f"\nruns per page and mode: {runs}, fresh browser context each; interactions: {samples} of each kind")
        for failure in summary.failures():
            print(f"never: {failure}")
        if args.json:
            args.json.write_text(json.dumps([run.__dict__ for run in results], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
