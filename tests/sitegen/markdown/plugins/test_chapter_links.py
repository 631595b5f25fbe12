"""``chapter:slug`` links: resolved to pages, or plain text with a warning at their line."""

from __future__ import annotations

from markdown_it import MarkdownIt

from sitegen.markdown.plugins.chapter_links import COMING, chapter_links_plugin
from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.lines import inline_lines_plugin


def test_links_resolve_or_become_plain_text_with_a_warning() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin).use(chapter_links_plugin, pages={"cache": "cache.html"})
    env = new_env("x.md")
    text = "See [the cache](chapter:cache#prefill)\nand [the harness](chapter:harness).\n"
    tokens = md.parse(text, env)
    html = md.renderer.render(tokens, md.options, env)
    assert html == '<p>See <a href="cache.html#prefill">the cache</a>\nand the harness.</p>\n'
    assert [str(warning) for warning in env.warnings] == [
        "x.md:2: chapter 'harness' is not in this book; the link renders as plain text"
    ]
    assert env.errors == []
    links = [child for child in tokens[1].children or [] if child.type == "link_open"]
    assert [link.meta["written"] for link in links] == ["chapter:cache#prefill"]


def test_a_link_to_a_planned_chapter_is_its_text_as_written_titled_coming_with_no_warning() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin)
    md.use(chapter_links_plugin, pages={"cache": "cache.html"}, planned=("harness",))
    env = new_env("x.md")
    html = md.render("Compaction ([harness *chapter*](chapter:harness#compaction)) and [x](chapter:tree).\n", env)
    assert html == (
        f'<p>Compaction (<span class="chapter-planned" title="{COMING}">harness <em>chapter</em></span>) and x.</p>\n'
    )
    assert [str(warning) for warning in env.warnings] == [
        "x.md:1: chapter 'tree' is not in this book; the link renders as plain text"
    ]
