#!/usr/bin/env python3
"""Build the kvpage site: ``python build.py`` writes ``site/`` and ``dist/kvpage-site.zip``.

The pipeline reads top to bottom as stages, each taking and returning a typed
value: source (book, chapters and the book's other files read) → chapters
(Markdown parsed, labs placed) → labs (every lab's starting view, through
``kvpage.bridge.handle``, the call the page's Python answers, and every action's
warm-up call, each in a model process stopped after the book's ``build_timeout``) → pages (HTML
rendered with those views, formulas typeset, links and images checked) →
runtime (Pyodide checked, wheel built, a snapshot warmed with the book's
enabled labs; only if a page has a lab, and reused from ``.cache/runtime/``
when its inputs are unchanged) → search (every section indexed by the pinned
MiniSearch) → site (every file in memory) → files (written atomically).
Content errors of the stages up to pages are collected across the whole book
and reported together; nothing touches ``site/`` or ``dist/`` until every
stage has succeeded.

The command line (``build``, ``serve``; see ``python build.py --help``) is
parsed in :mod:`sitegen.cli`; ``serve`` lives in :mod:`sitegen.serve`.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sitegen.model_errors import exit_if_model_failed

ROOT = Path(__file__).resolve().parent

try:  # the build imports kvpage (kvpage/lab.py, say): a model file that does not import is said at its line
    from sitegen import serve as serving
    from sitegen.assets import load_assets
    from sitegen.cli import WORKER, parse
    from sitegen.errors import BuildError, ContentError, sorted_unique
    from sitegen.labs import declaration_errors, enabled_labs, lab_stage, model_failure
    from sitegen.output import publish, zip_bytes
    from sitegen.pages import Pages, parse_chapters, render_pages
    from sitegen.progress import SILENT, Progress
    from sitegen.runtime import Runtime
    from sitegen.runtime_cache import cached_runtime, hot_runtime, runtime_key
    from sitegen.search_index import SearchIndex, search_index
    from sitegen.site import Download, Site, assemble_single_file, assemble_site, static_names
    from sitegen.source import BUILD_TIMEOUT, Book, load_book, load_source
    from sitegen.templates import Templates, make_templates
except Exception as failed:  # noqa: BLE001 - only a model failure is caught; anything else is raised again
    exit_if_model_failed(failed, ROOT)

PRELOAD = (
    "numpy",
    "pyodide_lock.spec",
    "pyodide_lock.utils",
    "hatchling.builders.wheel",
    "jinja2",
    "markupsafe",
    "markdown_it",
    "mdit_py_plugins.anchors",
    "mdit_py_plugins.container",
    "mdit_py_plugins.deflist",
    "mdit_py_plugins.dollarmath",
    "mdit_py_plugins.footnote",
    "mdit_py_plugins.front_matter",
    "mdit_py_plugins.gfm_autolink",
    "mdit_py_plugins.tasklists",
    "pygments.formatters",
    "pygments.lexers",
    "yaml",
)
"""The third-party modules the build imports: serve's standby builder imports them ahead of time."""
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
    publish_zip: bool = False
    """Also put the zip into the site and link it from the index page (GitHub Pages)."""
    cache: bool = True
    """Reuse the runtime stage from .cache/runtime/ when kvpage/, Pyodide and the build code are unchanged."""
    hot_base: str = ""
    """``serve`` after a model edit: the cache key of the runtime whose snapshot the new wheel may run
    on (``sitegen.runtime_cache.hot_runtime``), so only the wheel is built; "" builds as usual."""


@dataclass(frozen=True)
class Rendered:
    """The site in memory, and what made it (the zip and the single file are made from these)."""

    site: Site
    pages: Pages
    runtime: Runtime | None
    search: SearchIndex
    book: Book
    templates: Templates
    warnings: tuple[ContentError, ...]


def render(options: Options, progress: Progress = SILENT) -> Rendered:
    """The stages up to the site in memory; raise BuildError if any fails. Writes nothing."""
    broken = model_failure()  # every stage below reads the labs: a model that does not import stops here
    if broken is not None:
        raise BuildError([broken])
    book, book_errors = load_book(options.content / "book.toml", f"{options.content.name}/book.toml")
    source = load_source(options.content)
    assets = load_assets(options.content)
    templates = make_templates(options.templates)
    static = frozenset(static_names(templates.folder / "static"))
    chapters = parse_chapters(source, book.experimental_labs if book else ())
    experimental = book.experimental_labs if book else ()
    timeout = book.build_timeout if book else BUILD_TIMEOUT[0]
    labs = lab_stage(chapters.placements, enabled_labs(experimental), options.root, timeout)
    pages = render_pages(chapters, labs, templates, static, assets)
    declared = declaration_errors(options.root, static, templates.folder.name)
    errors: list[ContentError] = [
        *book_errors,
        *source.errors,
        *assets.errors,
        *declared,
        *labs.errors,
        *pages.errors,
    ]
    warnings = pages.warnings
    if options.strict:
        errors, warnings = [*errors, *warnings], ()
    if errors or book is None:
        raise BuildError(sorted_unique(errors), warnings)
    enabled = enabled_labs(book.experimental_labs)  # the snapshot holds these labs, and only these
    runtime = None
    if pages.has_labs and options.hot_base:
        runtime = hot_runtime(options.root, options.hot_base, enabled, progress)
    if pages.has_labs and runtime is None:
        runtime = cached_runtime(options.root, enabled, progress, use_cache=options.cache)
    search = search_index(options.root, pages)
    site = assemble_site(pages, runtime, search, book, templates)
    return Rendered(site, pages, runtime, search, book, templates, tuple(warnings))


def build(options: Options, progress: Progress = SILENT) -> Site:
    """Run every stage; raise BuildError (and write nothing) if any fails."""
    rendered = render(options, progress)
    site = rendered.site
    zip_name = f"{ZIP_TOP}.zip"
    with progress.step(f"zipping the site into {zip_name}"):
        # Read only over http (sitegen/runtime.py): from disk the page loads their scripts.
        fetched_only = set(rendered.runtime.fetched_only if rendered.runtime else ())
        archive = zip_bytes(
            Site({name: data for name, data in site.files.items() if name not in fetched_only}), ZIP_TOP
        )
    files = {options.dist / zip_name: archive}
    if options.publish_zip:
        download = Download(zip_name, archive)
        site = assemble_site(
            rendered.pages, rendered.runtime, rendered.search, rendered.book, rendered.templates, download
        )
    if options.single_file:
        with progress.step(f"assembling the single-file book {SINGLE_FILE}"):
            files[options.dist / SINGLE_FILE] = assemble_single_file(
                rendered.pages, rendered.runtime, rendered.search, rendered.book, rendered.templates
            )
    publish(site, options.out, files)
    for warning in rendered.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return site


def options_from(args: argparse.Namespace) -> Options:
    """The Options a parsed command line asks for (paths made absolute)."""
    out = getattr(args, "out", None)
    dist = getattr(args, "dist", None)
    return Options(
        content=args.content.resolve(),
        out=out.resolve() if out is not None else ROOT / "site",
        dist=dist.resolve() if dist is not None else ROOT / "dist",
        strict=args.strict,
        single_file=getattr(args, "single_file", False),
        publish_zip=getattr(args, "publish_zip", False),
        cache=args.cache,
    )


def run_build(options: Options, progress: Progress) -> int:
    """``build``: the whole pipeline, its errors printed as ``path:line: message``."""
    started = time.perf_counter()
    try:
        site = build(options, progress)
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


def rebuild_for_serve(options: Options, progress: Progress, hot_base: str = "") -> serving.Report:
    """One build of ``serve``'s worker: the site into ``options.out``, no zip, no single file.

    ``hot_base`` is serve's word that only the model changed since the build whose runtime had that
    key: the runtime stage then builds only the wheel. The report names the runtime whose snapshot
    the site holds, for serve's next such word.
    """
    started = time.perf_counter()
    options = replace(options, hot_base=hot_base)
    try:
        rendered = render(options, progress)
        publish(rendered.site, options.out, {})
    except BuildError as error:
        return serving.Report(
            ok=False, errors=[str(problem) for problem in error.errors], warnings=[str(w) for w in error.warnings]
        )
    seconds = time.perf_counter() - started
    runtime = rendered.runtime
    if runtime is None:
        snapshot = ""
    else:
        snapshot = runtime.snapshot_key or runtime_key(options.root, enabled_labs(rendered.book.experimental_labs))
    return serving.Report(
        ok=True, seconds=seconds, warnings=[str(warning) for warning in rendered.warnings], runtime=snapshot
    )


def serve_config(options: Options, port: int) -> serving.Config:
    """What ``serve`` watches and how it starts its worker (``build.py worker``, this file)."""
    flags = ["--content", str(options.content)]
    flags += ["--strict"] if options.strict else []
    flags += [] if options.cache else ["--no-cache"]
    return serving.Config(
        port=port,
        worker=[sys.executable, str(Path(__file__).resolve()), WORKER, *flags],
        book=[options.content, options.templates],
        model=options.root / "kvpage",
        preload=PRELOAD,
        code=[
            options.root / "kvpage",
            options.root / "sitegen",
            Path(__file__).resolve(),
            options.root / "pyproject.toml",
        ],
        root=options.root,
    )


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv, ROOT, prog)
    options = options_from(args)
    if args.command == "serve":
        return serving.serve(serve_config(options, args.port))
    if args.command == WORKER:
        return serving.run_worker(lambda hot_base: rebuild_for_serve(options, Progress(sys.stderr), hot_base))
    return run_build(options, SILENT if args.quiet else Progress(sys.stderr))


if __name__ == "__main__":
    sys.exit(main())
