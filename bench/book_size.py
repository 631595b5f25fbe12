#!/usr/bin/env python3
"""How the build grows with the book: books of 1, 100 and 500 copies of the cache chapter.

Run from the project: ``python bench/book_size.py [--chapters 1 100 500] [--runs 3] [--json FILE]``.
Each book is content/'s chapter copied N times (each copy its own number, title and slug, both labs
in each), in a temporary folder; content/ itself is never touched. For each book it times:

- ``build.py --single-file`` in a new process, the runtime from .cache/runtime/ (one build first
  fills it): wall seconds, CPU seconds (user + system, the build's children too) and peak memory
  (the largest resident set of the build and its children), from ``wait4``;
- serve's rebuild after a prose edit in the book's last chapter: what its warm worker runs
  (``sitegen.cli.commands.rebuild_for_serve``, the site written to a folder, no zip), its CPU seconds
  with those of the Node it keeps for the search index.

CPU seconds move less with the machine's load than wall seconds do; both are written.
``--json FILE`` writes every sample, which ``bench/figures.py`` reads.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import resource
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
from sitegen.search import index as search_index  # noqa: E402

CHAPTER = ROOT / "content" / "03-cache.md"
FIELD = re.compile(r"^(number|title|slug): .*$", re.MULTILINE)


def make_book(folder: Path, chapters: int) -> Path:
    """content/'s book.toml and ``chapters`` copies of its chapter, the n-th numbered n, slug ``cache-n``."""
    book = folder / f"book-{chapters}"
    book.mkdir(parents=True)
    shutil.copy(ROOT / "content" / "book.toml", book / "book.toml")
    text = CHAPTER.read_text(encoding="utf-8")
    for n in range(1, chapters + 1):
        fields = {"number": str(n), "title": f"Cache {n}", "slug": f"cache-{n}"}
        copy = FIELD.sub(functools.partial(field_line, fields), text, count=3)
        (book / f"{n:03d}-cache.md").write_text(copy, encoding="utf-8")
    return book


def field_line(fields: dict[str, str], match: re.Match[str]) -> str:
    """A front matter line with the copy's own value."""
    return f"{match.group(1)}: {fields[match.group(1)]}"


def timed_build(book: Path, out: Path) -> dict[str, float]:
    """One ``build.py --single-file`` of ``book``: wall and CPU seconds, peak resident megabytes."""
    command = [sys.executable, str(ROOT / "build.py"), "--single-file", "--quiet", "--content", str(book)]
    command += ["--out", str(out / "site"), "--dist", str(out / "dist")]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench: the build of {book.name} failed:\n{stderr}")
    return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024}


def cpu_seconds() -> float:
    """User and system seconds of this process, of its children that have ended (the model's process),
    and of serve's Node for the search index, which lives on between rebuilds (``search_index.KEPT``)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + kept_node_seconds()


def kept_node_seconds() -> float:
    """User and system seconds of serve's kept Node so far, from /proc (0 if there is none yet)."""
    process = search_index.KEPT.process
    if process is None or process.poll() is not None:
        return 0.0
    fields = Path(f"/proc/{process.pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15


def serve_rebuilds(book: Path, out: Path, runs: int) -> list[dict[str, float]]:
    """serve's rebuild after each of ``runs`` prose edits of the book's last chapter, in this process:
    wall and CPU seconds."""
    options = pipeline.Options(content=book, out=out / "serve-site")
    first = commands.rebuild_for_serve(options, SILENT)  # the worker's first build
    if not first.ok:
        raise SystemExit(f"bench: serve's first build of {book.name} failed: {first.errors}")
    last = sorted(book.glob("*.md"))[-1]
    found = []
    for run in range(runs):
        last.write_text(last.read_text(encoding="utf-8") + f"\nEdit number {run}.\n", encoding="utf-8")
        started, cpu = time.perf_counter(), cpu_seconds()
        report = commands.rebuild_for_serve(options, SILENT)
        found.append({"seconds": time.perf_counter() - started, "cpu": cpu_seconds() - cpu})
        if not report.ok:
            raise SystemExit(f"bench: serve's rebuild of {book.name} failed: {report.errors}")
    return found


def measure(sizes: list[int], runs: int) -> dict[str, Any]:
    books = []
    with tempfile.TemporaryDirectory(prefix="kvpage-bench-") as tmp:
        folder = Path(tmp)
        for chapters in sizes:
            book = make_book(folder, chapters)
            out = folder / f"out-{chapters}"
            timed_build(book, out)  # fills .cache/runtime/ for this code, if it was not
            builds = [timed_build(book, out) for _ in range(runs)]
            books.append({"chapters": chapters, "builds": builds, "serve": serve_rebuilds(book, out, runs)})
    return {"books": books}


def slope(books: list[dict[str, Any]], field: str) -> float | None:
    """Seconds (or MB) per chapter between the two largest books, by their medians."""
    if len(books) < 2:
        return None
    small, large = books[-2], books[-1]
    low: float = statistics.median(run[field] for run in small["builds"])
    high: float = statistics.median(run[field] for run in large["builds"])
    chapters: int = large["chapters"] - small["chapters"]
    return (high - low) / chapters


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--chapters", type=int, nargs="+", default=[1, 100, 500], help="book sizes (1 100 500)")
    parser.add_argument("--runs", type=int, default=3, help="builds and serve rebuilds of each book (3)")
    parser.add_argument("--json", type=Path, help="also write every sample here")
    args = parser.parse_args(argv)
    found = measure(sorted(args.chapters), args.runs)
    for book in found["books"]:
        builds = book["builds"]
        wall = statistics.median(run["seconds"] for run in builds)
        cpu = statistics.median(run["cpu"] for run in builds)
        peak = max(run["peak_mb"] for run in builds)
        serve = statistics.median(run["seconds"] for run in book["serve"])
        serve_cpu = statistics.median(run["cpu"] for run in book["serve"])
        print(
            f"{book['chapters']:4} chapters: build {wall:.2f} s ({cpu:.2f} CPU-s), peak {peak:.0f} MB; "
            f"serve's rebuild after a prose edit {serve:.2f} s ({serve_cpu:.2f} CPU-s)"
        )
    for field, unit, scale in (("cpu", "CPU-ms", 1000), ("seconds", "ms", 1000), ("peak_mb", "MB", 1)):
        per = slope(found["books"], field)
        if per is not None:
            print(f"slope between the two largest books: {per * scale:.2f} {unit} per chapter")
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
