"""What a chapter's raw HTML may do: mark up text, and nothing else.

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

So raw HTML is held to an allow-list, checked at build time and reported at its line,
rather than a deny-list: a list of what is dangerous is never complete (a new element or
attribute that loads or runs something would pass it), while a list of what marks up text
only grows by a decision. The elements are those of text, lists, tables, figures, links,
images and media; the attributes are those that describe, not act (no ``on*`` handler, no
``style``, which the policy ignores anyway, no ``srcset`` or ``poster``, which load files
the link checker does not see). A URL attribute may not hold a ``javascript:``,
``vbscript:`` or ``data:`` URL (what a browser reads as such, tabs and newlines ignored).
Refused elements are named with why, where a reason is worth more than "not allowed".

HTML is read with the standard library's tokenizer (:class:`html.parser.HTMLParser`), as
:mod:`sitegen.markdown.ids` reads it: it knows quoting, character references and that
``<script>``'s text is not tags, which regular expressions would get wrong, and it needs no
new dependency. A construct it is left holding at the end of a fragment (a comment, a tag
or a declaration that never closes) is what a browser would run on into the rest of the page.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

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
"""The elements raw HTML may use: text, lists, tables, figures, links, images and media."""
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
ALLOWED = "docs/authoring.md, 'What the build refuses', lists what raw HTML may use"


class _Checker(HTMLParser):
    """Every problem of one fragment of raw HTML: (lines into the fragment, message)."""

    def __init__(self, fragment: str) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[tuple[int, str]] = []
        self.refused: set[str] = set(REASONS)
        # Elements whose end tag says nothing new: their start tag is reported (or would be).
        self.feed(fragment)
        if self.rawdata.startswith("<"):  # the tokenizer waits for the rest of a construct that never comes
            self.problems.append((self.getpos()[0] - 1, unfinished(self.rawdata)))
        self.close()

    def problem(self, message: str) -> None:
        self.problems.append((self.getpos()[0] - 1, message))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ELEMENTS:
            self.refused.add(tag)
            self.problem(
                f"raw HTML <{tag}> is refused: {REASONS.get(tag, f'not an element a chapter may use ({ALLOWED})')}"
            )
            return
        allowed = GLOBAL_ATTRIBUTES | ATTRIBUTES.get(tag, set())
        for name, value in attrs:
            message = attribute_problem(tag, name, value or "", allowed)
            if message is not None:
                self.problem(message)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag not in ELEMENTS and tag not in self.refused:
            self.problem(f"raw HTML </{tag}> is refused: not an element a chapter may use ({ALLOWED})")

    def handle_decl(self, decl: str) -> None:
        self.problem(f"raw HTML <!{decl}> is refused: a declaration has no place in a chapter")

    def handle_pi(self, data: str) -> None:
        self.problem(f"raw HTML <?{data}> is refused: HTML reads it as a comment; write <!-- … --> for one")

    def unknown_decl(self, data: str) -> None:
        self.problem(f"raw HTML <![{data}]> is refused: HTML reads it as a comment; write <!-- … --> for one")


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
    if name not in allowed and not name.startswith("aria-"):
        return f"raw HTML <{tag}> may not have the attribute {name!r}; allowed: {', '.join(sorted(allowed))}, aria-*"
    return None


def raw_html_problems(fragment: str) -> list[tuple[int, str]]:
    """Every problem of ``fragment`` (an ``html_block`` or ``html_inline`` token's text): (lines into it, message)."""
    return _Checker(fragment).problems
