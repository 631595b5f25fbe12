"""The build as a pipeline: ``build()`` writes ``site/`` and ``dist/kvpage-site.zip``.

The stages read top to bottom, each taking and returning a typed value (:func:`render`), so that
content errors are collected across the book and reported together (decision 0061), and nothing is
written until every stage has succeeded. The command line that runs it: :mod:`sitegen.cli.commands`.
"""

from __future__ import annotations

import functools
import io
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sitegen.book.assets import load_assets
from sitegen.book.inside import links_out
from sitegen.book.source import BUILD_TIMEOUT, Book, build_timeout, load_book, load_source
from sitegen.cli.progress import SILENT, Progress
from sitegen.errors import BuildError, ContentError, sorted_unique, tallied
from sitegen.labs.declarations import declaration_errors
from sitegen.labs.discovery import enabled_labs, import_too_slow, model_failure
from sitegen.labs.model_imports import MODEL, model_links
from sitegen.labs.stage import lab_stage
from sitegen.markdown.pages import Pages, parse_chapters, render_pages
from sitegen.memo import NO_MEMO, Memo, folder_digest
from sitegen.runtime.bundle import Runtime
from sitegen.runtime.cache import cached_runtime, hot_runtime
from sitegen.search.index import SearchIndex, search_index
from sitegen.site.assemble import Download, Site, assemble_single_file, assemble_site, static_names
from sitegen.site.output import Output, publish, recover, write_zip
from sitegen.site.targets import Read, refusals
from sitegen.site.templates import Templates, make_templates

ROOT = Path(__file__).resolve().parent.parent
"""The project: its ``kvpage/``, ``content/``, ``site_template/`` and ``node_modules/``."""
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
    sweep: bool = True
    """Call every placed lab at each value its controls reach and each button (``sitegen.labs.stage.swept``):
    off (``--no-sweep``) for a quicker preview, which then checks only the starting values."""
    single_file: bool = False
    """Also write dist/kvpage.html: the whole book in one file."""
    publish_zip: bool = False
    """Also put the zip into the site and link it from the index page (GitHub Pages)."""
    cache: bool = True
    """Reuse the runtime stage from .cache/runtime/ when kvpage/, Pyodide and the build code are unchanged."""
    hot_base: str = ""
    """``serve`` after a model edit: the cache key of the runtime whose snapshot the new wheel may run
    on (``sitegen.runtime.cache.hot_runtime``), so only the wheel is built; "" builds as usual."""


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


def links_out_of_folders(options: Options) -> list[ContentError]:
    """Every symbolic link out of the templates' folder, the static files' or the model's, at its path.

    The book's own links are refused as its files are read (:mod:`sitegen.book.inside`); these folders'
    files are read by their names (Jinja, esbuild, hatchling, Python's import), so they are checked
    whole first: a link ``site_template/static/h.txt`` → ``/etc/hostname`` would ship, one in ``kvpage/``
    would go into the wheel and run in the build's own Python.
    """
    templates, static = options.templates, options.templates / "static"
    return [
        *links_out(templates, templates.name, lambda path: len(path.parts) == 1 or path.parts[0] != static.name),
        *links_out(static, f"{templates.name}/{static.name}"),
        *model_links(options.root),
    ]


def render(options: Options, progress: Progress = SILENT, memo: Memo = NO_MEMO) -> Rendered:
    """The stages up to the site in memory; raise BuildError if any fails. Writes nothing. serve's worker
    gives its ``memo``, which keeps each step's result for the next build by all that step read.

    The stages read top to bottom, each taking and returning a typed value: source (book, chapters
    and the book's other files read) → chapters (Markdown parsed, labs placed) → labs (every lab's
    starting view, through ``kvpage.bridge.handle``, the call the page's Python answers, and every
    action's warm-up call, each in a model process stopped after the book's ``build_timeout``) →
    pages (HTML rendered with those views, formulas typeset, links and images checked) → runtime
    (Pyodide checked, wheel built, a snapshot warmed with the book's enabled labs; only if a page
    has a lab, and reused from ``.cache/runtime/`` when its inputs are unchanged) → search (every
    section indexed by the pinned MiniSearch) → site (every file in memory); :func:`build` then
    writes the files (atomically). Each stage's code is the package named for it: source in
    :mod:`sitegen.book`, chapters and pages in :mod:`sitegen.markdown`, labs in :mod:`sitegen.labs`,
    runtime in :mod:`sitegen.runtime`, search in :mod:`sitegen.search`, site and files in
    :mod:`sitegen.site`. Content errors of the stages up to pages are collected across the whole
    book and reported together; nothing touches ``site/`` or ``dist/`` until every stage has
    succeeded. ``serve`` lives in :mod:`sitegen.serve.server`.
    """
    linked = links_out_of_folders(options)  # before anything in them is read, or the model imported
    if linked:
        raise BuildError(sorted_unique(linked))
    # Every stage below reads the labs: a model that does not import in time, or at all, stops here.
    broken = import_too_slow(build_timeout(options.content / "book.toml")) or model_failure()
    if broken is not None:
        raise BuildError([broken])
    book, book_errors = load_book(options.content / "book.toml", f"{options.content.name}/book.toml")
    source = load_source(options.content, memo)
    assets = load_assets(options.content)
    key = folder_digest(options.templates)  # serve's worker keeps Jinja's compiled templates
    templates = memo.get("templates", key, functools.partial(make_templates, options.templates, key))
    static = frozenset(static_names(templates.folder / "static"))
    experimental = book.experimental_labs if book else ()
    chapters = parse_chapters(source, experimental, book.planned_chapters if book else (), memo)
    timeout = book.build_timeout if book else BUILD_TIMEOUT[0]
    sweep = options.sweep and (book is None or book.sweep)
    labs = lab_stage(chapters.placements, enabled_labs(experimental), options.root, timeout, sweep, memo)
    pages = render_pages(chapters, labs, templates, static, assets, book.hide_python if book else (), memo)
    declared = declaration_errors(options.root, static, templates.folder.name)
    errors: list[ContentError] = [*book_errors, *source.errors, *assets.errors, *declared, *labs.errors]
    errors += pages.errors
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
    search = search_index(options.root, pages, memo)
    site = assemble_site(pages, runtime, search, book, templates, memo=memo)
    return Rendered(site, pages, runtime, search, book, templates, tuple(warnings))


def dist_files(options: Options) -> tuple[Path, Path]:
    """The zip and the single file a build may write (both, so that leftovers of either are removed)."""
    return options.dist / f"{ZIP_TOP}.zip", options.dist / SINGLE_FILE


def folders_read(options: Options) -> tuple[Read, ...]:
    """The folders the build reads, which it may never write into (:mod:`sitegen.site.targets`)."""
    return (
        Read(options.content, "the book"),
        Read(options.templates, "the templates"),
        Read(options.root / MODEL, "the model"),
    )


def build(options: Options, progress: Progress = SILENT) -> Site:
    """Run every stage; raise BuildError (and write nothing) if any fails.

    First of all, ``--out`` and ``--dist`` are checked (:func:`sitegen.site.targets.refusals`): a build
    refused there writes nothing, not even the finish of a killed build. Then a swap a killed build
    committed is finished and its leftovers removed (:func:`sitegen.site.output.recover`), even when
    this build then fails.
    """
    refused = refusals(options.out, options.dist, dist_files(options), folders_read(options), options.root)
    if refused:
        raise BuildError(refused)
    recover(options.out, dist_files(options))
    rendered = render(options, progress)
    site = rendered.site
    zip_name = f"{ZIP_TOP}.zip"
    # Read only over http (sitegen/runtime/bundle.py): from disk the page loads their scripts.
    fetched_only = set(rendered.runtime.fetched_only if rendered.runtime else ())
    zipped = Site({name: data for name, data in site.files.items() if name not in fetched_only})

    def write_archive(handle: IO[bytes]) -> None:
        with progress.step(f"zipping the site into {zip_name}"):
            write_zip(zipped, ZIP_TOP, handle)

    # An output this build does not make is removed in the same swap (an older build's single file)
    files: dict[Path, Output | None] = {options.dist / zip_name: write_archive, options.dist / SINGLE_FILE: None}
    if options.publish_zip:  # the zip is one of the site's files: made first, in memory
        archive = io.BytesIO()
        write_archive(archive)
        download = Download(zip_name, archive.getvalue())
        files[options.dist / zip_name] = download.data
        site = assemble_site(
            rendered.pages, rendered.runtime, rendered.search, rendered.book, rendered.templates, download
        )
    if options.single_file:
        with progress.step(f"assembling the single-file book {SINGLE_FILE}"):
            single = assemble_single_file(
                rendered.pages, rendered.runtime, rendered.search, rendered.book, rendered.templates
            )
        files[options.dist / SINGLE_FILE] = single.write  # a chapter at a time, into its staged file
    publish(site, options.out, files)
    for warning in tallied(rendered.warnings):
        print(f"warning: {warning}", file=sys.stderr)
    return site
