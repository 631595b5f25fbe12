"""Footnotes: numbered, listed at the end with a named way back, and a reference without its note is an error."""

from __future__ import annotations

from markdown_it import MarkdownIt

from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.footnotes import footnotes_plugin


def render(text: str) -> tuple[str, list[str]]:
    md = MarkdownIt("commonmark").use(footnotes_plugin)
    env = new_env("content/a.md")
    return md.render(text, env), [str(error) for error in env.errors]


def test_a_note_and_its_way_back() -> None:
    html, errors = render("Quadratic.[^sq]\n\n[^sq]: n tokens pay n² cells.\n")
    assert errors == []
    assert '<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>' in html
    assert '<a href="#fnref1" class="footnote-backref" aria-label="Back to reference 1">' in html


def test_a_reference_without_its_note_is_an_error_at_its_line() -> None:
    _, errors = render("One,\ntwo [^gone] and [^sq].\n\n[^sq]: defined.\n")
    assert errors == ["content/a.md:2: footnote [^gone] has no note: add a line '[^gone]: …' (after a blank line)"]


def test_inline_footnotes_are_not_gfm() -> None:
    assert render("Text^[inline] here.\n")[0] == "<p>Text^[inline] here.</p>\n"
