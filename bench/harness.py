"""What the page benchmarks share: their common options, and the folder and site they work on.

``bench/run.py``, ``lighthouse.py`` and ``mainthread.py`` each take ``--runs``, ``--quick``, ``--site``,
``--work`` and ``--json`` in the same sense (``bench/figures.py`` calls them all with these), and
each works in ``--work`` or a temporary folder, on ``--site`` or a fresh build of the book. One
module says so once, so that the three cannot drift apart in what an option means.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def add_options(parser: argparse.ArgumentParser, runs: int, *, runs_help: str, quick_help: str, work_help: str) -> None:
    """``--runs`` (default ``runs``), ``--quick``, ``--site``, ``--work`` and ``--json`` on ``parser``."""
    parser.add_argument("--runs", type=int, default=runs, help=f"{runs_help} (default {runs})")
    parser.add_argument("--quick", action="store_true", help=quick_help)
    parser.add_argument("--site", type=Path, help="an already built site/ (default: build one)")
    parser.add_argument("--work", type=Path, help=f"folder for {work_help} (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")


def add_also(parser: argparse.ArgumentParser, what: str) -> None:
    """``--also NAME=SITE``, repeatable: another built site, ``what`` (its help)."""
    parser.add_argument("--also", action="append", default=[], metavar="NAME=SITE", help=what)


def also_sites(values: list[str]) -> dict[str, Path]:
    """The sites of ``--also NAME=SITE``, by name."""
    return {name: Path(folder).resolve() for name, _, folder in (value.partition("=") for value in values)}


def build_ours(out: Path) -> Path:
    """The book built by the real pipeline into ``out`` (with its single file): its site."""
    from sitegen import pipeline

    options = pipeline.Options(out=out / "site", dist=out / "dist", single_file=True)
    pipeline.build(options)
    return options.out


@contextlib.contextmanager
def workspace(args: argparse.Namespace, prefix: str) -> Iterator[tuple[Path, Path]]:
    """(work, site): ``--work`` (made if need be) or a temporary folder, removed afterwards; and
    ``--site``, or the book built afresh into ``work/ours``."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        yield work, args.site.resolve() if args.site else build_ours(work / "ours")
