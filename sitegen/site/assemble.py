"""Stage "site": every site file as bytes in memory, keyed by its path, and the single file as pieces.

Nothing is written here: every check has passed before the first byte reaches disk, so a failure
leaves the previous build untouched; the single file's chapters are rewritten as it is written
(decision 0063).
"""

from __future__ import annotations

import codecs
import dataclasses
import functools
import io
import json
import posixpath
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from kvpage.lab import Lab
from kvpage.schema import LabSchema
from sitegen.book.assets import Asset
from sitegen.book.inside import everything, list_files
from sitegen.book.source import Book
from sitegen.errors import BuildError, ContentError
from sitegen.labs.declarations import lab_script
from sitegen.markdown.ids import (
    Attributes,
    Known,
    Rewrite,
    id_prefixer,
    ids_around,
    in_turn,
    prefix_toc,
    referring_tags,
    rewrite_tags,
    rewritten_ids,
    single_file_clashes,
)
from sitegen.markdown.pages import INDEX, Page, Pages
from sitegen.memo import NO_MEMO, Memo
from sitegen.runtime.bundle import Loader, Runtime
from sitegen.search.index import SCRIPT as SEARCH_INDEX
from sitegen.search.index import SearchIndex
from sitegen.site.csp import policy
from sitegen.site.page_script import CONFIG_ID, READER_ID, SCRIPT, STAGE_DIR, bundled_scripts, reader_path
from sitegen.site.templates import TemplateFailed, Templates

SEARCH_SCRIPT = "static/search.js"
"""The search box's script, on every page; it loads the index (sitegen/search/index.py) when first used."""


def page_scripts(labs: Iterable[str], static: Collection[str]) -> tuple[str, ...]:
    """The scripts of a page showing ``labs``, in the order they run: the page's own (the labs' wiring,
    the drawing and Python's worker, bundled by sitegen/site/page_script.py), then each lab's that has one."""
    own = [lab_script(name) for name in sorted(set(labs)) if lab_script(name) in static]
    return (SCRIPT, *own)


@dataclass(frozen=True)
class PageConfig:
    """What a page with labs tells its script, once, as JSON: the labs it shows and how to start their Python.

    Its keys are these fields' names, and ``static/kvpage/`` reads exactly these
    (``tests/sitegen/site/test_page_contract.py`` holds the two together).
    """

    labs: dict[str, LabSchema]
    """Each lab's schema (``kvpage.lab.Lab.schema``) by name: the one description of its controls,
    buttons and outputs that the templates printed the lab from."""
    call_timeout: float
    """Seconds a lab's call may take before the page stops its Python and resets the lab (book.toml)."""
    inline: bool
    """The single-file book: every binary's script is in the page already, after the page's own."""
    python: Loader
    reader: str
    """The editor's script (``static/reader.HASH.js``), which the page loads the first time a reader
    presses Edit; in the single file its text is in the page instead (``sitegen.site.page_script.READER_ID``)."""

    def to_json(self) -> str:
        """The config as JSON, safe to embed inside a <script> element."""
        data: dict[str, Any] = dataclasses.asdict(self)
        return json.dumps(data, sort_keys=True).replace("<", "\\u003c")


def page_config(labs: Iterable[Lab], book: Book, runtime: Runtime, reader: str, inline: bool = False) -> str:
    """The JSON config of a page that shows ``labs``, whose editor's script is ``reader``."""
    schemas = {lab.name: lab.schema() for lab in sorted(labs, key=lambda lab: lab.name)}
    return PageConfig(schemas, book.call_timeout, inline, runtime.loader, reader).to_json()


def chapter_config(labs: tuple[Lab, ...], book: Book, runtime: Runtime | None, reader: str) -> str:
    """The JSON config of a chapter of the site that shows ``labs``, ``""`` if it shows none. Given the
    labs, not the page: serve keeps one config for every page with the same labs (:func:`assemble_site`)."""
    return page_config(labs, book, runtime, reader) if runtime and labs else ""


@dataclass(frozen=True)
class Site:
    """Every file of the site: relative path → content."""

    files: dict[str, bytes]


@dataclass(frozen=True)
class Download:
    """The zip of the site, published beside it and linked from the index page (``--publish-zip``).

    The copy of the index inside the zip has no such link: whoever reads it
    already holds the zip, and the zip cannot contain itself.
    """

    href: str
    data: bytes

    @property
    def size(self) -> str:
        return f"{len(self.data) / 1e6:.1f} MB"


def static_names(folder: Path) -> dict[str, Path]:
    """The template's static files (none if ``folder`` does not exist) by their ``static/...`` path.

    The modules of the page's script (``static/kvpage/``) are one file in the site, ``static/kvpage.js``,
    named here by their folder (the editor's script, bundled from them too, is named after its content,
    known once bundled: :func:`static_files`).
    """
    if not folder.is_dir():
        return {}
    listed = list_files(folder, everything).files  # links out: none read (the pipeline says where they are)
    names = {f"static/{relative}": path for relative, path in listed.items()}
    stages = folder.parent / STAGE_DIR
    if stages.is_dir():
        names = {name: path for name, path in names.items() if not name.startswith(f"{STAGE_DIR}/")}
        names[SCRIPT] = stages
    return dict(sorted(names.items()))


def static_files(folder: Path) -> dict[str, bytes]:
    """The template's static files, as ``static/...`` paths, with the page's scripts bundled from its modules."""
    files: dict[str, bytes] = {}
    for name, path in static_names(folder).items():
        files |= bundled_scripts(path).files() if name == SCRIPT and path.is_dir() else {name: path.read_bytes()}
    return files


def assemble_site(
    pages: Pages,
    runtime: Runtime | None,
    search: SearchIndex,
    book: Book,
    templates: Templates,
    download: Download | None = None,
    memo: Memo = NO_MEMO,
) -> Site:
    """Render the index and every chapter through the templates, add static, search and runtime files.

    With ``download``, the zip is one of the site's files and the index links it. serve's ``memo``
    keeps each page's bytes by all its template is given (:func:`page_html`).

    ``runtime`` is needed (and only given) when some page has a lab. Every
    template failure is collected; one failing in many pages is reported once,
    naming the pages.
    """
    ordered = pages.pages
    csp = policy()
    static = static_names(templates.folder / "static")
    templates_key = templates.key
    static_code = memo.get("static files", templates_key, functools.partial(static_files, templates.folder / "static"))
    made: dict[str, bytes | ContentError] = {}

    def render(url: str, name: str, **context: object) -> None:
        key = (name, templates_key, tuple(context.items()))
        made[url] = memo.get(("html", url), key, functools.partial(page_html, templates, name, context))

    render(INDEX, "index.html", book=book, pages=ordered, csp=csp, download=download)
    for index, page in enumerate(ordered):
        previous: Page | None = ordered[index - 1] if index > 0 else None
        following: Page | None = ordered[index + 1] if index + 1 < len(ordered) else None
        labs, reader = tuple(use.kind for use in page.labs), reader_path(static_code)
        config_key = (labs, book, runtime.loader if runtime else None, reader)  # all chapter_config reads
        config = memo.get(
            ("config", *(lab.name for lab in labs)),
            config_key,
            functools.partial(chapter_config, labs, book, runtime, reader),
        )
        scripts = page_scripts((use.kind.name for use in page.labs), static)
        context = {"book": book, "page": page, "previous": previous, "next": following, "config_id": CONFIG_ID}
        render(page.url, "chapter.html", **context, page_config=config, page_scripts=scripts, csp=csp)
    files = rendered_pages(made)
    files |= static_code
    files |= {path: css.encode("utf-8") for path, css in pages.stylesheets.items()}
    files |= {path: asset.data for path, asset in pages.assets.items()}
    files[SEARCH_INDEX] = search.script()
    if runtime is not None:
        files |= runtime.files
    if download is not None:
        files[download.href] = download.data
    return Site(files=dict(sorted(files.items())))


def rendered_pages(made: Mapping[str, bytes | ContentError]) -> dict[str, bytes]:
    """The pages rendered; or, if a template failed, a BuildError with each failure once, naming its pages."""
    failures: dict[ContentError, list[str]] = {}
    for url, html in made.items():
        if isinstance(html, ContentError):
            failures.setdefault(html, []).append(url)
    if failures:
        raise BuildError(
            sorted(
                ContentError(error.path, error.line, f"{error.message} (rendering {', '.join(urls)})")
                for error, urls in failures.items()
            )
        )
    return {url: html for url, html in made.items() if isinstance(html, bytes)}


def page_html(templates: Templates, name: str, context: Mapping[str, object]) -> bytes | ContentError:
    """One page of the site through its template, or where and why the template failed."""
    try:
        return templates.render(name, search_index=SEARCH_INDEX, **context).encode("utf-8")
    except TemplateFailed as failed:
        return failed.error


ENDS_SCRIPT = re.compile(rb"</script|<!--", re.IGNORECASE)
"""What would end an inline ``<script>`` early (or start its escaped state): ``str.lower``'s check on the text,
made on its bytes (no other character lowers to these ASCII letters)."""


def inline_script(code: bytes, name: str) -> bytes:
    """``code``, UTF-8, as the text of an inline <script>; refuse what would end the element early.

    Checked on the bytes, a megabyte at a time: a runtime's script is tens of them, and as text a copy
    (issue 49)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for at in range(0, len(code), 1 << 20):
            decoder.decode(code[at : at + (1 << 20)])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        raise BuildError(
            [f"{name}: is not UTF-8 ({error.reason}) and cannot be inlined in the single-file page"]
        ) from None
    if ENDS_SCRIPT.search(code):
        raise BuildError([f"{name}: contains '</script' or '<!--' and cannot be inlined in the single-file page"])
    return code


def asset_inliner(assets: Mapping[str, Asset]) -> Rewrite:
    """The rewrite that makes every image and link to a file of the book a ``data:`` URI, for the
    single file; a link gets ``download`` with the file's name (browsers open no ``data:`` page)."""

    def rewrite(tag: str, attrs: Attributes) -> Attributes | None:
        name = {"img": "src", "a": "href", "area": "href"}.get(tag)
        value = next((value for key, value in attrs if key == name), None) if name else None
        parts = urlsplit(value or "")
        if value is None or parts.scheme or parts.netloc or not parts.path:
            return None
        asset = assets.get(posixpath.normpath(unquote(parts.path)))
        if asset is None:
            return None
        changed = [(key, asset.data_uri() if key == name else value) for key, value in attrs]
        if tag != "img" and not any(key == "download" for key, _ in attrs):
            changed.append(("download", posixpath.basename(asset.path)))
        return changed

    return rewrite


MARK = "\x00kvpage-piece-{}\x00"
"""What the single file's template is given in place of the n-th large piece (a chapter's body, an
inline script): a NUL never reaches the template's output otherwise (the book's text, its scripts
and styles cannot hold one)."""
MARKS = re.compile("\x00kvpage-piece-([0-9]+)\x00")

Piece = int | bytes
"""A large piece of the single file: a chapter (its index), or an inline script's text as UTF-8."""


@dataclass(frozen=True)
class SingleFile:
    """The single-file book in pieces, never held whole: the template's text around the large pieces
    (``around``, one more than ``pieces``), the inline scripts as the bytes the site holds anyway, and
    the chapters, each rewritten (ids prefixed, the book's files inline) only while it is written.
    A book of 500 chapters is 120 MB of HTML, which as one string took 600 MB more (issue 49)."""

    around: tuple[str, ...]
    pieces: tuple[Piece, ...]
    pages: tuple[Page, ...]
    slugs: Mapping[str, str]
    """Each chapter's page (``cache.html``) → its slug."""
    assets: Mapping[str, Asset]

    def chapter(self, index: int) -> str:
        """The ``index``-th chapter's body as the single file holds it: one walk of the tags its page kept."""
        page = self.pages[index]
        tags = referring_tags(page.body) if page.tags is None else page.tags
        rewrite = in_turn(id_prefixer(self.slugs[page.url], self.slugs), asset_inliner(self.assets))
        return rewrite_tags(page.body, tags, rewrite)[0]

    def text(self, piece: Piece) -> str:
        return piece.decode("utf-8") if isinstance(piece, bytes) else self.chapter(piece)

    def known(self, piece: Piece) -> Known:
        """What :func:`sitegen.markdown.ids.ids_around` needs of ``piece``: what makes its text, and its ids,
        a chapter's from its tags alone (inlining a file changes no id), a script's none."""
        if isinstance(piece, bytes):
            return functools.partial(self.text, piece), []
        page = self.pages[piece]
        tags = referring_tags(page.body) if page.tags is None else page.tags
        return functools.partial(self.chapter, piece), rewritten_ids(
            tags, id_prefixer(self.slugs[page.url], self.slugs)
        )

    def write(self, handle: IO[bytes]) -> None:
        """The file's bytes into ``handle``, a piece at a time."""
        for index, text in enumerate(self.around):
            handle.write(text.encode("utf-8"))
            if index < len(self.pieces):
                piece = self.pieces[index]
                handle.write(piece if isinstance(piece, bytes) else self.chapter(piece).encode("utf-8"))

    def data(self) -> bytes:
        """The whole file's bytes at once (tests; a build writes it with :meth:`write`)."""
        buffer = io.BytesIO()
        self.write(buffer)
        return buffer.getvalue()


def inline_scripts(
    pages: Pages, runtime: Runtime | None, search: SearchIndex, book: Book, templates: Templates
) -> tuple[list[tuple[str, bytes]], tuple[str, bytes] | None, str]:
    """The single file's inline scripts in the order they run (name, code), the editor's (or None),
    and the page's config ("" if no lab)."""
    static = templates.folder / "static"
    scripts = [
        (SEARCH_INDEX, search.script(single_file=True)),
        (SEARCH_SCRIPT, (templates.folder / SEARCH_SCRIPT).read_bytes()),
    ]
    uses = [use for page in pages.pages for use in page.labs]
    if runtime is None or not uses:
        return scripts, None, ""
    # The page's own scripts first, then the binaries in the order the worker needs them: the
    # loader takes each as soon as its script has run, while the browser still reads the rest.
    static_code = static_files(static)
    scripts += [(src, static_code[src]) for src in page_scripts((use.kind.name for use in uses), static_code)]
    scripts += [(path, runtime.files[path]) for path in runtime.scripts]
    path = reader_path(static_code)
    config = page_config({use.kind.name: use.kind for use in uses}.values(), book, runtime, path, inline=True)
    return scripts, ((path, static_code[path]) if path else None), config


def assemble_single_file(
    pages: Pages, runtime: Runtime | None, search: SearchIndex, book: Book, templates: Templates
) -> SingleFile:
    """One HTML file holding the whole book: styles, runtime and scripts inline, nothing to fetch.

    Each chapter is an ``<article id=SLUG>`` whose ids are prefixed with its slug
    (sitegen.markdown.ids), so chapters never share an id; links between chapters become
    in-page links, and each chapter keeps its table of contents. The runtime's
    scripts are inline, the binaries' after the page's own (the loader waits for
    each), so it loads nothing; the editor's script is a data block the page runs on
    the first Edit (``sitegen/site/page_script.py``); the CSP allows exactly these inline
    scripts and styles by hash. Search comes first, its index inline too, so the box works while the
    runtime still loads.

    The template is given a mark (:data:`MARK`) for each chapter's body and each script, which the
    written file replaces (:class:`SingleFile`); the clash check reads the text around them. Every
    error is raised here, before anything is written.
    """
    css = "\n".join(
        [(templates.folder / "static" / "kvpage.css").read_text(encoding="utf-8"), *pages.stylesheets.values()]
    )
    scripts, reader, config = inline_scripts(pages, runtime, search, book, templates)
    code = [*scripts, *([reader] if reader else [])]
    # Checked and hashed one at a time, so no script is held as text for longer.
    csp = policy(inline_scripts=(inline_script(data, name) for name, data in code), inline_styles=[css])
    slugs = {page.url: page.source.meta.slug for page in pages.pages}
    chapters = len(pages.pages)
    marked = [
        replace(page, body=MARK.format(index), toc=prefix_toc(page.toc, slugs[page.url]), tags=None)
        for index, page in enumerate(pages.pages)
    ]
    try:
        html = templates.render(
            "single.html",
            book=book,
            pages=marked,
            css=css,
            scripts=[MARK.format(chapters + index) for index in range(len(scripts))],
            config_id=CONFIG_ID,
            page_config=config,
            reader_id=READER_ID,
            reader_script=MARK.format(len(code) + chapters - 1) if reader else "",
            search_index="",
            csp=csp,
        )
    except TemplateFailed as failed:
        raise BuildError([failed.error]) from None
    everything: list[Piece] = [*range(chapters), *(data for _, data in code)]
    around, order = split_at_marks(html, len(everything), templates)
    single = SingleFile(around, tuple(everything[n] for n in order), tuple(pages.pages), slugs, pages.assets)
    ids = ids_around(single.around, [single.known(piece) for piece in single.pieces])
    clashes = single_file_clashes(ids, {page.source.meta.slug: page.source for page in pages.pages}, templates.folder)
    if clashes:
        raise BuildError(clashes)
    return single


def split_at_marks(html: str, pieces: int, templates: Templates) -> tuple[tuple[str, ...], list[int]]:
    """The template's output split at the marks: the text around them (one more than the marks), and
    the piece each mark stands for. A template that prints a chapter's body or a script other than
    once is refused."""
    parts = MARKS.split(html)
    order = [int(number) for number in parts[1::2]]
    if sorted(order) != list(range(pieces)):
        where = f"{templates.folder.name}/single.html"
        message = "must print each chapter's body and each script once: {{ page.body | safe }}, {{ code | safe }}"
        raise BuildError([ContentError(where, 0, message)])
    return tuple(parts[0::2]), order
