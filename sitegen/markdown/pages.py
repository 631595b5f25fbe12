"""Stages "chapters" and "pages": every chapter's Markdown parsed, then rendered to an HTML fragment.

Every chapter is parsed first (:func:`parse_chapters`), so that the whole book's headings, files,
labs and formulas are known before any is checked and rendered (:func:`render_pages`); errors are
kept on the result, not raised, so one run lists every error in the book (decision 0061).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.gfm_autolink import gfm_autolink_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from sitegen.book.assets import Asset, Assets
from sitegen.book.source import ChapterSource, Source
from sitegen.errors import ContentError
from sitegen.labs.discovery import all_labs, enabled_labs
from sitegen.labs.placements import LabUse, Placement
from sitegen.labs.sources import lab_files
from sitegen.labs.stage import Labs
from sitegen.markdown.description import description
from sitegen.markdown.ids import Tag, duplicate_ids, referring_tags
from sitegen.markdown.links import Targets, check_links, heading_ids
from sitegen.markdown.mathml import (
    STYLESHEET,
    Formula,
    Typeset,
    apply_formulas,
    formula,
    formulas_in,
    stylesheet,
    typeset_book,
)
from sitegen.markdown.plugins.brackets import brackets_plugin
from sitegen.markdown.plugins.callouts import callouts_plugin
from sitegen.markdown.plugins.chapter_links import chapter_links_plugin
from sitegen.markdown.plugins.code import code_plugin
from sitegen.markdown.plugins.containers import unknown_containers_plugin
from sitegen.markdown.plugins.deleted import deleted_plugin
from sitegen.markdown.plugins.env import ChapterEnv, Widget, new_env, record
from sitegen.markdown.plugins.figures import figures_plugin
from sitegen.markdown.plugins.footnotes import footnotes_plugin
from sitegen.markdown.plugins.formulas import formulas_plugin
from sitegen.markdown.plugins.images import images_plugin
from sitegen.markdown.plugins.lab_blocks import field_text, labs_plugin
from sitegen.markdown.plugins.lines import inline_lines_plugin
from sitegen.markdown.plugins.nesting import nesting_plugin
from sitegen.markdown.plugins.raw_html import raw_html_plugin
from sitegen.markdown.plugins.tables import tables_plugin
from sitegen.markdown.toc import Entry, table_of_contents
from sitegen.memo import NO_MEMO, Memo, digest
from sitegen.runtime.names import RUNTIME_DIR
from sitegen.search.text import SEARCH_DIR, Section, sections
from sitegen.site.templates import DEFAULT_LAB, TemplateFailed, Templates

CALLOUTS = ("english", "try", "keep")
NO_ASSETS = Assets({})
INDEX = "index.html"


@dataclass(frozen=True)
class Page:
    """One chapter, rendered."""

    source: ChapterSource
    body: str
    labs: tuple[LabUse, ...]
    url: str
    toc: tuple[Entry, ...] = ()
    """Its ``##`` and ``###`` headings, for the table of contents."""
    stylesheets: tuple[str, ...] = ()
    """The generated stylesheets the page needs besides the template's (the formulas' one)."""
    description: str = ""
    """Its lede as plain text, for ``<meta name="description">`` (``sitegen/markdown/description.py``)."""
    sections: tuple[Section, ...] = ()
    """Its text cut at those headings, for search (sitegen/search/text.py)."""
    tags: tuple[Tag, ...] | None = None
    """The start tags of ``body`` that name or refer to an element (``sitegen.markdown.ids.referring_tags``),
    found once as it is checked and read again by the single file; None: not known, walk ``body``."""

    @property
    def has_labs(self) -> bool:
        return bool(self.labs)


@dataclass(frozen=True)
class Pages:
    """Every chapter of the book in order, with the errors and warnings rendering raised.

    Nothing is raised here (but for a missing tool): the errors of every chapter are kept on the
    result, so one run lists every error in the book. Warnings (such as a link to a chapter not
    written yet, or a file of the book no chapter uses) are kept too, for the caller to print or,
    with ``--strict``, to refuse.
    """

    pages: tuple[Page, ...]
    errors: tuple[ContentError, ...] = ()
    warnings: tuple[ContentError, ...] = ()
    assets: Mapping[str, Asset] = field(default_factory=dict)
    """The book's files the chapters use, by their path in the site (the same as in ``content/``)."""
    stylesheets: Mapping[str, str] = field(default_factory=dict)
    """Generated stylesheets by their path in the site (``static/formulas.css``), for the pages that link them."""

    @property
    def has_labs(self) -> bool:
        """Whether any page needs the in-browser runtime."""
        return any(page.has_labs for page in self.pages)


def page_url(chapter: ChapterSource) -> str:
    """Where a chapter lands in the site: ``cache.html``, a plain file so file:// works."""
    return f"{chapter.meta.slug}.html"


def make_markdown(
    urls: dict[str, str], experimental_labs: Iterable[str] = (), planned: Collection[str] = ()
) -> MarkdownIt:
    """CommonMark plus our plugins; ``urls`` maps chapter slugs to pages.

    ``experimental_labs`` are the experimental labs the book enables; the others stay off.
    ``planned`` are the chapters the book plans (book.toml's ``planned_chapters``): links to them are marked coming.
    A lab's widget is rendered by the env's ``widget``, which :func:`render_pages` gives it.

    The Markdown is CommonMark with GFM's tables, strikethrough, task lists,
    autolinks and footnotes, plus definition lists, formulas, figures and
    highlighted code (docs/authoring.md shows each); every construct is rendered
    here, at build time, so a page reads without any script.
    """
    md = MarkdownIt("commonmark", {"typographer": False})
    md.use(nesting_plugin)
    md.use(brackets_plugin)
    md.use(front_matter_plugin)
    md.enable("strikethrough")
    md.use(deleted_plugin)
    md.use(tables_plugin)
    md.use(tasklists_plugin, label=True)
    md.use(gfm_autolink_plugin)
    md.use(footnotes_plugin)
    md.use(deflist_plugin)
    md.use(formulas_plugin)
    md.use(inline_lines_plugin)
    md.use(images_plugin)
    md.use(raw_html_plugin)
    md.use(code_plugin)
    md.use(anchors_plugin, min_level=2, max_level=3)
    md.use(callouts_plugin, kinds=CALLOUTS)
    every = all_labs()
    kinds = enabled_labs(experimental_labs, every)
    md.use(labs_plugin, kinds=kinds, off=[name for name in every if name not in kinds])
    md.use(figures_plugin)
    md.use(unknown_containers_plugin, known=(*CALLOUTS, "lab", "figure"))
    md.use(chapter_links_plugin, pages=urls, planned=planned)
    return md


@dataclass(frozen=True)
class Outline:
    """What the rest of the book reads of a chapter, taken as it is parsed (before rendering changes its
    tokens): its headings' ids (links land there), its labs and its formulas (typeset a book at a time)."""

    anchors: frozenset[str]
    placements: tuple[Placement, ...]
    formulas: tuple[Formula, ...]


@dataclass(frozen=True)
class Parsed:
    """One chapter's tokens, where its page goes, and the env holding what parsing found.

    Checking and rendering write into the tokens and the env (a link's image size, a formula's MathML,
    each problem), so a Parsed is rendered once; serve's memo parses again to render again."""

    path: str
    url: str
    text: str
    tokens: list[Token]
    env: ChapterEnv
    outline: Outline

    @property
    def placements(self) -> tuple[Placement, ...]:
        """The labs the chapter places, in order."""
        return self.outline.placements


def parse(md: MarkdownIt, path: str, url: str, text: str) -> Parsed:
    env = new_env(path)
    tokens = md.parse(text, env)
    formulas = tuple(formula(found) for found in formulas_in(tokens, env))
    return Parsed(path, url, text, tokens, env, Outline(heading_ids(tokens), tuple(env.placements), formulas))


@dataclass(frozen=True)
class Chapters:
    """Stage "chapters": every chapter parsed (tokens, labs placed, parse errors in each env), and the link targets."""

    source: Source
    md: MarkdownIt
    listed: tuple[Parsed, ...]
    unlisted: tuple[Parsed, ...]
    """Chapters the source stage could not list (bad front matter): checked too, but given no page."""
    urls: dict[str, str]
    markdown: tuple[object, ...] = ()
    """What ``md`` was made from (the chapters' pages, the labs on, the chapters planned): a rendered
    chapter's key (:func:`chapter_key`)."""
    fresh: frozenset[str] = frozenset()
    """The chapters parsed by this build, not taken from serve's memo: those not rendered yet."""

    @property
    def placements(self) -> tuple[Placement, ...]:
        """Every lab the book places, chapter by chapter (for the labs stage)."""
        return tuple(placement for item in (*self.listed, *self.unlisted) for placement in item.placements)

    def unrendered(self, item: Parsed) -> Parsed:
        """``item`` if this build parsed it, else the chapter parsed again (a Parsed renders once)."""
        return item if item.path in self.fresh else parse(self.md, item.path, item.url, item.text)


def parse_chapters(
    source: Source, experimental_labs: Iterable[str] = (), planned: Collection[str] = (), memo: Memo = NO_MEMO
) -> Chapters:
    """Parse every chapter; ``experimental_labs`` are the experimental labs the book's book.toml enables,
    ``planned`` the chapters it plans; serve's ``memo`` keeps each chapter parsed by its text.

    Every chapter is parsed first, so that links and images can be checked against the headings and
    files of the whole book, the labs stage can compute the starting view of every lab the chapters
    place, and every formula of the book is typeset in one batch; then each is checked and rendered
    with those views (:func:`render_pages`).
    """
    urls = {chapter.meta.slug: page_url(chapter) for chapter in source.chapters}
    markdown = (tuple(urls.items()), tuple(experimental_labs), tuple(planned))
    md = make_markdown(urls, experimental_labs, planned)
    fresh: set[str] = set()

    def parsed(path: str, url: str, text: str) -> Parsed:
        def again() -> Parsed:
            fresh.add(path)
            return parse(md, path, url, text)

        return memo.get(("parsed", path), (url, text, markdown), again)

    listed = tuple(parsed(chapter.path, urls[chapter.meta.slug], chapter.text) for chapter in source.chapters)
    unlisted = tuple(parsed(item.path, item.path, item.text) for item in source.unlisted)
    return Chapters(source, md, listed, unlisted, urls, markdown, frozenset(fresh))


@dataclass(frozen=True)
class RenderedChapter:
    """One chapter checked and rendered: all its page and the book's lists take from it."""

    body: str
    tags: tuple[Tag, ...]
    toc: tuple[Entry, ...]
    description: str
    sections: tuple[Section, ...]
    errors: tuple[ContentError, ...]
    warnings: tuple[ContentError, ...]
    used: frozenset[str]
    """The book's files its links and images use."""
    formula_rules: tuple[tuple[str, str], ...]
    """The classes its formulas' styles became (``sitegen.markdown.mathml.without_styles``)."""


@dataclass(frozen=True)
class Shared:
    """What every chapter's rendering reads besides the chapter: the book's link targets, the labs'
    views, the widget's templates, the formulas typeset."""

    md: MarkdownIt
    targets: Targets
    uses: Mapping[tuple[str, int], LabUse]
    widget: Widget
    typeset: Mapping[Formula, Typeset]


def render_chapter(item: Parsed, title: str | None, shared: Shared) -> RenderedChapter:
    """Check one chapter's links (an unlisted one's against its own headings too) and formulas, then
    render it; its sections for search under ``title`` (None: unlisted, no page, no sections)."""
    own = replace(shared.targets, anchors={**shared.targets.anchors, item.url: item.outline.anchors})
    used = check_links(item.tokens, item.env, item.url, own)
    rules = apply_formulas(formulas_in(item.tokens, item.env), shared.typeset)
    env = item.env.rendering(shared.uses, shared.widget)
    body = shared.md.renderer.render(item.tokens, shared.md.options, env)
    tags = referring_tags(body)
    errors = (*duplicate_ids(shared.md, item.tokens, body, item.path, env, tags), *item.env.errors)
    warnings = tuple(item.env.warnings)
    found = () if title is None else sections(item.tokens, title, partial(field_text, env=env))
    toc, lede = table_of_contents(item.tokens), description(item.tokens)
    return RenderedChapter(
        body, tags, toc, lede, found, errors, warnings, frozenset(used), tuple(sorted(rules.items()))
    )


def render_unrendered(chapters: Chapters, item: Parsed, title: str | None, shared: Shared) -> RenderedChapter:
    """:func:`render_chapter` of ``item`` as parsed by this build, or parsed again."""
    return render_chapter(chapters.unrendered(item), title, shared)


def render_pages(
    chapters: Chapters,
    labs: Labs,
    templates: Templates,
    files: frozenset[str] = frozenset(),
    assets: Assets = NO_ASSETS,
    hide_python: Collection[str] = (),
    memo: Memo = NO_MEMO,
) -> Pages:
    """Check and render every chapter, each lab with its starting view from ``labs`` (the labs stage);
    ``files`` are the site's other files (links may point there), ``assets`` the book's own files
    (images and links may point there); ``hide_python`` names labs shown without their "Python" disclosure.
    serve's ``memo`` keeps each chapter's rendering by all it reads (:func:`chapter_key`).

    Chapters the source stage could not list are checked too, against the same
    targets plus their own headings, but get no page. A lab's widget is its
    template (``labs/NAME.html``), rendered with its starting view.
    """
    every = (*chapters.listed, *chapters.unlisted)
    targets = book_targets(chapters, files, assets)
    typeset = typeset_book([formula for item in every for formula in item.outline.formulas], memo)
    widget = partial(lab_widget, templates, hide_python=frozenset(hide_python))
    shared = Shared(chapters.md, targets, labs.uses, widget, typeset)
    linked = targets_key(targets) if memo.active else ""
    book_key = (chapters.markdown, linked, templates.key, tuple(sorted(hide_python)))
    views = use_keys(labs.uses) if memo.active else {}
    titles: dict[str, str | None] = {chapter.path: chapter.meta.title for chapter in chapters.source.chapters}
    rendered: dict[str, RenderedChapter] = {}
    for item in every:
        title = titles.get(item.path) if item.url != item.path else None
        key = (title, *chapter_key(item, views, typeset, book_key))
        again = partial(render_unrendered, chapters, item, title, shared)
        rendered[item.path] = memo.get(("rendered", item.path), key, again)
    return book_pages(chapters, labs, rendered, assets, files, typeset, views, memo)


def use_keys(uses: Mapping[tuple[str, int], LabUse]) -> dict[tuple[str, int], tuple[Placement, str]]:
    """Each placed lab as a key: its placement and its starting view's digest (a view, a tree of
    thousands of nodes, is hashed once for all the chapters that place the lab at the same values)."""
    hashed: dict[int, str] = {}
    for use in uses.values():
        if id(use.view) not in hashed:
            hashed[id(use.view)] = digest([json.dumps(use.view, sort_keys=True)])
    return {key: (use.placement, hashed[id(use.view)]) for key, use in uses.items()}


def chapter_key(
    item: Parsed,
    views: Mapping[tuple[str, int], object],
    typeset: Mapping[Formula, Typeset],
    book: tuple[object, ...],
) -> tuple[object, ...]:
    """All a chapter's rendering reads: its page and text, its labs' views, its formulas typeset, and
    ``book``, what it reads of the whole book (the Markdown's settings, every link target, the templates,
    the labs shown without their Python)."""
    placed = tuple(views.get(placement.key) for placement in item.placements)
    return (item.url, item.text, placed, tuple(typeset[formula] for formula in item.outline.formulas), book)


def book_pages(
    chapters: Chapters,
    labs: Labs,
    rendered: Mapping[str, RenderedChapter],
    assets: Assets,
    files: frozenset[str],
    typeset: Mapping[Formula, Typeset],
    views: Mapping[tuple[str, int], object],
    memo: Memo = NO_MEMO,
) -> Pages:
    """The pages, in the book's order, from each chapter's rendering; the book's files they use and the
    formulas' stylesheet (if any chapter has a formula). serve's ``memo`` gives a page the same object as
    the last build's when nothing of it changed, so the site stage compares it at once."""
    used = {path for done in rendered.values() for path in done.used}
    errors = [*asset_clashes(used, assets.files, files), *(e for done in rendered.values() for e in done.errors)]
    warnings = [*unused_assets(assets, used), *(w for done in rendered.values() for w in done.warnings)]
    pages: list[Page] = []
    for chapter, item in zip(chapters.source.chapters, chapters.listed, strict=True):
        done = rendered[chapter.path]
        uses = tuple(labs.uses[p.key] for p in item.placements if p.key in labs.uses)
        placed = tuple(views.get(p.key) for p in item.placements)
        key = (chapter, item.url, done, placed, bool(item.outline.formulas))
        pages.append(memo.get(("page", chapter.path), key, partial(make_page, chapter, item, done, uses)))
    rules = {name: body for done in rendered.values() for name, body in done.formula_rules}
    css = stylesheet(rules) if typeset else ""
    stylesheets = {STYLESHEET: css} if css else {}
    used_files = {path: assets.files[path] for path in sorted(used)}
    return Pages(tuple(pages), tuple(sorted(errors)), tuple(sorted(warnings)), used_files, stylesheets)


def make_page(chapter: ChapterSource, item: Parsed, done: RenderedChapter, uses: tuple[LabUse, ...]) -> Page:
    formulas = (STYLESHEET,) if item.outline.formulas else ()
    return Page(chapter, done.body, uses, item.url, done.toc, formulas, done.description, done.sections, done.tags)


PYTHON_DISCLOSURE = "labs/python.html"
"""The "Python" disclosure every lab ends with: the model's files that compute it (``sitegen/labs/sources.py``)."""


def lab_widget(templates: Templates, use: LabUse, env: ChapterEnv, hide_python: Collection[str] = ()) -> str:
    """A lab's widget, its template rendered with its starting view, then its "Python" disclosure unless
    the book hides it (``hide_python``); a template's failure is the chapter's error."""
    try:
        widget = templates.render((use.template, DEFAULT_LAB), lab=use)  # its own template, or the default
        if use.kind.name in hide_python:
            return widget
        return widget + templates.render(PYTHON_DISCLOSURE, lab=use, files=lab_files(use.kind))
    except TemplateFailed as failed:
        error = failed.error
        where = f"rendering lab {use.kind.name!r} in {env.path}"
        record(env, ContentError(error.path, error.line, f"{error.message} ({where})"))
        return ""


def book_targets(chapters: Chapters, files: frozenset[str], assets: Assets) -> Targets:
    """What a link of any chapter may land on: every listed chapter's headings, the site's files, the book's."""
    return Targets(
        anchors={INDEX: frozenset()} | {item.url: item.outline.anchors for item in chapters.listed},
        sources={item.url: item.path for item in chapters.listed},
        files=files,
        complete=chapters.source.complete,
        assets=assets.files,
        refused=assets.refused,
    )


def targets_key(targets: Targets) -> str:
    """All of ``targets`` as one digest, in a rendered chapter's key: a heading renamed in one chapter
    checks again the links of every other."""
    anchors = [part for url, ids in sorted(targets.anchors.items()) for part in (url, *sorted(ids), "")]
    sources = [part for pair in sorted(targets.sources.items()) for part in pair]
    files = [part for name, asset in sorted(targets.assets.items()) for part in asset_parts(name, asset)]
    refused = [part for pair in sorted(targets.refused.items()) for part in pair]
    lists = (anchors, sources, sorted(targets.files), files, refused, [str(targets.complete)])
    return digest(digest(part) for part in lists)


def asset_parts(name: str, asset: Asset) -> tuple[str, ...]:
    """A file of the book as a link target: its name, where messages put it, what it is, its bytes' hash."""
    return (name, asset.path, asset.shown, asset.media_type, repr(asset.size), hashlib.sha256(asset.data).hexdigest())


def asset_clashes(used: Iterable[str], assets: Mapping[str, Asset], files: frozenset[str]) -> list[ContentError]:
    """Files of the book that would land in a folder where the site keeps files of its own.

    (One that would replace a page, ``index.html`` or a chapter's, cannot get here: a book's
    ``.html`` file is refused as it is read, :mod:`sitegen.book.assets`.)
    """
    folders = sorted({name.split("/", 1)[0] for name in files if "/" in name} | {RUNTIME_DIR, SEARCH_DIR})
    errors: list[ContentError] = []
    for path in sorted(used):
        top = path.split("/", 1)[0]
        if "/" in path and top in folders:
            problem = f"the site keeps its own files in {top}/; move this file to another folder"
            errors.append(ContentError(assets[path].shown, 0, problem))
    return errors


def unused_assets(assets: Assets, used: set[str]) -> list[ContentError]:
    """A warning for each file of the book no chapter uses: it is not copied into the site."""
    message = "no chapter links to this file or shows it, so the site leaves it out"
    return [ContentError(asset.shown, 0, message) for path, asset in sorted(assets.files.items()) if path not in used]
