#!/usr/bin/env python3
"""How long a build takes after a prose edit, and from scratch: the figures the README quotes.

Run from the project: ``python bench/rebuild.py [--runs 5] [--cold-runs 2] [--json FILE]``.
It edits a copy of content/, never content/ itself, builds into a temporary folder, and
prints the range and median of:

- ``build.py --single-file --no-cache`` (Pyodide checked, wheel built, snapshot made, zip,
  single file), in a new process;
- ``build.py --single-file`` after a prose edit, in a new process (the runtime comes from
  .cache/runtime/; the zip and the single file are made again);
- the steps of those builds that the build itself times (its progress lines on stderr, to
  0.1 s): the runtime, the zip, the single file;
- serve's rebuild after a prose edit: what its warm worker runs (the pipeline up to the
  site, written to a folder; no zip);
- the sizes of what the build wrote: the zip, the single file, the site folder.

``--json FILE`` writes every sample (seconds, bytes), which ``bench/figures.py`` reads.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sitegen import pipeline  # noqa: E402
from sitegen.cli import commands  # noqa: E402
from sitegen.cli.progress import SILENT  # noqa: E402

STEPS = {
    "runtime": re.compile(r"building the in-browser runtime[^\n…]*… (\d+\.\d) s"),
    "zip": re.compile(r"zipping the site into [^\n…]*… (\d+\.\d) s"),
    "single": re.compile(r"assembling the single-file book [^\n…]*… (\d+\.\d) s"),
}
"""The build's own progress lines (sitegen.cli.progress), one per long step."""


def edit(chapter: Path, run: int) -> None:
    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\nEdit number {run}.\n", encoding="utf-8")


def steps_of(stderr: str) -> dict[str, float]:
    """The step times a build printed, by step name (only the steps it ran)."""
    return {name: float(match.group(1)) for name, pattern in STEPS.items() if (match := pattern.search(stderr))}


def timed_build(args: list[str]) -> dict[str, Any]:
    """One ``build.py`` in a new process: its wall time, and the steps it timed itself."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), *args], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: build.py {' '.join(args)} failed:\n{done.stderr}")
    return {"seconds": seconds, "steps": steps_of(done.stderr)}


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def measure(runs: int, cold_runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kvpage-bench-") as tmp:
        folder = Path(tmp)
        content = Path(shutil.copytree(ROOT / "content", folder / "content"))
        chapter = content / "03-cache.md"
        dist = folder / "dist"
        where = ["--content", str(content), "--out", str(folder / "site"), "--dist", str(dist), "--single-file"]

        cold = [timed_build([*where, "--no-cache"]) for _ in range(cold_runs)]
        warm = []
        for run in range(runs):
            edit(chapter, run)
            warm.append(timed_build(where))
        sizes = {
            "zip": (dist / f"{pipeline.ZIP_TOP}.zip").stat().st_size,
            "single": (dist / pipeline.SINGLE_FILE).stat().st_size,
            "site": folder_bytes(folder / "site"),
        }

        options = pipeline.Options(content=content, out=folder / "serve-site")
        commands.rebuild_for_serve(options, SILENT)  # the worker's first build: imports, runtime from the cache
        serve = []
        for run in range(runs):
            edit(chapter, runs + run)
            report = commands.rebuild_for_serve(options, SILENT)
            if not report.ok:
                raise SystemExit(f"bench: serve's rebuild failed: {report.errors}")
            serve.append(report.seconds)
    return {"cold": cold, "warm": warm, "serve": serve, "sizes": sizes}


def summary(values: list[float]) -> str:
    return f"{min(values):.2f}–{max(values):.2f} s (median {statistics.median(values):.2f} s, {len(values)} runs)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="builds after a prose edit, and serve rebuilds (5)")
    parser.add_argument("--cold-runs", type=int, default=2, help="builds with --no-cache (2)")
    parser.add_argument("--json", type=Path, help="also write every sample here")
    args = parser.parse_args(argv)
    found = measure(args.runs, args.cold_runs)
    print(f"build --single-file --no-cache:               {summary([run['seconds'] for run in found['cold']])}")
    print(f"build --single-file after a prose edit:       {summary([run['seconds'] for run in found['warm']])}")
    for step in STEPS:
        values = [run["steps"][step] for run in found["cold"] + found["warm"] if step in run["steps"]]
        if values:
            print(f"  step {step + ':':8}                              {summary(values)}")
    print(f"serve's rebuild after a prose edit:           {summary(found['serve'])}")
    sizes = found["sizes"]
    megabytes = {name: f"{value / 1e6:.1f} MB" for name, value in sizes.items()}
    print(f"zip {megabytes['zip']}, single file {megabytes['single']}, site {megabytes['site']}")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
