"""Read a built page the way a reader does: its visible text, whitespace folded."""

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
