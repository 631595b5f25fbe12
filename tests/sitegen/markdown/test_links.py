"""Links inside the book land on a page the site has, at a heading that page has."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.anchors import anchors_plugin

from sitegen.book.assets import Asset
from sitegen.markdown.links import Targets, check_links, heading_ids, image_problem, link_problem
from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.lines import inline_lines_plugin

TARGETS = Targets(
    anchors={
        "index.html": frozenset(),
        "cache.html": frozenset({"prefill", "lab--the-next-request", "café"}),
        "intro.html": frozenset({"why"}),
    },
    sources={"cache.html": "content/03-cache.md", "intro.html": "content/01-intro.md"},
    files=frozenset({"static/kvpage.css"}),
    assets={
        "img/layout.svg": Asset("img/layout.svg", "content/img/layout.svg", b"<svg/>", "image/svg+xml", (40, 20)),
        "files/costs.csv": Asset("files/costs.csv", "content/files/costs.csv", b"1,2\n", "text/csv"),
    },
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
        "img/layout.svg",
        "./files/costs.csv#row=2",
        "img/../files/costs.csv",
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
        (
            "../cache.html",
            "it is outside the book's folder, and the site holds only the book's own files: "
            "move the file into content/",
        ),
        ("cahce.html", "the site has no page 'cahce.html' (did you mean 'cache.html'?)"),
        ("img/layuot.svg", "the book has no file 'img/layuot.svg' (did you mean 'img/layout.svg'?)"),
        ("files/nothing.csv", "the book has no file 'files/nothing.csv'"),
        ("static/missing.css", "the book has no file 'static/missing.css'"),
        (
            "file:///home/me/costs.csv",
            "a file: URL points into the author's own disk, not the book: put the file in content/",
        ),
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
    md = MarkdownIt("commonmark").use(inline_lines_plugin).use(anchors_plugin, min_level=2, max_level=3)
    text = (
        "## Prefill\n\nFirst [ok](#prefill) line,\nsecond `code\nspan` [bad](#nope),\n\n- item\n- [also bad](x.html)\n"
    )
    env = new_env("content/03-cache.md")
    tokens = md.parse(text, env)
    assert heading_ids(tokens) == frozenset({"prefill"})
    targets = Targets({"cache.html": heading_ids(tokens)}, {}, frozenset())
    check_links(tokens, env, "cache.html", targets)
    assert [str(error) for error in env.errors] == [
        "content/03-cache.md:5: link to '#nope': this chapter has no heading with the id 'nope'",
        "content/03-cache.md:8: link to 'x.html': the site has no page 'x.html'",
    ]


@pytest.mark.parametrize(
    ("src", "problem"),
    [
        ("img/layout.svg", None),
        ("./img/layout.svg#part", None),
        ("img/layout%2Esvg", None),
        ("img/layout.png", "the book has no file 'img/layout.png' (did you mean 'img/layout.svg'?)"),
        (
            "files/costs.csv",
            "'files/costs.csv' is not an image a page can show (PNG, JPEG, GIF, WebP or SVG: "
            ".gif, .jpeg, .jpg, .png, .svg, .webp)",
        ),
        (
            "../img/layout.svg",
            "it is outside the book's folder, and the site holds only the book's own files: "
            "move the file into content/",
        ),
        (
            "/img/layout.svg",
            "a path from the server's root breaks when the site is opened from disk; write a relative link",
        ),
        (
            "https://example.org/x.png",
            "an image must be a file of the book (the page loads nothing from outside itself): put it in content/",
        ),
        (
            "data:image/png;base64,AAAA",
            "an image must be a file of the book (the page loads nothing from outside itself): put it in content/",
        ),
        ("", "an image needs the path of its file"),
    ],
)
def test_images_are_files_of_the_book(src: str, problem: str | None) -> None:
    assert image_problem(src, TARGETS) == problem


def test_check_links_returns_the_files_used_and_sizes_the_images() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin)
    text = "See ![a drawing](img/layout.svg),\nthe [numbers](files/costs.csv) and [a page](cache.html).\n"
    env = new_env("content/03-cache.md")
    tokens = md.parse(text, env)
    assert check_links(tokens, env, "cache.html", TARGETS) == frozenset({"img/layout.svg", "files/costs.csv"})
    assert env.errors == []
    (image,) = [child for child in tokens[1].children or () if child.type == "image"]
    assert image.meta["size"] == (40, 20)


def test_a_broken_image_is_reported_at_its_own_line() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin)
    env = new_env("content/03-cache.md")
    tokens = md.parse("First line,\nsecond ![x](img/nope.svg) line.\n", env)
    assert check_links(tokens, env, "cache.html", TARGETS) == frozenset()
    assert [str(error) for error in env.errors] == [
        "content/03-cache.md:2: image 'img/nope.svg': the book has no file 'img/nope.svg'"
    ]


def test_raw_html_is_held_to_the_same_rules_and_its_files_ship() -> None:
    md = MarkdownIt("commonmark").use(inline_lines_plugin)
    text = (
        'Inline <img src="img/layout.svg" alt="a drawing">, and\n'
        'on its second line <a href="files/costs.cvs">numbers</a>.\n\n'
        "<figure>\n"
        '<img src="https://example.org/x.png" alt="remote">\n'
        '<a href="../clip.webm">a clip</a> <a href="files/costs.csv#top">ok</a>\n'
        "</figure>\n"
    )
    env = new_env("content/03-cache.md")
    tokens = md.parse(text, env)
    assert check_links(tokens, env, "cache.html", TARGETS) == frozenset({"img/layout.svg", "files/costs.csv"})
    assert [str(error) for error in env.errors] == [
        "content/03-cache.md:2: link to 'files/costs.cvs': the book has no file 'files/costs.cvs' "
        "(did you mean 'files/costs.csv'?)",
        "content/03-cache.md:5: image 'https://example.org/x.png': an image must be a file of the book "
        "(the page loads nothing from outside itself): put it in content/",
        "content/03-cache.md:6: link to '../clip.webm': it is outside the book's folder, and the site holds "
        "only the book's own files: move the file into content/",
    ]
