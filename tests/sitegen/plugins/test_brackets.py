"""A ``[`` that nothing closes is text at once; brackets that close still make links, images and fields."""

from __future__ import annotations

import time

from sitegen.pages import make_markdown
from sitegen.plugins.env import new_env

UNCLOSED = 300_000
"""Brackets on one line: markdown-it took about 10 s for them (a million took 46 s in a build)."""
AT_ONCE = 2.0
"""Seconds they may take now (they take a few milliseconds: a bound that a busy machine keeps)."""


def render(text: str) -> str:
    return make_markdown({}).render(text, new_env("x.md"))


def test_a_line_of_unclosed_brackets_is_text_at_once_and_closed_ones_still_link() -> None:
    started = time.monotonic()
    html = render("[" * UNCLOSED + " and ![ text\n")
    assert time.monotonic() - started < AT_ONCE
    assert html == "<p>" + "[" * UNCLOSED + " and ![ text</p>\n"
    # Only brackets after the paragraph's last "]" are skipped: those before still open what they open.
    expected = '<p>[<a href="b.html">a</a> [ <img src="y.png" alt="x"> [</p>\n'
    assert render("[[a](b.html) [ ![x](y.png) [") == expected
    assert render("[^n] [\n\n[^n]: Note.\n").count('class="footnote-ref"') == 1
