#!/usr/bin/env python3
"""Lighthouse on the chapter and on a stock Pyodide page, side by side, mobile and desktop.

    .venv/bin/python bench/lighthouse.py                  # builds the site; 3 runs of each page and preset
    .venv/bin/python bench/lighthouse.py --site site --runs 5
    .venv/bin/python bench/lighthouse.py --quick          # one run of each: a smoke test of the harness
    .venv/bin/python bench/lighthouse.py --site site --also before=OLD/site   # and an older build

Lighthouse 12.2.3 (the npm devDependency, pinned in package-lock.json) runs under Node with
Debian's Chromium, headless, against ``bench/serving.py`` on 127.0.0.1 at a free port (text
gzipped as GitHub Pages sends it): the mobile preset (Lighthouse's default: a mid-range phone,
4× CPU slowdown, simulated slow 4G) and the desktop preset, each run a fresh Chromium with cold
caches, the pages in turn (rotating which goes first). The stock page is ``bench/run.py``'s: the
same chapter with Pyodide as shipped (``build_stock``).

Nothing leaves the machine: Chromium resolves no host name but 127.0.0.1 (``--host-resolver-rules``)
and has its background networking off, Lighthouse's error reporting is off and it checks for no
update, and every request of every run (Lighthouse's own list) is checked to be on the local
server; one that is not fails the run.

It prints, per preset, the four category scores and six metrics (first contentful paint, largest
contentful paint, total blocking time, cumulative layout shift, speed index, total bytes) as
min–max with the median, and every audit that costs score (weight > 0) and did not pass
(Lighthouse's threshold, 0.9) with what it points at, so the deductions that are Pyodide's own
(the same on the stock page) can be told from ours. ``--json FILE`` writes every run's figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from harness import add_also, add_options, also_sites, workspace  # noqa: E402
from run import CHROMIUM, build_stock  # noqa: E402
from serving import serve  # noqa: E402

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "cli" / "index.js"
PRESETS = ("mobile", "desktop")
CATEGORIES = {"performance": "performance", "accessibility": "accessibility", "best-practices": "best practices"}
CATEGORIES["seo"] = "SEO"
METRICS = {
    "first-contentful-paint": "first contentful paint",
    "largest-contentful-paint": "largest contentful paint",
    "total-blocking-time": "total blocking time",
    "cumulative-layout-shift": "cumulative layout shift",
    "speed-index": "speed index",
    "total-byte-weight": "total bytes",
}
CHROME_FLAGS = [
    "--headless=new",
    "--no-sandbox",  # as root, as the tests and bench/run.py run it
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_S = 300
SKIPPED = ("uses-text-compression",)
"""Audits left out. "Enable text compression" weighs nothing in any score (an opportunity), and to
estimate it Lighthouse reads every uncompressed response back through DevTools: stock Pyodide's
9.6 MB wasm, which under the mobile preset's CPU slowdown times that protocol call out and fails
the whole run. The bytes themselves are in "total bytes"."""
PASS = 0.9
"""The score from which Lighthouse's report counts an audit as passed (its green)."""


@dataclass
class Run:
    """One Lighthouse run of one page with one preset."""

    page: str
    preset: str
    scores: dict[str, float] = field(default_factory=dict)
    """Category → score, 0–100."""
    metrics: dict[str, float] = field(default_factory=dict)
    """Audit id → its numeric value (ms; CLS unitless; bytes)."""
    failing: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Category → its weighted audits that did not pass (score < ``PASS``): ``{"id", "title", "score", "items"}``."""
    requests: int = 0
    outside: list[str] = field(default_factory=list)
    """Requests that were not to the local server: must be none."""
    failure: str = ""
    attempts: int = 1


def item_text(item: dict[str, Any]) -> str:
    """One row of an audit's details, short: what it says and where (a URL, a source location)."""
    parts = []
    for key in ("value", "description", "text", "label"):
        value = item.get(key)
        if isinstance(value, str) and value:
            parts.append(value)
        elif isinstance(value, dict) and isinstance(value.get("value"), str):
            parts.append(value["value"])
    source = item.get("source")
    where = source.get("url") if isinstance(source, dict) else item.get("url") or item.get("scriptUrl")
    if isinstance(where, str) and where:
        parts.append(f"at {where.split('/', 3)[-1] if where.startswith('http') else where}")
    text = " ".join(parts) or json.dumps(item, sort_keys=True)[:160]
    return text if len(text) <= 240 else text[:237] + "..."


def summarise(report: dict[str, Any], page: str, preset: str, base: str) -> Run:
    """The figures of one Lighthouse report (its JSON, as ``--output=json`` writes it)."""
    run = Run(page=page, preset=preset)
    if report.get("runtimeError"):
        run.failure = f"{report['runtimeError'].get('code')}: {report['runtimeError'].get('message')}"
    audits = report["audits"]
    for category in CATEGORIES:
        found = report["categories"].get(category, {})
        if found.get("score") is not None:
            run.scores[category] = round(100 * found["score"])
        for ref in found.get("auditRefs", []):
            audit = audits.get(ref["id"], {})
            if ref.get("weight", 0) > 0 and audit.get("score") is not None and audit["score"] < PASS:
                items = [item_text(item) for item in (audit.get("details") or {}).get("items", [])]
                failing = {"id": ref["id"], "title": audit.get("title", ""), "score": audit["score"], "items": items}
                run.failing.setdefault(category, []).append(failing)
    for metric in METRICS:
        value = audits.get(metric, {}).get("numericValue")
        if isinstance(value, int | float):
            run.metrics[metric] = float(value)
    requests = (audits.get("network-requests", {}).get("details") or {}).get("items", [])
    run.requests = len(requests)
    run.outside = [
        item["url"] for item in requests if not str(item.get("url", "")).startswith((base, "data:", "blob:"))
    ]
    if run.outside and not run.failure:
        run.failure = f"requests outside the local server: {run.outside[:3]}"
    return run


def lighthouse(url: str, preset: str, out: Path) -> dict[str, Any]:
    """One Lighthouse run of ``url``: its report."""
    command = ["node", str(LIGHTHOUSE), url, "--output=json", f"--output-path={out}", "--quiet"]
    command += ["--no-enable-error-reporting", f"--chrome-flags={' '.join(CHROME_FLAGS)}"]
    command.append(f"--skip-audits={','.join(SKIPPED)}")
    if CHROMIUM.exists():
        command.append(f"--chrome-path={CHROMIUM}")
    if preset == "desktop":
        command.append("--preset=desktop")
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    if done.returncode != 0 or not out.is_file():
        raise RuntimeError(f"lighthouse failed ({done.returncode}): {done.stderr.strip()[-800:]}")
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


ATTEMPTS = 2
"""A Lighthouse run that ends in an error (its DevTools connection timing out on a large response,
mostly under the mobile preset's CPU slowdown) is tried once more; the count is printed."""


def measure(base: str, name: str, preset: str, out: Path) -> Run:
    """Lighthouse on ``base``'s chapter: its figures, or the failure of its last attempt."""
    run = Run(page=name, preset=preset)
    for attempt in range(1, ATTEMPTS + 1):
        try:
            run = summarise(lighthouse(base + "cache.html", preset, out), name, preset, base)
        except (RuntimeError, subprocess.TimeoutExpired, KeyError, json.JSONDecodeError) as error:
            run = Run(page=name, preset=preset, failure=f"{type(error).__name__}: {error}")
        run.attempts = attempt
        if not run.failure or run.outside:
            break
    return run


def span(values: list[float], show: Callable[[float], str]) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return show(values[0])
    return f"{show(min(values))}–{show(max(values))} (median {show(statistics.median(values))})"


def metric_text(metric: str) -> Callable[[float], str]:
    if metric == "cumulative-layout-shift":
        return lambda value: f"{value:.3f}"
    if metric == "total-byte-weight":
        return lambda value: f"{value / 1e6:.2f} MB"
    return lambda value: f"{value:,.0f} ms"


def table(runs: list[Run], pages: list[str], preset: str) -> str:
    """Scores and metrics of every page for ``preset``, one column per page."""

    def of(page: str) -> list[Run]:
        return [run for run in runs if run.page == page and run.preset == preset and not run.failure]

    rows = [[preset, *pages]]
    for category, label in CATEGORIES.items():
        values = [span([run.scores[category] for run in of(page) if category in run.scores], str) for page in pages]
        rows.append([label, *values])
    for metric, label in METRICS.items():
        show = metric_text(metric)
        rows.append(
            [label, *(span([run.metrics[metric] for run in of(page) if metric in run.metrics], show) for page in pages)]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    cells = [[cell.ljust(width) for cell, width in zip(row, widths, strict=True)] for row in rows]
    lines = ["| " + " | ".join(row) + " |" for row in cells]
    lines.insert(1, "| " + " | ".join("-" * width for width in widths) + " |")
    return "\n".join(lines)


def failing_audits(runs: list[Run], page: str) -> dict[str, dict[str, Any]]:
    """Every failing weighted audit of ``page`` over all runs: ``category/id`` → title, presets, items."""
    found: dict[str, dict[str, Any]] = {}
    for run in runs:
        if run.page != page:
            continue
        for category, audits in run.failing.items():
            for audit in audits:
                entry = found.setdefault(
                    f"{category}/{audit['id']}", {"title": audit["title"], "presets": [], "items": []}
                )
                if run.preset not in entry["presets"]:
                    entry["presets"].append(run.preset)
                entry["items"] += [item for item in audit["items"] if item not in entry["items"]]
    return dict(sorted(found.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    add_options(
        parser,
        3,
        runs_help="runs of each page and preset",
        quick_help="one run of each: a smoke test of the harness",
        work_help="the builds and reports",
    )
    parser.add_argument("--no-stock", action="store_true", help="skip the stock Pyodide page")
    add_also(parser, "another built site to run alongside")
    args = parser.parse_args(argv)
    runs_each = 1 if args.quick else args.runs
    with workspace(args, "kvpage-lighthouse-") as (work, ours):
        sites = {"ours": ours} if args.no_stock else {"ours": ours, "stock": build_stock(ours, work)}
        sites |= also_sites(args.also)
        pages = list(sites)
        runs: list[Run] = []
        with contextlib.ExitStack() as stack:
            bases = {name: stack.enter_context(serve(folder)) for name, folder in sites.items()}
            for index in range(runs_each):
                for preset in PRESETS:
                    for name in pages[index % len(pages) :] + pages[: index % len(pages)]:
                        run = measure(bases[name], name, preset, work / f"{name}-{preset}-{index + 1}.json")
                        runs.append(run)
                        shown = run.failure or ", ".join(f"{CATEGORIES[k]} {v:.0f}" for k, v in run.scores.items())
                        print(f"run {index + 1}/{runs_each} {preset:7} {name:5}: {shown}", file=sys.stderr)
        for preset in PRESETS:
            print(table(runs, pages, preset))
            print()
        for page in pages:
            print(f"Failing audits that cost score, {page} (over all runs; category/audit: title [presets]):")
            for key, audit in failing_audits(runs, page).items():
                print(f"- {key}: {audit['title']} [{', '.join(audit['presets'])}]")
                for item in audit["items"][:4]:
                    print(f"    {item}")
            print()
        checked, outside = sum(run.requests for run in runs), sum(len(run.outside) for run in runs)
        retried = sum(run.attempts - 1 for run in runs)
        print(f"runs of each page and preset: {runs_each} ({retried} tried again after a Lighthouse error)")
        print(f"requests checked: {checked}, outside the local server: {outside}")
        failed = [run for run in runs if run.failure]
        for run in failed:
            print(f"failed: {run.page} {run.preset}: {run.failure}")
        if args.json:
            args.json.write_text(json.dumps([asdict(run) for run in runs], indent=1) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
