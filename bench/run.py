#!/usr/bin/env python3
"""How fast the chapter's labs come alive, against stock Pyodide in the same run.

    python bench/run.py              # 7 cold runs of each page, http and file://
    python bench/run.py --runs 11    # more runs
    python bench/run.py --quick      # one run each, few interactions: the test suite's smoke run

It builds the site (or takes ``--site``), then a *stock* page from it: the same chapter, CSS and lab
code, but Pyodide as shipped in ``node_modules/pyodide`` (``pyodide.js``, ``loadPyodide()``, its
``.mjs``, wasm and ``.py`` standard library) with the same kvpage wheel installed by
``loadPackage("kvpage")`` through the same lock file. Both are opened over http (a local
``http.server``) and from file://, alternating page and order, each run in a fresh browser context,
and it prints medians and the ratio ours/stock:

- labs live: navigation start → the page's ``kvpage:labs-live`` mark (controls enabled, first
  Python call answered);
- first contentful paint;
- interactions, p50/p95 over all runs: a slider key press, a keystroke in a request box, a Step
  click, from the trusted input event to the lab's DOM updated and laid out (``bench/measure.js``);
- bytes the page loaded: raw, gzip -9 and brotli q11 (what a server would send compressed).

Stock Pyodide cannot start from file:// (its ``import()`` and ``fetch`` of sibling files are refused
there); the table says so instead of a number.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import hashlib
import http.server
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
LIVE_TIMEOUT_MS = 60_000
STOCK_FILES = ("pyodide.js", "pyodide.js.map", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
Key = tuple[str, str]
"""(page, mode): ("ours" or "stock", "http" or "file")."""
LOADER = re.compile(r"  // ---- loader: .*?  // ---- end of loader ----\n", re.DOTALL)
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


def build_ours(out: Path) -> Path:
    import build  # the project's build.py

    options = build.Options(out=out / "site", dist=out / "dist")
    build.build(options)
    return options.out


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
    shutil.copy(ours / "static" / "kvpage.css", site / "static" / "kvpage.css")
    script = (ours / "static" / "kvpage.js").read_text(encoding="utf-8")
    stock_loader = (HERE / "stock_loader.js").read_text(encoding="utf-8")
    spliced, count = LOADER.subn(lambda _: stock_loader, script)
    if count != 1:
        raise SystemExit("bench: kvpage.js has no single '// ---- loader:' … '// ---- end of loader ----' block")
    (site / "static" / "kvpage.js").write_text(spliced, encoding="utf-8")
    html = (ours / "cache.html").read_text(encoding="utf-8")
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', "", html)  # stock: no policy to meet
    html = re.sub(r"<link rel=\"preload\"[^>]*>\n", "", html)
    html, count = re.subn(
        r'<script src="static/kvpage.js"[^>]*></script>',
        '<script src="pyodide/pyodide.js"></script>\n<script src="static/kvpage.js" defer></script>',
        html,
    )
    if count != 1:
        raise SystemExit("bench: cache.html has no <script src=static/kvpage.js>")
    (site / "cache.html").write_text(html, encoding="utf-8")
    return site


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(root: Path) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def interact(page: Any, samples: int) -> dict[str, list[dict[str, float]]]:
    """Slider key presses, keystrokes in Request 2 and Step clicks, each timed by measure.js."""
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
    step = decode.get_by_role("button", name="Step")
    timed("step", lambda index: step.click())
    return results


def measure(browser: Any, url: str, page_name: str, mode: str, samples: int) -> Run:
    run = Run(page=page_name, mode=mode)
    context = browser.new_context()
    try:
        page = context.new_page()
        page.add_init_script(path=str(HERE / "measure.js"))
        page.on("request", lambda request: run.requests.append(request.url))
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
            run.interactions = interact(page, samples)
    except Exception as error:  # noqa: BLE001 - a run that breaks is a result to report, not a crash
        run.failure = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    finally:
        context.close()
    return run


SIZE_CACHE = ROOT / ".cache" / "bench-sizes.json"
"""Compressed sizes by sha256: brotli q11 of the 13 MB wasm takes ~20 s, and it rarely changes."""


def compressed_sizes(paths: set[Path]) -> dict[Path, tuple[int, int, int]]:
    """Raw, gzip -9 and brotli q11 bytes of each file (brotli through Node's zlib)."""
    cache: dict[str, list[int]] = json.loads(SIZE_CACHE.read_text()) if SIZE_CACHE.is_file() else {}
    found: dict[Path, tuple[int, int, int]] = {}
    for path in sorted(paths):
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if digest not in cache:
            brotli = subprocess.run(
                [
                    "node",
                    "-e",
                    "const z=require('zlib');const d=require('fs').readFileSync(process.argv[1]);"
                    "process.stdout.write(String(z.brotliCompressSync(d,{params:{"
                    "[z.constants.BROTLI_PARAM_QUALITY]:11,[z.constants.BROTLI_PARAM_SIZE_HINT]:d.length}}).length))",
                    str(path),
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            cache[digest] = [len(data), len(gzip.compress(data, compresslevel=9, mtime=0)), int(brotli)]
        raw, gz, br = cache[digest]
        found[path] = (raw, gz, br)
    SIZE_CACHE.parent.mkdir(exist_ok=True)
    SIZE_CACHE.write_text(json.dumps(cache, indent=0, sort_keys=True) + "\n")
    return found


def local_file(url: str, roots: dict[str, Path]) -> Path | None:
    for base, root in roots.items():
        if url.startswith(base):
            return root / unquote(urlsplit(url).path[len(urlsplit(base).path) :])
    return None


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def table(runs: list[Run], roots: dict[str, Path]) -> str:
    """Medians and ratios, one column per page and mode."""
    columns = [("ours", "http"), ("stock", "http"), ("ours", "file"), ("stock", "file")]
    by = {key: [run for run in runs if (run.page, run.mode) == key] for key in columns}
    rows: list[tuple[str, list[str], str, str]] = []

    def median_of(key: Key, pick: Callable[[Run], float | None]) -> float | None:
        values = [value for run in by[key] if (value := pick(run)) is not None]
        return statistics.median(values) if values else None

    def cell(key: Key, value: float | None, unit: str) -> str:
        if value is None and unit == "ms":
            failures = {run.failure for run in by[key] if run.failure}
            return "never: " + "; ".join(sorted(failures))[:60] if failures else "—"
        if value is None:
            return "—"
        return f"{value:,.0f} {unit}" if unit == "ms" else f"{value / 1e6:.2f} MB"

    def ratio(a: float | None, b: float | None) -> str:
        return f"{a / b:.2f}×" if a is not None and b else "—"

    def add(name: str, unit: str, pick: Callable[[Key], float | None]) -> None:
        values = [pick(key) for key in columns]
        rows.append(
            (
                name,
                [cell(key, value, unit) for key, value in zip(columns, values, strict=True)],
                ratio(values[0], values[1]),
                ratio(values[2], values[3]),
            )
        )

    add("labs live (median)", "ms", lambda key: median_of(key, lambda run: run.live_ms))
    add("first contentful paint (median)", "ms", lambda key: median_of(key, lambda run: run.fcp_ms))
    for kind, label in (("slider", "slider key"), ("keystroke", "request keystroke"), ("step", "Step click")):
        for measure_name in ("latency", "work"):
            if kind != "keystroke" and measure_name == "work":
                continue
            for fraction, tag in ((0.5, "p50"), (0.95, "p95")):

                def pick(key: Key, kind: str = kind, what: str = measure_name, q: float = fraction) -> float | None:
                    values = [sample[what] for run in by[key] for sample in run.interactions.get(kind, [])]
                    return percentile(values, q) if values else None

                suffix = "" if measure_name == "latency" else " (after the lab's debounce)"
                add(f"{label}{suffix} {tag}", "ms", pick)
    loaded: dict[Key, set[Path]] = {}
    for key in columns:
        first = next((run for run in by[key] if run.requests), None)
        if first is not None:
            urls = first.requests
            loaded[key] = {path for url in urls if (path := local_file(url, roots)) is not None and path.is_file()}
    measured = compressed_sizes(set().union(*loaded.values()))
    for index, kind in enumerate(("raw", "gzip", "brotli")):

        def total(key: Key, index: int = index) -> float | None:
            return float(sum(measured[path][index] for path in loaded[key])) if key in loaded else None

        add(f"bytes loaded, {kind}", "MB", total)
    header = ["", "ours http", "stock http", "ours file://", "stock file://", "http ours/stock", "file ours/stock"]
    lines = [header] + [[name, *cells, r1, r2] for name, cells, r1, r2 in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = ["| " + " | ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)) + " |" for line in lines]
    out.insert(1, "| " + " | ".join("-" * width for width in widths) + " |")
    counts = ", ".join(f"{page} {mode}: {len(by[(page, mode)])}" for page, mode in columns)
    return "\n".join(out) + f"\n\nruns per column: {counts}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="cold runs per page and mode (default 7)")
    parser.add_argument("--samples", type=int, default=10, help="timed interactions of each kind per run")
    parser.add_argument("--quick", action="store_true", help="one run each and 2 interactions: a smoke test")
    parser.add_argument("--site", type=Path, help="an already built site/ (default: build one)")
    parser.add_argument("--work", type=Path, help="folder for the builds (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write every run's measurements here")
    args = parser.parse_args(argv)
    runs, samples = (1, 2) if args.quick else (args.runs, args.samples)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kvpage-bench-") as tmp:
        work = args.work or Path(tmp)
        ours = args.site.resolve() if args.site else build_ours(work / "ours")
        stock = build_stock(ours, work)
        results: list[Run] = []
        with serve(ours) as ours_url, serve(stock) as stock_url, sync_playwright() as playwright:
            launch: dict[str, Any] = {"args": LAUNCH_ARGS}
            if CHROMIUM.exists():
                launch["executable_path"] = str(CHROMIUM)
            browser = playwright.chromium.launch(**launch)
            urls = {
                ("ours", "http"): ours_url + "cache.html",
                ("stock", "http"): stock_url + "cache.html",
                ("ours", "file"): (ours / "cache.html").as_uri(),
                ("stock", "file"): (stock / "cache.html").as_uri(),
            }
            for index in range(runs):
                pages = ["ours", "stock"] if index % 2 == 0 else ["stock", "ours"]
                for mode in ("http", "file"):
                    for page_name in pages:
                        run = measure(browser, urls[(page_name, mode)], page_name, mode, samples)
                        results.append(run)
                        shown = f"{run.live_ms:,.0f} ms" if run.live_ms is not None else f"never ({run.failure})"
                        print(f"run {index + 1}/{runs} {page_name:5} {mode:4}: labs live {shown}", file=sys.stderr)
            browser.close()
        roots = {ours_url: ours, stock_url: stock, ours.as_uri() + "/": ours, stock.as_uri() + "/": stock}
        print(table(results, roots))
        if args.json:
            args.json.write_text(json.dumps([run.__dict__ for run in results], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
