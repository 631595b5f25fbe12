#!/usr/bin/env python3
"""Build the kvpage site: ``python build.py`` writes ``site/`` and ``dist/kvpage-site.zip``.

The pipeline reads top to bottom as stages, each taking and returning a typed
value: source (book and chapters read) → pages (Markdown rendered, links
checked) → runtime (Pyodide checked, wheel built; only if a page has a lab) →
site (every file in memory) → files (written atomically). Content errors of the
first two stages are collected across the whole book and reported together;
nothing touches ``site/`` or ``dist/`` until every stage has succeeded.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from sitegen.errors import BuildError, ContentError, sorted_unique
from sitegen.output import publish, zip_bytes
from sitegen.pages import render_pages
from sitegen.runtime import load_runtime
from sitegen.site import Site, assemble_single_file, assemble_site, static_names
from sitegen.source import load_book, load_source
from sitegen.templates import make_templates

ROOT = Path(__file__).resolve().parent
ZIP_TOP = "kvpage-site"
SINGLE_FILE = "kvpage.html"


@dataclass(frozen=True)
class Options:
    """Where to read from and write to, and how strict to be."""

    root: Path = ROOT
    """The project: the kvpage package and node_modules/ (the in-browser runtime)."""
    content: Path = ROOT / "content"
    """The book: book.toml and the chapters; messages name files relative to its parent."""
    templates: Path = ROOT / "site_template"
    out: Path = ROOT / "site"
    dist: Path = ROOT / "dist"
    strict: bool = False
    single_file: bool = False
    """Also write dist/kvpage.html: the whole book in one file."""


def build(options: Options) -> Site:
    """Run every stage; raise BuildError (and write nothing) if any fails."""
    book, book_errors = load_book(options.content / "book.toml", f"{options.content.name}/book.toml")
    source = load_source(options.content)
    templates = make_templates(options.templates)
    pages = render_pages(source, templates, frozenset(static_names(templates.folder / "static")))
    errors: list[ContentError] = [*book_errors, *source.errors, *pages.errors]
    warnings = pages.warnings
    if options.strict:
        errors, warnings = [*errors, *warnings], ()
    if errors or book is None:
        raise BuildError(sorted_unique(errors), warnings)
    runtime = load_runtime(options.root) if pages.has_labs else None
    site = assemble_site(pages, runtime, book, templates)
    files = {options.dist / f"{ZIP_TOP}.zip": zip_bytes(site, ZIP_TOP)}
    if options.single_file:
        files[options.dist / SINGLE_FILE] = assemble_single_file(pages, runtime, book, templates)
    publish(site, options.out, files)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return site


def parse_args(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="folder of the built site (default: site/)")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="folder of the zip (default: dist/)")
    parser.add_argument(
        "--content",
        type=Path,
        default=ROOT / "content",
        help="folder of the book to build (default: content/; e.g. a broken book under tests/invalid/)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="treat warnings (e.g. links to missing chapters) as errors"
    )
    parser.add_argument(
        "--single-file",
        action="store_true",
        help=f"also write dist/{SINGLE_FILE}: the whole book in one HTML file that opens anywhere",
    )
    args = parser.parse_args(argv)
    return Options(
        content=args.content.resolve(),
        out=args.out.resolve(),
        dist=args.dist.resolve(),
        strict=args.strict,
        single_file=args.single_file,
    )


def main(argv: list[str] | None = None) -> int:
    options = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    try:
        site = build(options)
    except BuildError as error:
        for warning in error.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        for problem in error.errors:
            print(f"error: {problem}", file=sys.stderr)
        print(f"build failed: {len(error.errors)} error(s); nothing was written", file=sys.stderr)
        return 1
    size = sum(len(data) for data in site.files.values())
    elapsed = time.perf_counter() - started
    print(f"built {len(site.files)} files ({size / 1e6:.1f} MB) in {options.out} in {elapsed:.1f} s")
    outputs = [options.dist / f"{ZIP_TOP}.zip"] + ([options.dist / SINGLE_FILE] if options.single_file else [])
    for written in outputs:
        print(f"wrote {written} ({written.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
