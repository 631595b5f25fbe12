"""Read a built page the way a reader does (its visible text, whitespace folded) or a checker does (its elements)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

SKIP = {"script", "style", "head", "title"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIP:
            self.skipping += 1
        elif tag in {"p", "li", "h1", "h2", "h3", "div", "label", "output", "aside", "section", "textarea"}:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in SKIP:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def visible_text(html: str) -> str:
    """The page's text in document order, whitespace runs folded to one space."""
    parser = _Text()
    parser.feed(html)
    return re.sub(r"\s+", " ", "".join(parser.parts)).strip()


class Elements(HTMLParser):
    """Each element's tag and attributes, in document order."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))

    def ids(self) -> list[str]:
        return [attrs["id"] for _, attrs in self.elements if "id" in attrs]

    def of(self, tag: str) -> list[dict[str, str]]:
        """The attributes of every ``tag`` element, in order."""
        return [attrs for found, attrs in self.elements if found == tag]

    def attribute(self, name: str, tag: str | None = None) -> list[str]:
        return [attrs[name] for found, attrs in self.elements if name in attrs and tag in (None, found)]


class _JSONScripts(HTMLParser):
    """The text of each ``<script type="application/json" id=ID>`` (a script's text is never parsed as markup)."""

    def __init__(self, wanted: str) -> None:
        super().__init__()
        self.wanted = wanted
        self.found: list[str] = []
        self.inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs)
        self.inside = tag == "script" and given.get("type") == "application/json" and given.get("id") == self.wanted
        if self.inside:
            self.found.append("")

    def handle_endtag(self, tag: str) -> None:
        self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.found[-1] += data


def json_scripts(html: str, wanted: str) -> list[str]:
    """The text of every JSON ``<script>`` whose id is ``wanted``, in document order."""
    parser = _JSONScripts(wanted)
    parser.feed(html)
    parser.close()
    return parser.found


HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
BLOCKS = frozenset({"p", "li", "td", "th", "caption", "figcaption", "dt", "dd", "pre", *HEADINGS})
NOT_PROSE = frozenset({"script", "style", "math", "svg"})
"""Elements whose text is not the author's words as written: a formula's MathML says its TeX in other
symbols, and a drawing's marks have no words."""
DRAWN = frozenset({"lab-body", "python-yours", "lab-python", "lab-python-print", "footnote-ref", "footnote-backref"})
"""Classes of what the build draws around the author's words: a lab's controls, readouts and pictures
and its Python disclosure (its template's) with the line printed in its place, and a footnote's
number and way back."""
UNREAD_IN_FIGURES = {"model-figure": False, "figure": True}
"""Which part of a figure is left out, by the figure's class: a ``::: figure``'s drawing (its words
are the model's; its caption is the author's), and an image's caption, its title, which search does
not read (docs/authoring.md, "Search": an image's alt text is what it finds)."""
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
WORD = re.compile(r"\w+")


class _Runs(HTMLParser):
    """The words of a page's prose in runs: a run ends where a block (a paragraph, a cell, a list item,
    a heading…) starts or ends, and at what is not prose (a formula, a drawing, a lab's controls)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.runs: list[list[str]] = [[]]
        self.open: list[tuple[str, bool | None, bool]] = []
        """Each open element's tag, for a figure of UNREAD_IN_FIGURES whether its caption is unread, and
        whether the words inside it are left out."""

    def cut(self) -> None:
        if self.runs[-1]:
            self.runs.append([])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        _, unread_caption, hidden = self.open[-1] if self.open else ("", None, False)
        in_figure = unread_caption is not None and unread_caption == (tag == "figcaption")
        figure = next((UNREAD_IN_FIGURES[name] for name in classes & UNREAD_IN_FIGURES.keys()), None)
        hidden = hidden or tag in NOT_PROSE or bool(classes & DRAWN) or in_figure
        self.open.append((tag, figure if tag == "figure" else None, hidden))
        if tag in BLOCKS or hidden:
            self.cut()

    def handle_endtag(self, tag: str) -> None:
        if any(found == tag for found, _, _ in self.open):
            while self.open.pop()[0] != tag:
                pass
        if tag in BLOCKS or tag in NOT_PROSE:
            self.cut()

    def handle_data(self, data: str) -> None:
        if not (self.open and self.open[-1][2]):
            self.runs[-1].extend(WORD.findall(data))


def prose_runs(html: str) -> list[list[str]]:
    """The author's words on a rendered page, in document order, cut into runs that each hold words
    the author wrote together (read by an HTML parser: what the build made of the Markdown)."""
    parser = _Runs()
    parser.feed(html)
    parser.close()
    return [run for run in parser.runs if run]


class _Headings(HTMLParser):
    """The text of every heading with an id."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: dict[str, str] = {}
        self.inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = dict(attrs).get("id")
        if tag in HEADINGS and given:
            self.inside = given
            self.found[given] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag in HEADINGS:
            self.inside = None

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.found[self.inside] += data


def headings(html: str) -> dict[str, str]:
    """Each heading's text (whitespace folded) by its id, in document order."""
    parser = _Headings()
    parser.feed(html)
    parser.close()
    return {anchor: re.sub(r"\s+", " ", text).strip() for anchor, text in parser.found.items()}


def meta_description(html: str) -> str:
    """The page's ``<meta name="description">``."""
    (found,) = [attrs["content"] for attrs in Elements(html).of("meta") if attrs.get("name") == "description"]
    return found
