#!/usr/bin/env python3
"""Measure every speed and size figure the docs state, and write them into the docs.

    .venv/bin/python bench/figures.py                    # every measurement, full runs (long)
    .venv/bin/python bench/figures.py --quick            # fewer runs of each
    .venv/bin/python bench/figures.py --only labs        # one measurement; the others are kept
    .venv/bin/python bench/figures.py --with-make-test   # also time `make test` (many minutes)
    .venv/bin/python bench/figures.py --render           # measure nothing: re-render the blocks

Each measurement runs one of the bench commands (``bench/rebuild.py``, ``bench/serve_reload.py``,
``bench/book_size.py``, ``bench/run.py``, ``bench/phone.py``, ``bench/search.py``, ``make test``) as
a child process, the way a person would, and reads the JSON it writes. What they measured is stored in
``docs/figures.json`` together with the machine (CPU, cores, memory, OS, Chromium, Node, Python,
Pyodide), the date, the command lines and the load average before and after; then every
``<!-- figures:NAME:begin … -->`` block of README.md and docs/performance.md is rendered from that
file (``bench/figures_blocks.py``).

To add a measurement, add a :class:`Measurement` to ``MEASUREMENTS`` whose ``collect`` returns
JSON data (usually: run a command that writes JSON, with :func:`run_json`), and show it in a
block of ``figures_blocks.BLOCKS`` (see bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import figures_blocks as blocks

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
DATA = ROOT / "docs" / "figures.json"
PYTHON = sys.executable
CHROMIUM = "/usr/bin/chromium"


@dataclass(frozen=True)
class Context:
    """What every measurement gets: how many runs, a scratch folder, and an older commit to compare."""

    quick: bool
    work: Path
    before: str = ""
    """A commit (``--before REV``): the labs and Lighthouse measurements run its build alongside."""

    def runs(self, full: int, quick: int) -> int:
        return quick if self.quick else full

    def fresh_build(self) -> tuple[Path, Path]:
        """This checkout built afresh into the scratch folder (once per run of figures): site/ and dist/."""
        return build_into(ROOT, self.work / "site", self.work / "dist")

    def before_build(self) -> tuple[Path, Path] | None:
        """``--before``'s commit, exported and built once into the scratch folder, or None."""
        if not self.before:
            return None
        source = self.work / "before-source"
        if not source.is_dir():
            source.mkdir(parents=True)
            archive = subprocess.run(["git", "archive", self.before], cwd=ROOT, capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(source)], input=archive.stdout, check=True)
            (source / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
        return build_into(source, self.work / "before-site", self.work / "before-dist")


def build_into(project: Path, site: Path, dist: Path) -> tuple[Path, Path]:
    """``project``'s ``build.py --single-file`` into ``site`` and ``dist``, unless it is there already."""
    if not (site / "cache.html").is_file():
        build = [PYTHON, str(project / "build.py"), "--single-file", "--quiet", "--out", str(site), "--dist", str(dist)]
        subprocess.run(build, cwd=project, check=True, stdout=sys.stderr)  # its summary lines are not figures
    return site, dist


def commit_of(revision: str) -> str:
    """The full hash of ``revision``."""
    found = subprocess.run(["git", "rev-parse", revision], cwd=ROOT, capture_output=True, text=True, check=True)
    return found.stdout.strip()


def output_sizes(dist: Path) -> dict[str, int]:
    """Bytes of the zip and the single file a build wrote."""
    return {"zip": (dist / "kvpage-site.zip").stat().st_size, "single": (dist / "kvpage.html").stat().st_size}


@dataclass(frozen=True)
class Measurement:
    """A named measurement: ``collect`` returns (the command line it ran, JSON data)."""

    name: str
    collect: Callable[[Context], tuple[list[str], Any]]
    optional: bool = False
    """Only with ``--with-make-test`` (and the like): too long to run by default."""


def run_json(command: list[str], work: Path, name: str, check: bool = True) -> tuple[list[str], Any, str]:
    """Run ``command`` with ``--json FILE`` appended (the project's bench commands take it).

    Returns the command line it ran, the JSON it wrote, and what it printed. With ``check=False``
    a command that failed (some runs did) still counts if it wrote its JSON: its runs say what failed.
    """
    output = work / f"{name}.json"
    command = [*command, "--json", str(output)]
    print(f"figures: {name}: {shell(command, work)}", file=sys.stderr, flush=True)
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0 and (check or not output.is_file()):
        raise SystemExit(f"figures: {name}: {shell(command, work)} failed with status {done.returncode}")
    print(done.stdout, file=sys.stderr, flush=True)
    return command, json.loads(output.read_text(encoding="utf-8")), done.stdout


def shell(command: list[str], work: Path) -> str:
    """A command line as a person would type it in the project: its paths relative, the scratch folder $TMP."""
    shown = [".venv/bin/python" if part == PYTHON else part for part in command]
    shown = [part.replace(str(work), "$TMP").replace(str(ROOT) + "/", "") for part in shown]
    return " ".join(shown)


# ---- the measurements --------------------------------------------------------------------------------


def collect_build(context: Context) -> tuple[list[str], Any]:
    runs, cold = context.runs(5, 3), context.runs(3, 2)
    command = [PYTHON, str(HERE / "rebuild.py"), "--runs", str(runs), "--cold-runs", str(cold)]
    command, found, _ = run_json(command, context.work, "build")
    return command, found


def collect_book_size(context: Context) -> tuple[list[str], Any]:
    """bench/book_size.py: books of 1, 100 and 500 copies of the chapter, built and rebuilt by serve."""
    command = [PYTHON, str(HERE / "book_size.py"), "--runs", str(context.runs(3, 1))]
    command, found, _ = run_json(command, context.work, "book-size")
    return command, found


def collect_serve(context: Context) -> tuple[list[str], Any]:
    runs, model = context.runs(7, 3), context.runs(5, 3)
    command = [PYTHON, str(HERE / "serve_reload.py"), "--runs", str(runs), "--model-runs", str(model)]
    command, found, _ = run_json(command, context.work, "serve")
    return command, found


def page_bench(
    context: Context,
    name: str,
    runs: int,
    options: tuple[str, ...] = (),
    *,
    script: str = "",
    compare: bool = True,
    check: bool = True,
) -> tuple[list[str], Any, str, tuple[Path, Path] | None]:
    """The measurement ``name``: the page benchmark named ``script`` (or ``name``) in bench/, on a
    fresh build, with the options the three share (``bench/harness.py``): ``--site``, ``options``,
    ``--runs``, ``--also before=`` with ``--before``'s build when ``compare``, ``--work``. Returns
    :func:`run_json`'s command, JSON and output, and ``--before``'s build (None without one)."""
    script = script or name
    site, _ = context.fresh_build()
    command = [PYTHON, str(HERE / f"{script}.py"), "--site", str(site), *options, "--runs", str(runs)]
    before = context.before_build() if compare else None
    if before is not None:
        command += ["--also", f"before={before[0]}"]
    command += ["--work", str(context.work / script)]
    return (*run_json(command, context.work, name, check=check), before)


def collect_labs(context: Context) -> tuple[list[str], Any]:
    """bench/run.py in Chromium, on a fresh build: ours over http and file://, the single file, stock
    (and, with ``--before``, that commit's build over http and file://)."""
    _, dist = context.fresh_build()
    single = context.work / "single"
    single.mkdir(exist_ok=True)
    (single / "cache.html").write_bytes((dist / "kvpage.html").read_bytes())  # run.py opens DIR/cache.html
    runs, samples = context.runs(7, 3), context.runs(10, 5)
    options = ("--also", f"single={single}", "--samples", str(samples))
    command, found, printed, before = page_bench(context, "labs", runs, options, script="run")
    summary = labs_summary(printed, found, runs, samples)
    summary["failures"] = [failure.replace(str(context.work), "$TMP") for failure in summary["failures"]]
    summary["sizes"] = {"ours": output_sizes(dist)}
    if before is not None:
        summary["sizes"]["before"] = output_sizes(before[1])
        summary["before"] = commit_of(context.before)
    return command, summary


def collect_lighthouse(context: Context) -> tuple[list[str], Any]:
    """bench/lighthouse.py on a fresh build and stock Pyodide (and ``--before``'s build), mobile and desktop."""
    runs = context.runs(3, 1)
    command, found, _, before = page_bench(context, "lighthouse", runs, check=False)
    summary = lighthouse_summary(found, runs)
    if before is not None:
        summary["before"] = commit_of(context.before)
    return command, summary


def collect_phone(context: Context) -> tuple[list[str], Any]:
    """bench/phone.py on a fresh build and stock Pyodide: labs live at 4× CPU on Fast 4G and Slow 4G."""
    command, found, _, _ = page_bench(context, "phone", context.runs(3, 1), compare=False)
    return command, found


def collect_mainthread(context: Context) -> tuple[list[str], Any]:
    """bench/mainthread.py on a fresh build: the main thread at 4× CPU while Python starts, and a warm visit."""
    command, found, _, _ = page_bench(context, "mainthread", context.runs(5, 3), compare=False)
    return command, mainthread_summary(found)


MAINTHREAD_FIGURES = (
    "fcp_ms",
    "dcl_ms",
    "live_ms",
    "warm_live_ms",
    "longest_ms",
    "longest_starting_ms",
    "blocking_ms",
)


def mainthread_summary(traces: list[dict[str, Any]]) -> dict[str, Any]:
    """What the mainthread block shows, from ``bench/mainthread.py --json``: each figure over the runs,
    when the binaries were requested (first) and in (last), their priorities, and the runs that failed."""
    ran = [trace for trace in traces if not trace["failure"]]
    summary: dict[str, Any] = {
        key: [trace[key] for trace in ran if trace[key] is not None] for key in MAINTHREAD_FIGURES
    }
    summary["requested_ms"] = [min(b["start"] for b in trace["binaries"]) for trace in ran if trace["binaries"]]
    summary["arrived_ms"] = [max(b["end"] for b in trace["binaries"]) for trace in ran if trace["binaries"]]
    summary["priorities"] = sorted({priority for trace in ran for priority in trace["priorities"].values()})
    summary["runs"] = len(ran)
    summary["failures"] = [trace["failure"] for trace in traces if trace["failure"]]
    return summary


ITEMS = 4
"""What a failing audit points at, kept per page: the first few distinct items."""


def lighthouse_summary(runs: list[dict[str, Any]], count: int) -> dict[str, Any]:
    """What the Lighthouse block shows, from ``bench/lighthouse.py --json`` runs: per page and preset,
    each score and metric over the runs; per page, the audits that cost score and did not pass."""
    pages: dict[str, dict[str, Any]] = {}
    failing: dict[str, dict[str, dict[str, Any]]] = {}
    for run in runs:
        if run["failure"]:
            continue
        preset = pages.setdefault(run["page"], {}).setdefault(run["preset"], {"scores": {}, "metrics": {}})
        for category, score in run["scores"].items():
            preset["scores"].setdefault(category, []).append(score)
        for metric, value in run["metrics"].items():
            preset["metrics"].setdefault(metric, []).append(round(value, 3))
        for category, audits in run["failing"].items():
            for audit in audits:
                entry = failing.setdefault(run["page"], {}).setdefault(
                    f"{category}/{audit['id']}", {"title": audit["title"], "presets": [], "items": []}
                )
                if run["preset"] not in entry["presets"]:
                    entry["presets"].append(run["preset"])
                fresh = [item for item in audit["items"] if item not in entry["items"]]
                entry["items"] = (entry["items"] + fresh)[:ITEMS]
    return {
        "runs": count,
        "pages": pages,
        "failing": {page: dict(sorted(audits.items())) for page, audits in sorted(failing.items())},
        "requests": sum(run["requests"] for run in runs),
        "outside": sum(len(run["outside"]) for run in runs),
        "retried": sum(run.get("attempts", 1) - 1 for run in runs),
        "failures": sorted(
            {f"{run['page']} {run['preset']}: {run['failure'][:200]}" for run in runs if run["failure"]}
        ),
    }


def collect_labs_webkit(context: Context) -> tuple[list[str], Any]:
    """bench/webkit.py (Safari's engine, under Xvfb) on a fresh build: over http, file:// and the single file."""
    site, dist = context.work / "webkit-site", context.work / "webkit-dist"
    build = [PYTHON, str(ROOT / "build.py"), "--single-file", "--quiet", "--out", str(site), "--dist", str(dist)]
    subprocess.run(build, cwd=ROOT, check=True, stdout=sys.stderr)
    runs = context.runs(5, 3)
    webkit = ["xvfb-run", "-a", PYTHON, str(HERE / "webkit.py"), "--runs", str(runs)]
    ways = (
        ("ours-http", [str(site / "cache.html"), "--http", "--name", "ours"]),
        ("ours-file", [str(site / "cache.html"), "--name", "ours"]),
        ("single", [str(dist / "kvpage.html"), "--name", "single"]),
    )
    commands, found, printed = [], [], []
    for name, args in ways:
        command, measured, out = run_json([*webkit, *args], context.work, f"labs-webkit-{name}")
        commands.append(shell(command, context.work))
        found += measured
        printed.append(out)
    summary = labs_summary("\n".join(printed), found, runs, 0)
    return [" ; ".join(commands)], summary


def percentile(values: list[float], fraction: float) -> float:
    """The same nearest-rank percentile as bench/run.py's table."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def labs_summary(stdout: str, runs: list[dict[str, Any]], count: int, samples: int) -> dict[str, Any]:
    """What the labs block shows, from ``bench/run.py --json`` runs and the table it printed.

    Runs are grouped by ``page mode`` (``ours http``, ``single file``, …); a run with a ``browser``
    field (a WebKit command, say) names it, and its runs are grouped under that browser.
    """
    pages: dict[str, dict[str, Any]] = {}
    samples_of: dict[str, dict[str, list[float]]] = {}
    browsers = set()
    failures = set()
    for run in runs:
        key = f"{run['page']} {run['mode']}"
        browsers.add(str(run.get("browser", "Chromium")))
        page = pages.setdefault(key, {"live_ms": [], "fcp_ms": [], "interactions": {}})
        if run.get("live_ms") is not None:
            page["live_ms"].append(round(float(run["live_ms"]), 1))
        else:
            failures.add(f"{key}: {run.get('failure', '')}")
        if run.get("fcp_ms") is not None:
            page["fcp_ms"].append(round(float(run["fcp_ms"]), 1))
        for field in ("received_live", "received_all"):  # bytes over http (bench/run.py); none from disk
            if run.get(field) is not None:
                page.setdefault(field, []).append(int(run[field]))
        for kind, measured in (run.get("interactions") or {}).items():
            for sample in measured:
                for what, value in sample.items():
                    samples_of.setdefault(key, {}).setdefault(f"{kind} {what}", []).append(float(value))
    for key, kinds in samples_of.items():
        pages[key]["interactions"] = {
            kind: {"p50": round(percentile(values, 0.5), 2), "p95": round(percentile(values, 0.95), 2)}
            for kind, values in sorted(kinds.items())
        }
    return {
        "browser": ", ".join(sorted(browsers)),
        "runs": count,
        "samples": samples,
        "pages": dict(sorted(pages.items())),
        "failures": sorted(failures),
        "bytes": bytes_rows(stdout),
    }


def bytes_rows(stdout: str) -> dict[str, dict[str, str]]:
    """The ``bytes loaded, …`` rows of the Markdown table bench/run.py prints, by column header."""
    lines = [line for line in stdout.splitlines() if line.startswith("|")]
    if not lines:
        return {}
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[0].startswith("bytes"):
            rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=False))
    return rows


def collect_search(context: Context) -> tuple[list[str], Any]:
    """bench/search.py: the search script's bytes for this book and a generated 50-chapter one, and
    Chromium's time per keystroke on the generated one."""
    command = [PYTHON, str(HERE / "search.py"), "--runs", str(context.runs(5, 3))]
    command, found, _ = run_json(command, context.work, "search")
    return command, search_summary(found)


def search_summary(found: dict[str, Any]) -> dict[str, Any]:
    """What the search blocks show, from ``bench/search.py --json``: every time to 0.1 ms."""
    runs = found["runs"]
    keys = [float(value) for run in runs for value in run["keystroke_ms"]]
    return {
        "browser": found["browser"],
        "queries": found["queries"],
        "books": found["books"],
        "keystroke_ms": {
            "count": len(keys),
            "p50": round(percentile(keys, 0.5), 1),
            "p95": round(percentile(keys, 0.95), 1),
            "max": round(max(keys), 1),
        },
        **{
            name: [round(float(run[name]), 1) for run in runs]
            for name in ("first_results_ms", "load_ms", "index_in_browser_ms")
        },
    }


def collect_make_test(context: Context) -> tuple[list[str], Any]:
    """``make test`` twice over: in this checkout (installed, its caches warm), then on a fresh
    clone of HEAD, as CI runs it (a new virtualenv, ``npm ci``, the runtime built from nothing)."""
    command = ["make", "test"]
    warm, fresh, commit = [], [], head()
    for run in range(context.runs(1, 1)):
        print("figures: make-test: make test", file=sys.stderr, flush=True)
        warm.append(timed(command, ROOT))
        clone = context.work / f"clone-{run}"
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "checkout", "--quiet", commit], cwd=clone, check=True)
        print(f"figures: make-test: make test in a fresh clone ({clone})", file=sys.stderr, flush=True)
        fresh.append(timed(command, clone))
    return command, {"seconds": warm, "fresh_clone_seconds": fresh, "commit": commit}


def timed(command: list[str], where: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=where, check=True)
    return round(time.perf_counter() - started, 1)


def head() -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


MEASUREMENTS = {
    measurement.name: measurement
    for measurement in (
        Measurement("build", collect_build),
        Measurement("serve", collect_serve),
        Measurement("book-size", collect_book_size),
        Measurement("labs", collect_labs),
        Measurement("labs-webkit", collect_labs_webkit),
        Measurement("lighthouse", collect_lighthouse),
        Measurement("mainthread", collect_mainthread),
        Measurement("phone", collect_phone),
        Measurement("search", collect_search),
        Measurement("make-test", collect_make_test, optional=True),
    )
}


# ---- the machine ---------------------------------------------------------------------------------------


def output_of(command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return "not found"
    return done.stdout.strip() or "not found"


def machine() -> dict[str, Any]:
    """What the figures came from; every field a measurement block prints."""
    cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8") if Path("/proc/cpuinfo").exists() else ""
    cpu = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    meminfo = Path("/proc/meminfo").read_text(encoding="utf-8") if Path("/proc/meminfo").exists() else ""
    memory = re.search(r"^MemTotal:\s*(\d+) kB", meminfo, re.MULTILINE)
    release = Path("/etc/os-release").read_text(encoding="utf-8") if Path("/etc/os-release").exists() else ""
    pretty = re.search(r'^PRETTY_NAME="?([^"\n]+)"?$', release, re.MULTILINE)
    chromium = re.search(r"Chromium ([\d.]+)", output_of([CHROMIUM, "--version"]))
    pyodide = json.loads((ROOT / "node_modules" / "pyodide" / "package.json").read_text(encoding="utf-8"))
    return {
        "cpu": cpu.group(1).strip() if cpu else platform.processor() or "unknown CPU",
        "cores": os.cpu_count(),
        "memory_gib": round(int(memory.group(1)) / 2**20, 1) if memory else 0.0,
        "os": f"{pretty.group(1) if pretty else platform.system()}, Linux {platform.release()}",
        "chromium": chromium.group(1) if chromium else "not found",
        "node": output_of(["node", "--version"]),
        "python": platform.python_version(),
        "pyodide": pyodide["version"],
    }


def loadavg() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


# ---- the command ---------------------------------------------------------------------------------------


def measure(names: list[str], context: Context, command_line: str, figures: blocks.Figures) -> None:
    here = machine()
    for name in names:
        before = loadavg()
        command, found = MEASUREMENTS[name].collect(context)
        figures["measurements"][name] = {
            "run": {
                "command": command_line,
                "step": shell(command, context.work),
                "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "load_before": before,
                "load_after": loadavg(),
                "machine": here,
            },
            "data": found,
        }
        DATA.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer runs of each measurement")
    parser.add_argument(
        "--only",
        action="append",
        choices=sorted({*MEASUREMENTS, *blocks.BLOCKS}),
        help="measure only this, or what this block shows (repeatable); keep the other figures",
    )
    parser.add_argument("--with-make-test", action="store_true", help="also time `make test` (many minutes)")
    parser.add_argument("--render", action="store_true", help="measure nothing; re-render the blocks from the data")
    parser.add_argument(
        "--before", metavar="REV", default="", help="also build this commit and measure it alongside (labs, lighthouse)"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    figures: blocks.Figures = json.loads(DATA.read_text(encoding="utf-8")) if DATA.exists() else {}
    figures.setdefault("measurements", {})
    if not args.render:
        wanted = [
            name
            for only in args.only or []
            for name in (blocks.BLOCKS[only].measurements if only in blocks.BLOCKS else [only])
        ]
        names = list(dict.fromkeys(wanted)) or [
            name for name, measurement in MEASUREMENTS.items() if not measurement.optional or args.with_make_test
        ]
        if "make-test" in names and not args.with_make_test:
            parser.error("make-test runs only with --with-make-test (it takes many minutes)")
        shown = ["bench/figures.py", *(sys.argv[1:] if argv is None else argv)]
        command_line = ".venv/bin/python " + " ".join(shown)
        with tempfile.TemporaryDirectory(prefix="kvpage-figures-") as tmp:
            measure(names, Context(quick=args.quick, work=Path(tmp), before=args.before), command_line, figures)
    for path in blocks.fill_documents(ROOT, figures):
        print(f"figures: rewrote the blocks of {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
