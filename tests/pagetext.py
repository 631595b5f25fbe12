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
