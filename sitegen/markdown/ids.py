"""Element ids: unique on every page, and chapter-prefixed when the book is one file.

Two chapters may hold one id (a heading's is its text, a lab control's its heading's): for the single file
:func:`id_prefixer` makes each ``SLUG--id`` (no slug holds ``--``) and all that refers to it, in the rendered
HTML, so headings, labs and raw HTML alike. An id twice in a chapter is an error at both lines (:func:`duplicate_ids`).
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
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
Tag = tuple[int, str, str, Attributes]
"""A start tag: where it starts in its text, its source text, its name and its attributes."""


class _StartTags(HTMLParser):
    """Every start tag of an HTML fragment: where it starts, its source text and its attributes.

    The standard library's parser knows that ``<script>`` and ``<style>`` hold text, not
    tags, and that ``&quot;`` in an attribute is a quote, which a regular expression would not.
    """

    def __init__(self, text: str = "", base: int = 0) -> None:
        super().__init__(convert_charrefs=True)
        self.starts = [base]
        """Where each line fed so far starts, in the whole text (the first at ``base``)."""
        self.fed = base
        self.tags: list[Tag] = []
        if text:
            self.read(text)
            self.close()

    def read(self, text: str) -> None:
        """Feed ``text``, the next part of the whole (the parser may wait for more to end a tag)."""
        newline = text.find("\n")
        while newline >= 0:
            self.starts.append(self.fed + newline + 1)
            newline = text.find("\n", newline + 1)
        self.fed += len(text)
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: Attributes) -> None:
        line, column = self.getpos()
        self.tags.append((self.starts[line - 1] + column, self.get_starttag_text() or "", tag, attrs))

    def handle_startendtag(self, tag: str, attrs: Attributes) -> None:
        self.handle_starttag(tag, attrs)


REFERRING = frozenset({"id", "name", "href", "src", *ID_REFERENCES})
"""The attributes that name an element, refer to one or link to something: all that the single file's
rewrites (``id_prefixer``, ``sitegen.site.assemble.asset_inliner``) and the id checks read."""
_NAME = r"[a-zA-Z_:][-a-zA-Z0-9_:.]*"
_PLAIN_ATTRIBUTE = rf"(?!(?i:{'|'.join(sorted(REFERRING))})[\s=/>])" + rf'{_NAME}(?:="[^"<>&]*")?'
_PLAIN_TAG = (
    r"<(?!(?i:script|style|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext)\b)[a-zA-Z][a-zA-Z0-9]*"
)
_PLAIN_TAGS = rf"{_PLAIN_TAG}(?: {_PLAIN_ATTRIBUTE})*/?>|</[a-zA-Z][a-zA-Z0-9]*>"
PLAIN = re.compile(rf'(?:{_PLAIN_TAGS})(?:[^<]++|<span class="[^"<>&]*">|</span>|{_PLAIN_TAGS})*+')
"""A run of tags and text, from a tag: end tags and start tags none of whose attributes is one of
:data:`REFERRING`, each written plainly (double quotes, no ``<``, ``>`` or ``&`` in a value), none
that holds text rather than tags (``<script>``, ``<style>``; a highlighted token's ``<span class>``
tried first, as the most common): most of a chapter's page (its highlighted code, its labs'
drawings), none of it anything the rewrites change or the checks count."""
PLAIN_RUN = 256
"""The shortest run of :data:`PLAIN` worth skipping (a fresh parser after it)."""


def start_tags(fragment: str) -> list[tuple[int, str, Attributes]]:
    """Each start tag of ``fragment``: how many lines into it the tag starts, its name and its attributes."""
    return [(fragment.count("\n", 0, start), tag, attrs) for start, _, tag, attrs in _StartTags(fragment).tags]


def _clean(parser: HTMLParser) -> bool:
    """Whether ``parser`` has taken all it was fed and is outside ``<script>``/``<style>``: then a fresh
    parser reads what follows exactly as it would (it holds no other state)."""
    return not parser.rawdata and parser.cdata_elem is None


def marked_tags(fragment: str) -> list[Tag]:
    """The start tags of ``fragment`` as :class:`_StartTags` finds them (offset, source, name, attributes),
    but those in long runs of :data:`PLAIN`: every tag with an attribute of :data:`REFERRING`.

    A run is skipped only where the parser stands between two tags, outside a script, a comment or an
    attribute, so that a fresh parser after it reads on exactly as one reading it would; elsewhere it
    is read as before. So a chapter's page is parsed for its hundred tags that matter, not for the
    thousands of its highlighted code and drawings.
    """
    tags: list[Tag] = []
    parser, fed = _StartTags(), 0
    for run in PLAIN.finditer(fragment):
        if run.end() - run.start() < PLAIN_RUN:
            continue
        parser.read(fragment[fed : run.start()])
        fed = run.start()
        if _clean(parser):
            tags += parser.tags
            parser, fed = _StartTags(base=run.end()), run.end()
    parser.read(fragment[fed:])
    parser.close()
    return [*tags, *parser.tags]


def referring_tags(fragment: str) -> tuple[Tag, ...]:
    """The start tags of ``fragment`` with an attribute of :data:`REFERRING`: all that the single file
    rewrites and the id checks read, found in one walk (:func:`marked_tags`) and kept with the page."""
    return tuple(tag for tag in marked_tags(fragment) if any(name in REFERRING for name, _ in tag[3]))


def ids_of(tags: Iterable[Tag]) -> list[str]:
    """The ids ``tags`` give their elements, in order, repeats included."""
    return [value for _, _, _, attrs in tags for name, value in attrs if name == "id" and value]


def element_ids(fragment: str) -> list[str]:
    """The ids of ``fragment``'s elements, in order, repeats included."""
    return ids_of(marked_tags(fragment))


Rewrite = Callable[[str, Attributes], Attributes | None]
"""Given a start tag's name and attributes, new attributes for it, or None to keep it as it is."""


def rewrite_attributes(fragment: str, rewrite: Rewrite, referring: bool = False) -> str:
    """``fragment`` with each start tag for which ``rewrite(tag, attrs)`` returns new attributes rebuilt;
    every other byte is kept as it was. With ``referring``, ``rewrite`` sees only the tags
    :func:`marked_tags` finds: for one that keeps every tag without an attribute of :data:`REFERRING`."""
    return rewrite_tags(fragment, marked_tags(fragment) if referring else _StartTags(fragment).tags, rewrite)[0]


def rewrite_tags(fragment: str, tags: Iterable[Tag], rewrite: Rewrite) -> tuple[str, list[str]]:
    """:func:`rewrite_attributes` with ``fragment``'s ``tags`` known; and the ids of ``tags`` once rewritten."""
    parts: list[str] = []
    ids: list[str] = []
    done = 0
    for start, source, tag, attrs in tags:
        changed = rewrite(tag, attrs)
        ids += ids_of([(start, source, tag, attrs if changed is None else changed)])
        if changed is None:
            continue
        written = "".join(f" {name}" if value is None else f' {name}="{html.escape(value)}"' for name, value in changed)
        closing = "/>" if source.endswith("/>") else ">"
        parts += [fragment[done:start], f"<{tag}{written}{closing}"]
        done = start + len(source)
    return "".join([*parts, fragment[done:]]), ids


def rewritten_ids(tags: Iterable[Tag], rewrite: Rewrite) -> list[str]:
    """The ids of ``tags`` once rewritten, as :func:`rewrite_tags` finds them, without the new HTML."""
    ids: list[str] = []
    for _, _, tag, attrs in tags:
        changed = rewrite(tag, attrs)
        ids += ids_of([(0, "", tag, attrs if changed is None else changed)])
    return ids


def in_turn(*rewrites: Rewrite) -> Rewrite:
    """One rewrite that applies ``rewrites`` one after the other, each to what the last made: the same
    as as many :func:`rewrite_attributes`, in one walk."""

    def rewrite(tag: str, attrs: Attributes) -> Attributes | None:
        changed = None
        for one in rewrites:
            again = one(tag, attrs if changed is None else changed)
            changed = changed if again is None else again
        return changed

    return rewrite


def prefixed(slug: str, value: str) -> str:
    return f"{slug}{SEPARATOR}{value}"


def id_prefixer(slug: str, chapters: Mapping[str, str]) -> Rewrite:
    """The rewrite that makes a chapter's HTML fit the single-file book: its ids, and every reference
    to one, prefixed.

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

    return rewrite


def duplicate_ids(
    md: MarkdownIt,
    tokens: Sequence[Token],
    body: str,
    path: str,
    env: Mapping[str, Any] | None = None,
    tags: Sequence[Tag] | None = None,
) -> list[ContentError]:
    """Every id that ``body`` (the chapter rendered from ``tokens``) holds twice, at the line of
    its second use, naming the first: two headings of the same text are told apart by the
    anchors plugin, but a lab's control or raw HTML may take an id a heading has. ``env`` is the
    one the chapter was rendered with (its labs' starting views); ``tags`` its :func:`referring_tags`,
    when known."""
    ids = element_ids(body) if tags is None else ids_of(tags)
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


def single_file_clashes(
    ids: Iterable[str], chapters: Mapping[str, ChapterSource], templates: Path
) -> list[ContentError]:
    """Ids the single-file book holds twice, of its ``ids`` (:func:`ids_around`), once chapters' ids are
    prefixed: only a slug that is also an id of the template can do that (or a template that repeats
    one of its own)."""
    errors: list[ContentError] = []
    for value, count in sorted(Counter(ids).items()):
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


Known = tuple[Callable[[], str], Sequence[str]]
"""A chapter of the single file: what makes its HTML, and the ids that HTML holds (:func:`rewrite_tags`)."""


def ids_around(around: Sequence[str], known: Sequence[Known]) -> list[str]:
    """The ids of the page ``around[0]``, the first ``known`` chapter, ``around[1]``, … ``around[-1]``
    (one more text than chapters): only the texts between the chapters are read. A chapter's ids are
    taken as given where the parser stands between two tags outside a script (as :func:`marked_tags`
    skips a run); elsewhere its HTML is made and read, so the page is never held whole."""
    ids: list[str] = []
    parser = _StartTags()
    for text, (made, made_ids) in zip(around, known, strict=False):
        parser.read(text)
        if _clean(parser):
            ids += [*ids_of(parser.tags), *made_ids]
            parser = _StartTags()
        else:
            parser.read(made())
    parser.read(around[-1])
    parser.close()
    return [*ids, *ids_of(parser.tags)]
