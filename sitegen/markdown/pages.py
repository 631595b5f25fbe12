"""Stages "chapters" and "pages": every chapter's Markdown parsed, then rendered to an HTML fragment.

Every chapter is parsed first (:func:`parse_chapters`), so that the whole book's headings, files,
labs and formulas are known before any is checked and rendered (:func:`render_pages`); errors are
kept on the result, not raised, so one run lists every error in the book (decision 0061).
"""

from __future__ import annotations

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
from sitegen.markdown.mathml import STYLESHEET, formulas_in, typeset_formulas
from sitegen.markdown.plugins.brackets import brackets_plugin
from sitegen.markdown.plugins.callouts import callouts_plugin
from sitegen.markdown.plugins.chapter_links import chapter_links_plugin
from sitegen.markdown.plugins.code import code_plugin
from sitegen.markdown.plugins.containers import unknown_containers_plugin
from sitegen.markdown.plugins.deleted import deleted_plugin
from sitegen.markdown.plugins.env import ChapterEnv, new_env, record
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
class Parsed:
    """One chapter's tokens, where its page goes, and the env holding what parsing found."""

    path: str
    url: str
    tokens: list[Token]
    env: ChapterEnv

    @property
    def placements(self) -> tuple[Placement, ...]:
        """The labs the chapter places, in order."""
        return tuple(self.env.placements)


def parse(md: MarkdownIt, path: str, url: str, text: str) -> Parsed:
    env = new_env(path)
    return Parsed(path, url, md.parse(text, env), env)


@dataclass(frozen=True)
class Chapters:
    """Stage "chapters": every chapter parsed (tokens, labs placed, parse errors in each env), and the link targets."""

    source: Source
    md: MarkdownIt
    listed: tuple[Parsed, ...]
    unlisted: tuple[Parsed, ...]
    """Chapters the source stage could not list (bad front matter): checked too, but given no page."""
    urls: dict[str, str]

    @property
    def placements(self) -> tuple[Placement, ...]:
        """Every lab the book places, chapter by chapter (for the labs stage)."""
        return tuple(placement for item in (*self.listed, *self.unlisted) for placement in item.placements)


def parse_chapters(source: Source, experimental_labs: Iterable[str] = (), planned: Collection[str] = ()) -> Chapters:
    """Parse every chapter; ``experimental_labs`` are the experimental labs the book's book.toml enables,
    ``planned`` the chapters it plans.

    Every chapter is parsed first, so that links and images can be checked against the headings and
    files of the whole book, the labs stage can compute the starting view of every lab the chapters
    place, and every formula of the book is typeset in one batch; then each is checked and rendered
    with those views (:func:`render_pages`).
    """
    urls = {chapter.meta.slug: page_url(chapter) for chapter in source.chapters}
    md = make_markdown(urls, experimental_labs, planned)
    listed = tuple(parse(md, chapter.path, urls[chapter.meta.slug], chapter.text) for chapter in source.chapters)
    unlisted = tuple(parse(md, item.path, item.path, item.text) for item in source.unlisted)
    return Chapters(source, md, listed, unlisted, urls)


def render_pages(
    chapters: Chapters,
    labs: Labs,
    templates: Templates,
    files: frozenset[str] = frozenset(),
    assets: Assets = NO_ASSETS,
    hide_python: Collection[str] = (),
) -> Pages:
    """Check and render every chapter, each lab with its starting view from ``labs`` (the labs stage);
    ``files`` are the site's other files (links may point there), ``assets`` the book's own files
    (images and links may point there); ``hide_python`` names labs shown without their "Python" disclosure.

    Chapters the source stage could not list are checked too, against the same
    targets plus their own headings, but get no page. A lab's widget is its
    template (``labs/NAME.html``), rendered with its starting view.
    """
    md, source, urls = chapters.md, chapters.source, chapters.urls
    every = (*chapters.listed, *chapters.unlisted)
    widget = partial(lab_widget, templates, hide_python=frozenset(hide_python))
    used = check_every_link(chapters, files, assets)
    formulas = {item.path: formulas_in(item.tokens, item.env) for item in every}
    formulas_css = typeset_formulas([found for chapter in formulas.values() for found in chapter])
    bodies: dict[str, str] = {}
    tocs: dict[str, tuple[Entry, ...]] = {}
    tags: dict[str, tuple[Tag, ...]] = {}
    descriptions: dict[str, str] = {}
    uses: dict[str, tuple[LabUse, ...]] = {}
    errors: list[ContentError] = asset_clashes(used, assets.files, files)
    warnings: list[ContentError] = unused_assets(assets, used)
    envs: dict[str, ChapterEnv] = {}
    for item in every:
        env = envs[item.path] = item.env.rendering(labs.uses, widget)
        bodies[item.path] = md.renderer.render(item.tokens, md.options, env)
        tags[item.path] = referring_tags(bodies[item.path])
        errors.extend(duplicate_ids(md, item.tokens, bodies[item.path], item.path, env, tags[item.path]))
        tocs[item.path] = table_of_contents(item.tokens)
        descriptions[item.path] = description(item.tokens)
        uses[item.path] = tuple(labs.uses[p.key] for p in item.placements if p.key in labs.uses)
        errors.extend(item.env.errors)
        warnings.extend(item.env.warnings)
    tokens = {item.path: item.tokens for item in chapters.listed}
    field_texts = {item.path: partial(field_text, env=envs[item.path]) for item in chapters.listed}
    pages = tuple(
        Page(
            chapter,
            bodies[chapter.path],
            uses[chapter.path],
            urls[chapter.meta.slug],
            toc=tocs[chapter.path],
            stylesheets=(STYLESHEET,) if formulas[chapter.path] else (),
            description=descriptions[chapter.path],
            sections=sections(tokens[chapter.path], chapter.meta.title, field_texts[chapter.path]),
            tags=tags[chapter.path],
        )
        for chapter in source.chapters
    )
    stylesheets = {STYLESHEET: formulas_css} if formulas_css else {}
    used_files = {path: assets.files[path] for path in sorted(used)}
    return Pages(pages, tuple(sorted(errors)), tuple(sorted(warnings)), used_files, stylesheets)


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


def check_every_link(chapters: Chapters, files: frozenset[str], assets: Assets) -> set[str]:
    """Check the links of every chapter (an unlisted one's against its own headings too); the book's
    files they use."""
    targets = Targets(
        anchors={INDEX: frozenset()} | {item.url: heading_ids(item.tokens) for item in chapters.listed},
        sources={item.url: item.path for item in chapters.listed},
        files=files,
        complete=chapters.source.complete,
        assets=assets.files,
        refused=assets.refused,
    )
    used: set[str] = set()
    for item in (*chapters.listed, *chapters.unlisted):
        own = replace(targets, anchors={**targets.anchors, item.url: heading_ids(item.tokens)})
        used |= check_links(item.tokens, item.env, item.url, own)
    return used


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
