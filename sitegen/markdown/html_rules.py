"""What a chapter's raw HTML may do: mark up text, and nothing else.

The page's Content-Security-Policy does not stop all that an author's HTML can do, so raw HTML is
held to an allow-list at build time, read as a browser reads it (decision 0050; ``<!-->``: decision
0059) and written out again from the tokens checked. What and why: :func:`check_raw_html`, :data:`ELEMENTS`.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from sitegen.markdown.html_tokens import TEXT_STATES, HtmlToken, tokenize

ELEMENTS = frozenset(
    {
        *("a", "abbr", "b", "bdi", "bdo", "br", "cite", "code", "data", "del", "dfn", "em", "i", "ins", "kbd"),
        *("mark", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u"),
        *("var", "wbr", "img", "picture", "map", "area", "audio", "video", "source", "track"),
        *("address", "article", "aside", "blockquote", "details", "div", "dl", "dt", "dd", "figure"),
        *("figcaption", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "li"),
        *("nav", "ol", "p", "pre", "section", "summary", "ul"),
        *("caption", "col", "colgroup", "table", "tbody", "td", "tfoot", "th", "thead", "tr"),
    }
)
"""The elements raw HTML may use: text, lists, tables, figures, links, images and media.

Raw HTML is held to an allow-list, checked at build time and reported at its line,
rather than a deny-list: a list of what is dangerous is never complete (a new element or
attribute that loads or runs something would pass it), while a list of what marks up text
only grows by a decision. The elements are those of text, lists, tables, figures, links,
images and media; the attributes are those that describe, not act (no ``on*`` handler, no
``style``, which the policy ignores anyway, no ``srcset`` or ``poster``, which load files
the link checker does not see). A URL attribute may not hold a ``javascript:``,
``vbscript:`` or ``data:`` URL (what a browser reads as such, tabs and newlines ignored).
Refused elements are named with why, where a reason is worth more than "not allowed".
"""
GLOBAL_ATTRIBUTES = frozenset({"id", "class", "title", "lang", "dir", "translate", "hidden", "role", "tabindex"})
"""Attributes every allowed element may have, besides ``aria-*``."""
ATTRIBUTES = {
    "a": {"href", "hreflang", "rel", "type", "download", "target"},
    "area": {"href", "alt", "shape", "coords", "rel", "download", "target"},
    "audio": {"src", "controls", "loop", "muted", "preload"},
    "blockquote": {"cite"},
    "col": {"span"},
    "colgroup": {"span"},
    "data": {"value"},
    "del": {"cite", "datetime"},
    "details": {"open", "name"},
    "img": {"src", "alt", "width", "height", "loading", "decoding", "usemap"},
    "ins": {"cite", "datetime"},
    "li": {"value"},
    "map": {"name"},
    "ol": {"start", "reversed", "type"},
    "q": {"cite"},
    "source": {"src", "type", "media"},
    "td": {"colspan", "rowspan", "headers"},
    "th": {"colspan", "rowspan", "headers", "scope", "abbr"},
    "time": {"datetime"},
    "track": {"src", "kind", "srclang", "label", "default"},
    "video": {"src", "controls", "loop", "muted", "preload", "width", "height", "playsinline"},
}
"""The attributes each element may have besides the global ones (``href``, ``src`` are checked as links)."""
URL_ATTRIBUTES = frozenset(
    {
        *("href", "src", "cite", "action", "formaction", "xlink:href", "poster", "background", "data"),
        *("codebase", "longdesc", "srcset", "ping", "manifest", "usemap", "lowsrc", "dynsrc", "icon"),
    }
)
"""Attributes a browser reads as a URL: a ``javascript:`` one there runs when followed."""
UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:")
SPACES = re.compile(r"[\x00-\x20]+")
"""What a browser drops from a URL before reading its scheme (``java\tscript:`` is ``javascript:``)."""
NO_CODE = "a chapter runs no code of its own (the labs are the page's only script)"
HIDES = "a browser reads everything after it as its text, so it would hide the rest of the page"
REASONS = {
    "script": f"{NO_CODE}, and its text hides the rest of the page if unclosed",
    "meta": '<meta http-equiv="refresh"> sends the reader to another page, which the page\'s policy cannot stop',
    "base": "it would change where every link and image of the page leads",
    "link": "it would load a file the page does not check",
    "form": "a form would send what the reader types somewhere; the labs are the page's controls",
    **dict.fromkeys(
        ("iframe", "frame", "frameset", "object", "embed", "applet", "portal", "fencedframe"),
        "it would load another document or plug-in into the page",
    ),
    **dict.fromkeys(("textarea", "title", "style", "xmp", "noscript", "noembed", "noframes", "plaintext"), HIDES),
}
"""Why some elements are refused, where that says more than "not allowed"."""
ALLOWED = "docs/refusals.md, 'Raw HTML', lists what raw HTML may use"


VOID = frozenset({"area", "br", "col", "hr", "img", "source", "track", "wbr"})
"""The allowed elements that have no end tag: written ``<br>``."""
OPTIONAL_END = frozenset(
    {*("p", "li", "dt", "dd", "rt", "rp", "caption", "colgroup", "thead", "tbody", "tfoot", "tr", "td", "th")}
)
"""Allowed elements whose end tag HTML lets an author leave out (the next one closes them), and whose
stray end tag opens nothing: they are not held to being closed in the chapter."""
ARIA = re.compile(r"aria-[a-z]+\Z")
EARLY = "for a browser, which reads what follows as the page's HTML; end a comment with '-->' alone"
EMPTY = (
    "raw HTML comment {shown!r} is a complete, empty comment: it ends where it opens, and what follows is "
    "the page's text and HTML; to hide text, write <!-- text -->"
)
"""The warning for ``<!-->`` and ``<!--->``: standard, but rarely what the author meant."""
AS_COMMENT = "HTML reads it as a comment; write <!-- … --> for one"


@dataclass(frozen=True)
class CheckedHtml:
    """A fragment of raw HTML checked: every problem (lines into it, message), and the fragment
    written out again from the tokens that were checked (what the page gets)."""

    html: str
    problems: tuple[tuple[int, str], ...]
    tags: tuple[tuple[int, str, str], ...] = ()
    """The tags of allowed elements, in order: (lines into the fragment, start or end, element)."""
    warnings: tuple[tuple[int, str], ...] = ()
    """What is allowed but likely not meant (an empty comment ``<!-->``): lines into it, message."""


def check_raw_html(fragment: str) -> CheckedHtml:
    """Tokenize ``fragment`` as a browser does, check every token, and write the checked ones out.

    Markdown lets an author write HTML, and the build copies it into the page as written. The
    page's Content-Security-Policy (:mod:`sitegen.site.csp`) stops inline script, but not all that
    HTML can do: ``<script src="files/x.js">`` is a script of the site's own (``'self'``), a
    ``<meta http-equiv="refresh">`` sends the reader to another site over http, from disk and
    in the single file alike, a ``<base>`` turns every link of the page elsewhere. And some
    HTML hides the rest of the page without a word: a browser reads everything after an
    unclosed ``<!--`` as a comment, after ``<textarea>``, ``<title>``, ``<style>``, ``<xmp>``,
    ``<noscript>``, ``<iframe>``, ``<noembed>``, ``<noframes>`` or ``<script>`` as that element's
    text up to its end tag, and after ``<plaintext>`` as text to the end of the document: the
    chapter's later sections, its labs and the links to the next chapter are gone.

    HTML is read as a browser reads it, by the HTML standard's tokenizer (:mod:`sitegen.markdown.html_tokens`,
    docs/decisions/0050-raw-html-read-by-the-standards-tokenizer.md): Python's own parser ended a comment
    later than a browser, so ``<!--><script …>-->`` was a comment to the check and a script to the
    page. A construct left open at the end of a fragment (a comment, a tag) is what a browser would
    run on into the rest of the page, and a comment ended at ``--!>`` would show the page what the
    author meant to hide: both are errors. ``<!-->`` and ``<!--->`` are complete empty comments, to
    HTML and CommonMark alike, so they are accepted and what follows them is checked as the HTML it
    is; but an author who wrote one likely meant a longer comment, so each is a warning at its line
    (an error under ``--strict``), docs/decisions/0059-empty-comments-are-comments.md.

    The page never gets the author's text itself: a start tag is written from its name and
    attributes, text with ``&``, ``<`` and ``>`` escaped, so the browser reads exactly the tokens
    checked here (and Python's parser, which reads the page later for ids and links, reads the
    same). A tag keeps the lines it spanned, so later checks still report at the author's line.
    """
    read = tokenize(fragment)
    problems: list[tuple[int, str]] = []
    warnings: list[tuple[int, str]] = []
    written: list[str] = []
    tags: list[tuple[int, str, str]] = []
    refused = set(REASONS)
    text_of = ""  # a refused element whose content a browser reads as text: left out with it
    for token in read.tokens:
        if read.unfinished is not None and token.start >= read.unfinished:
            break
        found = token_problems(token, refused)
        problems += [(fragment.count("\n", 0, token.start), message) for message in found]
        if token.kind == "comment" and token.source.lstrip() in ("<!-->", "<!--->"):
            warnings.append((fragment.count("\n", 0, token.start), EMPTY.format(shown=token.source.lstrip())))
        if token.kind == "start" and token.name in TEXT_STATES:
            text_of = token.name
        elif token.kind == "end" and token.name == text_of:
            text_of = ""
        elif not found and not text_of and (token.kind != "end" or token.name in ELEMENTS):
            written.append(write(token))
        if token.kind in ("start", "end") and token.name in ELEMENTS and not text_of:
            tags.append((fragment.count("\n", 0, token.start), token.kind, token.name))
    if read.unfinished is not None:
        problems.append((fragment.count("\n", 0, read.unfinished), unfinished(fragment[read.unfinished :])))
    return CheckedHtml("".join(written), tuple(problems), tuple(tags), tuple(warnings))


def token_problems(token: HtmlToken, refused: set[str]) -> list[str]:
    """What is wrong with one token (``refused``: the elements whose end tag needs no word of its own)."""
    shown = token.source.lstrip().split("\n", 1)[0][:60]
    if token.kind == "start":
        return start_tag_problems(token, refused)
    if token.kind == "end" and token.name not in ELEMENTS and token.name not in refused:
        return [f"raw HTML </{token.name}> is refused: not an element a chapter may use ({ALLOWED})"]
    if token.kind == "doctype" or (token.kind == "comment" and shown.startswith("<!") and shown[2:4] != "--"):
        if shown.startswith("<!["):
            return [f"raw HTML {shown} is refused: {AS_COMMENT}"]
        return [f"raw HTML {shown} is refused: a declaration has no place in a chapter"]
    if token.kind == "comment" and not shown.startswith("<!--"):
        return [f"raw HTML {shown} is refused: {AS_COMMENT}"]
    if token.kind == "comment" and token.source.endswith("--!>"):
        return [f"raw HTML comment {shown!r} ends at '--!>' {EARLY}"]
    if token.kind == "comment" and token.source.lstrip() not in (f"<!--{token.data}-->", "<!-->", "<!--->"):
        return [unfinished(token.source.lstrip())]  # ended by the fragment's end, after a refused element's text
    return []


def start_tag_problems(token: HtmlToken, refused: set[str]) -> list[str]:
    """Why a start tag may not be in a chapter: its element, or each attribute it may not have."""
    tag = token.name
    if tag not in ELEMENTS:
        refused.add(tag)
        return [f"raw HTML <{tag}> is refused: {REASONS.get(tag, f'not an element a chapter may use ({ALLOWED})')}"]
    allowed = GLOBAL_ATTRIBUTES | ATTRIBUTES.get(tag, set())
    found = (attribute_problem(tag, name, value, allowed) for name, value in token.attrs)
    return [message for message in found if message is not None]


def write(token: HtmlToken) -> str:
    """A checked token as HTML whose every reader gets that token back, on as many lines as it was written."""
    if token.kind == "text":
        return html.escape(token.data, quote=False)
    if token.kind == "comment":
        return f"<!--{token.data}-->"
    lines = "\n" * (token.source.count("\n") - sum(value.count("\n") for _, value in token.attrs))
    if token.kind == "end":
        return f"</{token.name}{lines}>"
    attributes = "".join(f" {name}" if not value else f' {name}="{html.escape(value)}"' for name, value in token.attrs)
    return f"<{token.name}{attributes}{lines}>"


def unfinished(rest: str) -> str:
    """What to say about a construct raw HTML opens and never closes."""
    if rest.startswith("<!--"):
        return "raw HTML comment '<!--' is not closed: a browser would hide the rest of the page in it; add '-->'"
    opening = rest.split("\n", 1)[0][:40]
    return f"raw HTML {opening!r} is not closed: a browser would read the rest of the page into it; close it with '>'"


def attribute_problem(tag: str, name: str, value: str, allowed: frozenset[str]) -> str | None:
    """Why ``name="value"`` may not be on ``<tag>``, or None."""
    if name.startswith("on"):
        return f"raw HTML <{tag}> has the event-handler attribute {name!r}: {NO_CODE}"
    scheme = SPACES.sub("", value).lower()
    if name in URL_ATTRIBUTES and scheme.startswith(UNSAFE_SCHEMES):
        unsafe = next(prefix for prefix in UNSAFE_SCHEMES if scheme.startswith(prefix))
        return f"raw HTML <{tag}> {name}= holds a {unsafe} URL: it could run code; link to a page or a file of the book"
    if name == "style":
        return f"raw HTML <{tag}> has a style attribute: the page's policy ignores inline styles; use a class"
    if name not in allowed and not ARIA.match(name):
        return f"raw HTML <{tag}> may not have the attribute {name!r}; allowed: {', '.join(sorted(allowed))}, aria-*"
    return None
