"""Links inside the book land on a page the site has, at a heading that page has."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from sitegen.links import Targets, check_links, heading_ids, link_problem
from sitegen.plugins.env import new_env
from sitegen.plugins.lines import link_lines_plugin

TARGETS = Targets(
    anchors={
        "index.html": frozenset(),
        "cache.html": frozenset({"prefill", "lab--the-next-request", "café"}),
        "intro.html": frozenset({"why"}),
    },
    sources={"cache.html": "content/03-cache.md", "intro.html": "content/01-intro.md"},
    files=frozenset({"static/kvpage.css"}),
)


@pytest.mark.parametrize(
    "href",
    [
        "",
        "#prefill",
        "#caf%C3%A9",
        "cache.html",
        "./cache.html#prefill",
        "intro.html#why",
        "index.html",
        "static/kvpage.css",
        "static/kvpage.css#anything",
        "https://example.org/missing#nowhere",
        "mailto:someone@example.org",
        "//example.org/page",
    ],
)
def test_links_that_land(href: str) -> None:
    assert link_problem(href, "cache.html", TARGETS) is None


@pytest.mark.parametrize(
    ("href", "problem"),
    [
        ("#prefil", "this chapter has no heading with the id 'prefil' (did you mean 'prefill'?)"),
        ("#zzz", "this chapter has no heading with the id 'zzz'"),
        ("intro.html#how", "content/01-intro.md has no heading with the id 'how'"),
        ("index.html#top", "index.html has no heading with the id 'top'"),
        ("other.html", "the site has no page 'other.html'"),
        ("../cache.html", "the site has no page '../cache.html'"),
        ("static/missing.css", "the site has no page 'static/missing.css'"),
        (
            "/cache.html",
            "a path from the server's root breaks when the site is opened from disk; write a relative link",
        ),
    ],
)
def test_links_that_lead_nowhere(href: str, problem: str) -> None:
    assert link_problem(href, "cache.html", TARGETS) == problem


def test_an_unreadable_chapter_may_be_the_missing_page() -> None:
    incomplete = Targets(TARGETS.anchors, TARGETS.sources, TARGETS.files, complete=False)
    assert link_problem("other.html", "cache.html", incomplete) is None
    assert link_problem("intro.html#how", "cache.html", incomplete) is not None


def test_check_links_reports_each_at_its_line() -> None:
    md = MarkdownIt("commonmark").use(link_lines_plugin).use(anchors_plugin, min_level=2, max_level=3)
    text = (
        "## Prefill\n\nFirst [ok](#prefill) line,\nsecond `code\nspan` [bad](#nope),\n\n- item\n- [also bad](x.html)\n"
    )
    env = new_env("content/03-cache.md")
    tokens = md.parse(text, env)
    assert heading_ids(tokens) == frozenset({"prefill"})
    targets = Targets({"cache.html": heading_ids(tokens)}, {}, frozenset())
    check_links(tokens, env, "cache.html", targets)
    assert [str(error) for error in env["errors"]] == [
        "content/03-cache.md:5: link to '#nope': this chapter has no heading with the id 'nope'",
        "content/03-cache.md:8: link to 'x.html': the site has no page 'x.html'",
    ]
