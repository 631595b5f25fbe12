"""Stage 2, pages: every chapter's Markdown rendered to an HTML fragment.

Every chapter is parsed first, so that links can be checked against the
headings of the whole book; then each is checked and rendered. Nothing is
raised here: the errors of every chapter are kept on the result, so one run
lists every error in the book. Warnings (such as a link to a chapter not
written yet) are kept too, for the caller to print or, with ``--strict``, to
refuse.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass, replace
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from sitegen.errors import ContentError
from sitegen.ids import duplicate_ids
from sitegen.labs import LabUse, all_labs, enabled_labs
from sitegen.links import Targets, check_links, heading_ids
from sitegen.plugins.callouts import callouts_plugin
from sitegen.plugins.chapter_links import chapter_links_plugin
from sitegen.plugins.containers import unknown_containers_plugin
from sitegen.plugins.env import new_env, record
from sitegen.plugins.labs import labs_plugin
from sitegen.plugins.lines import link_lines_plugin
from sitegen.search_text import Section, sections
from sitegen.source import ChapterSource, Source
from sitegen.templates import TemplateFailed, Templates
from sitegen.toc import Entry, table_of_contents

CALLOUTS = ("english", "try", "keep")
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
    sections: tuple[Section, ...] = ()
    """Its text cut at those headings, for search (sitegen/search_text.py)."""

    @property
    def has_labs(self) -> bool:
        return bool(self.labs)


@dataclass(frozen=True)
class Pages:
    """Every chapter of the book in order, with the errors and warnings rendering raised."""

    pages: tuple[Page, ...]
    errors: tuple[ContentError, ...] = ()
    warnings: tuple[ContentError, ...] = ()

    @property
    def has_labs(self) -> bool:
        """Whether any page needs the in-browser runtime."""
        return any(page.has_labs for page in self.pages)


def page_url(chapter: ChapterSource) -> str:
    """Where a chapter lands in the site: ``cache.html``, a plain file so file:// works."""
    return f"{chapter.meta.slug}.html"


def make_markdown(templates: Templates, urls: dict[str, str], experimental_labs: Iterable[str] = ()) -> MarkdownIt:
    """CommonMark plus our plugins; ``urls`` maps chapter slugs to pages.

    ``experimental_labs`` are the experimental labs the book enables; the others stay off.
    """

    def widget(use: LabUse, env: MutableMapping[str, Any]) -> str:
        try:
            return templates.render(use.template, lab=use)
        except TemplateFailed as failed:
            error = failed.error
            where = f"rendering lab {use.kind.name!r} in {env['path']}"
            record(env, ContentError(error.path, error.line, f"{error.message} ({where})"))
            return ""

    md = MarkdownIt("commonmark", {"typographer": False})
    md.use(front_matter_plugin)
    md.use(link_lines_plugin)
    md.use(anchors_plugin, min_level=2, max_level=3)
    md.use(callouts_plugin, kinds=CALLOUTS)
    every = all_labs()
    kinds = enabled_labs(experimental_labs, every)
    md.use(labs_plugin, kinds=kinds, widget=widget, off=[name for name in every if name not in kinds])
    md.use(unknown_containers_plugin, known=(*CALLOUTS, "lab"))
    md.use(chapter_links_plugin, pages=urls)
    return md


@dataclass(frozen=True)
class Parsed:
    """One chapter's tokens, where its page goes, and the env holding what parsing found."""

    path: str
    url: str
    tokens: list[Token]
    env: dict[str, Any]


def parse(md: MarkdownIt, path: str, url: str, text: str) -> Parsed:
    env = new_env(path)
    return Parsed(path, url, md.parse(text, env), env)


def render_pages(
    source: Source, templates: Templates, files: frozenset[str] = frozenset(), experimental_labs: Iterable[str] = ()
) -> Pages:
    """Parse, check and render every chapter; ``files`` are the site's other files (links may point there).

    Chapters the source stage could not list (bad front matter) are checked
    too, against the same targets plus their own headings, but get no page.
    ``experimental_labs`` are the experimental labs the book's book.toml enables.
    """
    urls = {chapter.meta.slug: page_url(chapter) for chapter in source.chapters}
    md = make_markdown(templates, urls, experimental_labs)
    listed = [parse(md, chapter.path, urls[chapter.meta.slug], chapter.text) for chapter in source.chapters]
    unlisted = [parse(md, item.path, item.path, item.text) for item in source.unlisted]
    targets = Targets(
        anchors={INDEX: frozenset()} | {item.url: heading_ids(item.tokens) for item in listed},
        sources={item.url: item.path for item in listed},
        files=files,
        complete=source.complete,
    )
    bodies: dict[str, str] = {}
    tocs: dict[str, tuple[Entry, ...]] = {}
    labs: dict[str, tuple[LabUse, ...]] = {}
    errors: list[ContentError] = []
    warnings: list[ContentError] = []
    for item in [*listed, *unlisted]:
        own = replace(targets, anchors={**targets.anchors, item.url: heading_ids(item.tokens)})
        check_links(item.tokens, item.env, item.url, own)
        bodies[item.path] = md.renderer.render(item.tokens, md.options, item.env)
        errors.extend(duplicate_ids(md, item.tokens, bodies[item.path], item.path))
        tocs[item.path] = table_of_contents(item.tokens)
        labs[item.path] = tuple(
            token.meta["lab"] for token in item.tokens if token.type == "container_lab_open" and token.meta["lab"]
        )
        errors.extend(item.env["errors"])
        warnings.extend(item.env["warnings"])
    tokens = {item.path: item.tokens for item in listed}
    pages = tuple(
        Page(
            chapter,
            bodies[chapter.path],
            labs[chapter.path],
            urls[chapter.meta.slug],
            tocs[chapter.path],
            sections(tokens[chapter.path], chapter.meta.title),
        )
        for chapter in source.chapters
    )
    return Pages(pages, tuple(sorted(errors)), tuple(sorted(warnings)))
