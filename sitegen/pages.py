"""Stage 2, pages: every chapter's Markdown rendered to an HTML fragment.

All chapters are rendered before anything is reported, so one run lists every
error in the book; warnings (such as a link to a chapter not written yet) are
kept on the result for the caller to print or, with ``--strict``, to refuse.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import jinja2
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from sitegen.errors import BuildError, ContentError
from sitegen.labs import LAB_KINDS, LabUse
from sitegen.plugins.callouts import callouts_plugin
from sitegen.plugins.chapter_links import chapter_links_plugin
from sitegen.plugins.env import new_env
from sitegen.plugins.labs import labs_plugin
from sitegen.source import ChapterSource, Source

CALLOUTS = ("english", "try", "keep")


@dataclass(frozen=True)
class Page:
    """One chapter, rendered."""

    source: ChapterSource
    body: str
    labs: tuple[LabUse, ...]
    url: str

    @property
    def has_labs(self) -> bool:
        return bool(self.labs)


@dataclass(frozen=True)
class Pages:
    """Every chapter of the book in order, with the warnings rendering raised."""

    pages: tuple[Page, ...]
    warnings: tuple[ContentError, ...]


def page_url(chapter: ChapterSource) -> str:
    """Where a chapter lands in the site: ``cache.html``, a plain file so file:// works."""
    return f"{chapter.meta.slug}.html"


def make_markdown(templates: jinja2.Environment, urls: dict[str, str]) -> MarkdownIt:
    """CommonMark plus our plugins; ``urls`` maps chapter slugs to pages."""

    def widget(use: LabUse) -> str:
        return templates.get_template(use.kind.template).render(lab=use)

    md = MarkdownIt("commonmark", {"typographer": False})
    md.use(front_matter_plugin)
    md.use(anchors_plugin, min_level=2, max_level=3)
    md.use(callouts_plugin, kinds=CALLOUTS)
    md.use(labs_plugin, kinds=LAB_KINDS, widget=widget)
    md.use(chapter_links_plugin, pages=urls)
    return md


def in_page_url(chapter: ChapterSource) -> str:
    """Where a chapter is in the single-file book: its article's anchor."""
    return f"#{chapter.meta.slug}"


def render_pages(
    source: Source, templates: jinja2.Environment, url_of: Callable[[ChapterSource], str] = page_url
) -> Pages:
    """Render every chapter; raise BuildError listing all content errors."""
    urls = {chapter.meta.slug: url_of(chapter) for chapter in source.chapters}
    md = make_markdown(templates, urls)
    pages: list[Page] = []
    errors: list[ContentError] = []
    warnings: list[ContentError] = []
    for chapter in source.chapters:
        env = new_env(chapter.path)
        tokens = md.parse(chapter.text, env)
        body = md.renderer.render(tokens, md.options, env)
        errors.extend(env["errors"])
        warnings.extend(env["warnings"])
        labs = tuple(token.meta["lab"] for token in tokens if token.type == "container_lab_open" and token.meta["lab"])
        pages.append(Page(chapter, body, labs, urls[chapter.meta.slug]))
    if errors:
        raise BuildError(sorted(errors))
    return Pages(tuple(pages), tuple(warnings))
