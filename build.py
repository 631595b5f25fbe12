#!/usr/bin/env python3
"""Build the kvpage site: ``python build.py`` writes ``site/`` and ``dist/kvpage-site.zip``.

The pipeline reads top to bottom as stages, each taking and returning a typed
value: source (chapters read) → runtime (Pyodide checked, wheel built) → pages
(Markdown rendered) → site (every file in memory) → files (written atomically).
Nothing touches ``site/`` or ``dist/`` until every stage has succeeded.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from sitegen.errors import BuildError
from sitegen.output import write_file, write_site, zip_bytes
from sitegen.pages import in_page_url, render_pages
from sitegen.runtime import load_runtime
from sitegen.site import Site, assemble_single_file, assemble_site, load_book
from sitegen.source import load_source
from sitegen.templates import make_templates

ROOT = Path(__file__).resolve().parent
ZIP_TOP = "kvpage-site"
SINGLE_FILE = "kvpage.html"


@dataclass(frozen=True)
class Options:
    """Where to read from and write to, and how strict to be."""

    root: Path = ROOT
    out: Path = ROOT / "site"
    dist: Path = ROOT / "dist"
    strict: bool = False
    single_file: bool = False


def build(options: Options) -> Site:
    """Run every stage; raise BuildError (and write nothing) if any fails."""
    root = options.root
    source = load_source(root, root / "content")
    book = load_book(root / "content" / "book.toml", "content/book.toml")
    templates = make_templates(root / "site_template")
    pages = render_pages(source, templates)
    if options.strict and pages.warnings:
        raise BuildError(pages.warnings)
    runtime = load_runtime(root)
    site = assemble_site(pages, runtime, book, templates, root / "site_template" / "static")
    archive = zip_bytes(site, ZIP_TOP)
    single = None
    if options.single_file:
        in_page = render_pages(source, templates, url_of=in_page_url)
        single = assemble_single_file(in_page, runtime, book, templates, root / "site_template" / "static")
    write_site(site, options.out)
    write_file(archive, options.dist / f"{ZIP_TOP}.zip")
    if single is not None:
        write_file(single, options.dist / SINGLE_FILE)
    for warning in pages.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return site


def parse_args(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="folder of the built site (default: site/)")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="folder of the zip (default: dist/)")
    parser.add_argument(
        "--strict", action="store_true", help="treat warnings (e.g. links to missing chapters) as errors"
    )
    parser.add_argument(
        "--single-file",
        action="store_true",
        help=f"also write dist/{SINGLE_FILE}: the whole book in one HTML file that opens anywhere",
    )
    args = parser.parse_args(argv)
    return Options(out=args.out.resolve(), dist=args.dist.resolve(), strict=args.strict, single_file=args.single_file)


def main(argv: list[str] | None = None) -> int:
    options = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    try:
        site = build(options)
    except BuildError as error:
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
