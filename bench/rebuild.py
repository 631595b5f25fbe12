#!/usr/bin/env python3
"""How long a rebuild takes after a prose edit: the numbers the README quotes.

Run from the project: ``python bench/rebuild.py``. It edits a copy of content/,
never content/ itself, and prints the median of a few runs of:

- ``build`` from scratch (``--no-cache``: Pyodide checked, wheel built, zip);
- ``build`` after a prose edit, in a new process (the runtime comes from
  .cache/runtime/; the zip is made again);
- serve's rebuild after a prose edit: what its warm worker runs (the pipeline up
  to the site, written to a folder; no zip).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import build  # noqa: E402  (the project's build.py)
from sitegen.progress import SILENT  # noqa: E402

RUNS = 5


def edit(chapter: Path, run: int) -> None:
    chapter.write_text(chapter.read_text(encoding="utf-8") + f"\nEdit number {run}.\n", encoding="utf-8")


def timed_command(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "build.py"), *args], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="kvpage-bench-") as tmp:
        folder = Path(tmp)
        content = Path(shutil.copytree(ROOT / "content", folder / "content"))
        chapter = content / "03-cache.md"
        where = ["--content", str(content), "--out", str(folder / "site"), "--dist", str(folder / "dist")]

        cold = [timed_command([*where, "--no-cache"]) for _ in range(2)]
        warm = []
        for run in range(RUNS):
            edit(chapter, run)
            warm.append(timed_command(where))

        options = build.Options(content=content, out=folder / "serve-site")
        build.rebuild_for_serve(options, SILENT)  # the worker's first build: imports, runtime from the cache
        serve = []
        for run in range(RUNS):
            edit(chapter, RUNS + run)
            report = build.rebuild_for_serve(options, SILENT)
            assert report.ok, report.errors
            serve.append(report.seconds)

    print(f"build from scratch (--no-cache):         {statistics.median(cold):.2f} s")
    print(f"build after a prose edit (new process):  {statistics.median(warm):.2f} s")
    print(f"serve's rebuild after a prose edit:      {statistics.median(serve):.2f} s")


if __name__ == "__main__":
    main()
