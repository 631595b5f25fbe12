"""A ``[`` that nothing closes is text at once; brackets that close still make links, images and fields."""

from __future__ import annotations

import pytest
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_inline import StateInline

from sitegen.markdown.pages import make_markdown
from sitegen.markdown.plugins.env import new_env

UNCLOSED = 3_000
"""Brackets on one line. markdown-it looked for a label's end from each, about 21 steps of its
inline parser each (``skipToken``; 83,951 for 4,000): a million took 46 s in a build. The time
itself is a benchmark's to measure; the test counts the parser's steps, which do not depend on
how busy the machine is."""


def render(text: str) -> str:
    return make_markdown({}).render(text, new_env("x.md"))


def test_a_line_of_unclosed_brackets_is_text_at_once_and_closed_ones_still_link(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps: list[int] = []
    skip = ParserInline.skipToken

    def counted(parser: ParserInline, state: StateInline) -> None:
        steps.append(state.pos)
        skip(parser, state)

    monkeypatch.setattr(ParserInline, "skipToken", counted)
    html = render("[" * UNCLOSED + " and ![ text\n")
    assert len(steps) < UNCLOSED  # no look for a label's end from each "[" (about 21 steps each before)
    assert html == "<p>" + "[" * UNCLOSED + " and ![ text</p>\n"
    # Only brackets after the paragraph's last "]" are skipped: those before still open what they open.
    expected = '<p>[<a href="b.html">a</a> [ <img src="y.png" alt="x"> [</p>\n'
    assert render("[[a](b.html) [ ![x](y.png) [") == expected
    assert render("[^n] [\n\n[^n]: Note.\n").count('class="footnote-ref"') == 1
