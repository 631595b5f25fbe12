"""A chapter's raw HTML is checked where Markdown hands it over, block or inline, each problem at its line."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin

from sitegen.markdown.html_rules import NO_CODE
from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.lines import inline_lines_plugin
from sitegen.markdown.plugins.raw_html import CLOSES_NOTHING, LEFT_OPEN, UNCLOSED_PRE, raw_html_plugin


def errors_of(text: str) -> list[str]:
    md = MarkdownIt("commonmark").use(tasklists_plugin, label=True).use(inline_lines_plugin).use(raw_html_plugin)
    env = new_env("content/a.md")
    md.parse(text, env)
    return [str(error) for error in env.errors]


def test_inline_and_block_html_are_reported_at_their_lines() -> None:
    text = (
        'A paragraph\nwith <b>bold</b> text\nand <span onclick="x">a handler</span>.\n\n'
        "- item\n\n  <script>\n  x\n  </script>\n"
    )
    assert errors_of(text) == [
        f"content/a.md:3: raw HTML <span> has the event-handler attribute 'onclick': {NO_CODE}",
        f"content/a.md:7: raw HTML <script> is refused: {NO_CODE}, and its text hides the rest of the page if unclosed",
    ]


def test_an_unclosed_pre_block_takes_the_rest_of_the_chapter() -> None:
    assert errors_of("Text.\n\n<pre>\nkept as written\n\n## Later\n") == [f"content/a.md:3: {UNCLOSED_PRE}"]
    assert errors_of("<pre>\nkept as written\n</pre>\n\n## Later\n") == []


def test_markdown_that_only_looks_like_html_is_text() -> None:
    assert errors_of("2 < 3 and `<script>` and\n\n```html\n<iframe>\n```\n") == []


def test_html_other_plugins_make_is_not_the_authors() -> None:
    """The task list's checkbox is a <label> and an <input>, made after inline parsing by mdit-py-plugins."""
    assert errors_of("- [x] Write the chapter\n- [ ] Add the harness chapter\n") == []


def test_a_comment_must_close_in_the_fragment_that_opens_it() -> None:
    """A blank line ends Markdown's HTML block: a comment closed after it would hide the Markdown between."""
    text = "<div>\n<!-- opened here\n\nMarkdown between, closed -->\n</div>\n"
    assert errors_of(text) == [
        "content/a.md:2: raw HTML comment '<!--' is not closed: a browser would hide the rest of the page in it; "
        "add '-->'"
    ]


def test_the_page_gets_the_html_as_checked() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin).use(raw_html_plugin)
    text = "A <KBD Class='key'>Ctrl</KBD> key.\n\n<DIV ID=note\n  TITLE=\"a &amp; b\">\n<!-- kept -->\n</DIV>\n"
    assert md.render(text, new_env("content/a.md")) == (
        '<p>A <kbd class="key">Ctrl</kbd> key.</p>\n<div id="note" title="a &amp; b"\n>\n<!-- kept -->\n</div>\n'
    )


def test_an_element_must_close_in_its_chapter_and_close_only_what_it_opened() -> None:
    """A <details> may hold Markdown between two blocks; one left open would hold (and hide) the rest."""
    assert errors_of("<details>\n<summary>More</summary>\n\nMarkdown inside.\n\n</details>\n\nAfter.\n") == []
    assert errors_of("Text.\n\n<div hidden>\n\n## The rest\n\nHidden.\n") == [
        f"content/a.md:3: {LEFT_OPEN.format(name='div')}"
    ]
    assert sorted(errors_of("A <a href='#x'>link, never closed.\n\nNext.\n\n</article>\n")) == [
        f"content/a.md:1: {LEFT_OPEN.format(name='a')}",
        f"content/a.md:5: {CLOSES_NOTHING.format(name='article')}",
    ]
