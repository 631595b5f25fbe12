"""Element ids: unique on every page, and chapter-prefixed when the book is one file.

A chapter's headings get their ids from its own text (``## Set-up`` is
``#set-up``), and a lab's controls derive theirs from its heading's, so two
chapters may well hold the same id. On its own page that is harmless; in the
single-file book, where every chapter is one ``<article>`` of the same
document, it is not. :func:`prefix_ids` therefore rewrites a chapter's HTML
for the single file: each id becomes ``SLUG--id`` and so does everything that
refers to one (``for``, ``aria-labelledby``, ``href="#id"``, a link into
another chapter). A slug never holds ``--``, so ids of different chapters
cannot meet, nor meet an article's own id (its slug).

This works on the rendered HTML, not on Markdown tokens, so it covers every
source of ids alike: headings, lab templates, raw HTML an author wrote.

Ids repeated within one chapter are an error on every page (see
:func:`duplicate_ids`), reported at both source lines.
"""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from sitegen.book.source import ChapterSource
from sitegen.errors import ContentError
from sitegen.markdown.plugins.env import ChapterEnv, new_env
from sitegen.markdown.toc import Entry

SEPARATOR = "--"
"""Between a chapter's slug and an id of the chapter; slugs never contain it (sitegen.book.source.SLUG)."""

ID_REFERENCES = frozenset(
    {
        "for",
        "form",
        "list",
        "headers",
        "aria-activedescendant",
        "aria-controls",
        "aria-describedby",
        "aria-details",
        "aria-errormessage",
        "aria-flowto",
        "aria-labelledby",
        "aria-owns",
        "popovertarget",
        "commandfor",
        "itemref",
        "data-shows",
    }
)
"""Attributes whose value is one id or a space-separated list of them. ``data-shows`` is the
page's own: a slider's readout names the slider's id (site_template/labs/decode.html)."""
FORM_OWNERS = frozenset({"button", "fieldset", "input", "object", "output", "select", "textarea"})
"""The elements whose ``form`` names a form's id; on MathML's ``<mo>`` it is ``prefix``, ``infix`` or ``postfix``."""

Attributes = list[tuple[str, str | None]]


class _StartTags(HTMLParser):
    """Every start tag of an HTML fragment: where it starts, its source text and its attributes.

    The standard library's parser knows that ``<script>`` and ``<style>`` hold text, not
    tags, and that ``&quot;`` in an attribute is a quote, which a regular expression would not.
    """

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.starts = [0]
        for line in text.split("\n")[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.tags: list[tuple[int, str, str, Attributes]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: Attributes) -> None:
        line, column = self.getpos()
        self.tags.append((self.starts[line - 1] + column, self.get_starttag_text() or "", tag, attrs))

    def handle_startendtag(self, tag: str, attrs: Attributes) -> None:
        self.handle_starttag(tag, attrs)


def start_tags(fragment: str) -> list[tuple[int, str, Attributes]]:
    """Each start tag of ``fragment``: how many lines into it the tag starts, its name and its attributes."""
    return [(fragment.count("\n", 0, start), tag, attrs) for start, _, tag, attrs in _StartTags(fragment).tags]


def element_ids(fragment: str) -> list[str]:
    """The ids of ``fragment``'s elements, in order, repeats included."""
    return [value for _, _, _, attrs in _StartTags(fragment).tags for name, value in attrs if name == "id" and value]


def rewrite_attributes(fragment: str, rewrite: Callable[[str, Attributes], Attributes | None]) -> str:
    """``fragment`` with each start tag for which ``rewrite(tag, attrs)`` returns new attributes rebuilt;
    every other byte is kept as it was."""
    parts: list[str] = []
    done = 0
    for start, source, tag, attrs in _StartTags(fragment).tags:
        changed = rewrite(tag, attrs)
        if changed is None:
            continue
        written = "".join(f" {name}" if value is None else f' {name}="{html.escape(value)}"' for name, value in changed)
        closing = "/>" if source.endswith("/>") else ">"
        parts += [fragment[done:start], f"<{tag}{written}{closing}"]
        done = start + len(source)
    return "".join([*parts, fragment[done:]])


def prefixed(slug: str, value: str) -> str:
    return f"{slug}{SEPARATOR}{value}"


def prefix_ids(body: str, slug: str, chapters: Mapping[str, str]) -> str:
    """A chapter's HTML for the single-file book: its ids, and every reference to one, prefixed.

    ``chapters`` maps each chapter's page (``cache.html``) to its slug: a link to
    ``cache.html#x`` becomes ``#cache--x``, one to ``cache.html`` becomes ``#cache``
    (the chapter's article); links elsewhere are kept. A radio button's ``name`` is
    prefixed too: without a form, a group spans the whole document.
    """

    def link(href: str) -> str:
        page, _, fragment = href.partition("#")
        if not page:
            return f"#{prefixed(slug, fragment)}" if fragment else href
        target = chapters.get(page)
        if target is None:
            return href
        return f"#{prefixed(target, fragment)}" if fragment else f"#{target}"

    def rewrite(tag: str, attrs: Attributes) -> Attributes | None:
        radio = tag == "input" and any(name == "type" and (value or "").lower() == "radio" for name, value in attrs)
        changed: Attributes = []
        for name, value in attrs:
            if value is None or not value:
                changed.append((name, value))
            elif name == "id" or (name == "name" and radio):
                changed.append((name, prefixed(slug, value)))
            elif name in ID_REFERENCES and (name != "form" or tag in FORM_OWNERS):
                changed.append((name, " ".join(prefixed(slug, one) for one in value.split())))
            elif name == "href" and tag in ("a", "area"):
                changed.append((name, link(value)))
            else:
                changed.append((name, value))
        return changed if changed != attrs else None

    return rewrite_attributes(body, rewrite)


def duplicate_ids(
    md: MarkdownIt, tokens: Sequence[Token], body: str, path: str, env: Mapping[str, Any] | None = None
) -> list[ContentError]:
    """Every id that ``body`` (the chapter rendered from ``tokens``) holds twice, at the line of
    its second use, naming the first: two headings of the same text are told apart by the
    anchors plugin, but a lab's control or raw HTML may take an id a heading has. ``env`` is the
    one the chapter was rendered with (its labs' starting views)."""
    ids = element_ids(body)
    if len(ids) == len(set(ids)):
        return []
    errors: list[ContentError] = []
    first: dict[str, int] = {}
    for line, found in ids_by_line(md, tokens, env or {}):
        for value in found:
            if value in first:
                message = f"id {value!r} is used twice on the page (first at {path}:{first[value]})"
                errors.append(ContentError(path, line, message))
            else:
                first[value] = line
    return errors


def ids_by_line(md: MarkdownIt, tokens: Sequence[Token], rendered: Mapping[str, Any]) -> list[tuple[int, list[str]]]:
    """The ids each token renders, with its source line (a closing token: its opening's).

    Each token is rendered on its own, with a copy of the env the chapter was ``rendered`` with
    and problem lists of its own, so that a lab's template renders again without reporting its
    errors twice.
    """
    env = rendered.quiet() if isinstance(rendered, ChapterEnv) else new_env("")
    found: list[tuple[int, list[str]]] = []
    open_lines: list[int] = []
    line = 1
    for token in tokens:
        if token.map:
            line = token.map[0] + 1
        if token.nesting == 1:
            open_lines.append(line)
        elif token.nesting == -1 and open_lines:
            line = open_lines.pop()
        found.append((line, element_ids(md.renderer.render([token], md.options, env))))
    return found


def prefix_toc(entries: Sequence[Entry], slug: str) -> tuple[Entry, ...]:
    """A chapter's table of contents pointing at its prefixed headings."""
    return tuple(Entry(prefixed(slug, entry.id), entry.text, prefix_toc(entry.children, slug)) for entry in entries)


def template_line(folder: Path, value: str) -> str:
    """Where a template sets ``id="value"`` (``site_template/single.html:7``), or the folder if none does."""
    written = f'id="{value}"'
    for path in sorted(folder.rglob("*.html")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if written in line:
                return f"{folder.name}/{path.relative_to(folder).as_posix()}:{number}"
    return folder.name


def single_file_clashes(page: str, chapters: Mapping[str, ChapterSource], templates: Path) -> list[ContentError]:
    """Ids the single-file ``page`` holds twice, once chapters' ids are prefixed: only a slug that
    is also an id of the template can do that (or a template that repeats one of its own)."""
    errors: list[ContentError] = []
    for value, count in sorted(Counter(element_ids(page)).items()):
        if count == 1:
            continue
        where = template_line(templates, value)
        chapter = chapters.get(value)
        if chapter is not None:
            message = f"slug {value!r} is also the id of an element at {where}, which the single-file book holds too"
            errors.append(ContentError(chapter.path, chapter.meta.lines.get("slug", 1), message))
        else:
            errors.append(ContentError(where, 0, f"id {value!r} is used {count} times in the single-file book"))
    return errors
