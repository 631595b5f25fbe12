"""A chapter's raw HTML read as a browser reads it: the HTML standard's tokenizer, by tinyhtml5.

Python's own parser ends a comment later than a browser, so an allow-list checked on its reading let
through what the browser then ran (decision 0050). This is the only module that talks to tinyhtml5
(untyped); how its tokenizer is used alone: :func:`tokenize`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinyhtml5.constants import Token  # type: ignore[import-untyped]
from tinyhtml5.tokenizer import HTMLTokenizer  # type: ignore[import-untyped]

TEXT_STATES = {
    **dict.fromkeys(("textarea", "title"), "rcdata_state"),
    **dict.fromkeys(("style", "xmp", "iframe", "noembed", "noframes", "noscript"), "rawtext_state"),
    "script": "script_data_state",
    "plaintext": "plaintext_state",
}
"""The elements whose content a browser tokenizes as text, and the tokenizer's state for it (the
standard's tree construction, "generic raw text/RCDATA element parsing"; ``<noscript>`` so
since a browser runs scripts)."""
KINDS = {
    Token.START_TAG: "start",
    Token.END_TAG: "end",
    Token.CHARACTERS: "text",
    Token.SPACE_CHARACTERS: "text",
    Token.COMMENT: "comment",
    Token.DOCTYPE: "doctype",
}
AT_END = "expected-closing-tag-but-got-eof"
"""The one "end of input" error that leaves nothing open: ``</`` at the end is text."""
DROPPED = "expected-closing-tag-but-got-right-bracket"
"""``</>``, which a browser drops: no token, and the next one starts after it."""


@dataclass(frozen=True)
class HtmlToken:
    """One token: ``kind`` is start, end, text, comment or doctype; ``source`` its text as written."""

    kind: str
    start: int
    source: str
    name: str = ""
    attrs: tuple[tuple[str, str], ...] = ()
    data: str = ""


@dataclass(frozen=True)
class Tokens:
    """A fragment's tokens, and where a construct left open at its end starts (None if none is)."""

    tokens: tuple[HtmlToken, ...]
    unfinished: int | None


def tokenize(fragment: str) -> Tokens:
    """``fragment`` tokenized from the data state, as a browser reads it at that point of a page.

    Python's :class:`html.parser.HTMLParser` is not the standard's tokenizer: it ends a comment later
    than a browser does (``<!--><script …>-->`` is one comment to it, an empty comment and a script
    to a browser), so an allow-list checked on its reading let through what the browser then ran.
    The standard's tokenizer is a state machine with one answer for every input, and browsers
    implement it exactly; tinyhtml5 is a maintained implementation of it in Python (why this one:
    docs/decisions/0050-raw-html-read-by-the-standards-tokenizer.md). Its ``HTMLTokenizer`` is used
    alone, without its tree builder, since a fragment of raw HTML is only part of a page: what a
    passing fragment may hold never needs the tree builder's help. The one way the tree builder
    steers the tokenizer is the elements whose content is text (``<textarea>``, ``<style>``,
    ``<script>``, ``<plaintext>``, …), all refused; after one, the tokenizer is switched as a
    browser's is, so that what follows is read as that element's text, not as tags.

    The tokens are typed, each with where it starts in the fragment and its text there, and with
    where a construct left open at the end starts.
    """
    starts = [0, *(index + 1 for index, char in enumerate(fragment) if char == "\n")]
    tokenizer = HTMLTokenizer(fragment)
    found: list[HtmlToken] = []
    begin = 0
    unfinished: int | None = None
    as_text = False
    for raw in tokenizer:
        line, column = tokenizer.stream.position()
        end = starts[min(line, len(starts)) - 1] + column
        if raw["type"] == Token.PARSE_ERROR:
            error = str(raw["data"]).lower()
            if "eof" in error and error != AT_END and not as_text:
                unfinished = begin
            elif error == DROPPED:
                begin = end
            continue
        token = typed(raw, begin, fragment[begin:end])
        found.append(token)
        begin = end
        if token.kind == "start" and token.name in TEXT_STATES:
            tokenizer.state = getattr(tokenizer, TEXT_STATES[token.name])
            as_text = True
    return Tokens(tuple(found), unfinished)


def typed(raw: dict[str, Any], start: int, source: str) -> HtmlToken:
    """tinyhtml5's token (a dict) as an :class:`HtmlToken`."""
    kind = KINDS[raw["type"]]
    if kind in ("start", "end"):
        data = raw["data"]
        pairs = data.items() if isinstance(data, dict) else data
        attrs = tuple((str(name), str(value)) for name, value in pairs)
        return HtmlToken(kind, start, source, name=str(raw["name"]), attrs=attrs)
    if kind == "doctype":
        return HtmlToken(kind, start, source, name=str(raw.get("name") or ""))
    return HtmlToken(kind, start, source, data=str(raw["data"]))
