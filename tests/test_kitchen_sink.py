"""The kitchen-sink book (tests/books/kitchen-sink/) built: every construct in the page, every file it uses shipped.

What to expect is read from the chapter's Markdown with plain markdown-it (CommonMark, GFM
tables, mdit-py-plugins' dollarmath and footnotes), not from sitegen's rendering, and the
HTML is read with the standard library's parser: a construct the build dropped, or a file
it left behind, shows as a difference. The browsers read the same build in
tests/e2e/test_kitchen_sink.py and tests/browsers/.
"""

from __future__ import annotations

import base64
import re
import zipfile
from pathlib import Path
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from sitegen.runtime.names import RUNTIME_DIR
from sitegen.search.text import SEARCH_DIR
from sitegen.site.output import MANIFEST
from tests.conftest import KITCHEN_SINK, Built
from tests.pagetext import Elements

BOOK = KITCHEN_SINK
(CHAPTER,) = sorted(BOOK.glob("*.md"))


def source_tokens() -> list[Token]:
    md = MarkdownIt("commonmark").enable("table").use(dollarmath_plugin).use(footnote_plugin)
    return md.parse(CHAPTER.read_text(encoding="utf-8"))


def inline_children(kind: str) -> list[Token]:
    return [child for block in source_tokens() for child in block.children or () if child.type == kind]


def referenced_files() -> set[str]:
    """Every path of the book the chapter's images and links name."""
    paths = {str(child.attrs["src"]) for child in inline_children("image")}
    paths |= {str(child.attrs["href"]) for child in inline_children("link_open")}
    return {unquote(path) for path in paths if (BOOK / unquote(path)).is_file()}


def page(built: Built) -> str:
    return built.files["kitchen-sink.html"].decode("utf-8")


def test_the_fixture_uses_files_of_every_kind() -> None:
    suffixes = {Path(path).suffix for path in referenced_files()}
    assert {".svg", ".png", ".csv"} <= suffixes


def test_every_file_the_chapter_uses_is_in_the_site_and_the_zip(kitchen_sink: Built) -> None:
    files = referenced_files()
    with zipfile.ZipFile(kitchen_sink.zip) as archive:
        zipped = {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()}
    for path in files:
        assert (kitchen_sink.site / path).read_bytes() == (BOOK / path).read_bytes(), path
        assert zipped[path] == (BOOK / path).read_bytes(), path
    shipped = {
        path.relative_to(kitchen_sink.site).as_posix() for path in kitchen_sink.site.rglob("*") if path.is_file()
    }
    own = ("static/", f"{RUNTIME_DIR}/", f"{SEARCH_DIR}/", "index.html", MANIFEST)  # the site's own files
    assert {name for name in shipped if not name.startswith(own)} == {
        "kitchen-sink.html",
        *files,
    }


def test_every_image_has_its_alt_text_and_its_size(kitchen_sink: Built) -> None:
    images = Elements(page(kitchen_sink)).of("img")
    written = [(child.attrs["src"], child.content) for child in inline_children("image")]
    assert [(image["src"], image["alt"]) for image in images] == [
        (src, "" if alt == '""' else alt.replace("*", "")) for src, alt in written
    ]
    assert all(image["width"].isdigit() and image["height"].isdigit() for image in images)


def test_the_single_file_holds_every_file_as_a_data_uri(kitchen_sink: Built) -> None:
    single = Elements(kitchen_sink.single.read_text(encoding="utf-8"))
    for src in (image["src"] for image in single.of("img")):
        assert src.startswith("data:image/"), src[:40]
    inlined = {base64.b64decode(image["src"].split(",", 1)[1]) for image in single.of("img")}
    downloads = [link for link in single.of("a") if "download" in link]
    inlined |= {base64.b64decode(link["href"].split(",", 1)[1]) for link in downloads}
    assert inlined == {(BOOK / path).read_bytes() for path in referenced_files()}
    assert [link["download"] for link in downloads] == ["costs.csv"]


def test_every_construct_is_rendered_at_build_time(kitchen_sink: Built) -> None:
    html = page(kitchen_sink)
    # The chapter's own constructs: each lab's "Python" disclosure (its model's code) left out.
    elements = Elements(re.sub(r'<details class="lab-python".*?</details>', "", html, flags=re.S))
    tokens = source_tokens()
    formulas = [token for token in tokens if token.type == "math_block"] + inline_children("math_inline")
    assert len(elements.of("math")) == len(formulas)
    assert len(elements.of("table")) == len([token for token in tokens if token.type == "table_open"])
    regions = [attrs for attrs in elements.of("div") if attrs.get("class") == "table-scroll"]
    assert len(regions) == len(elements.of("table"))
    assert all(region["role"] == "region" and region["tabindex"] == "0" for region in regions)
    assert all(region.get("aria-label") or region.get("aria-labelledby") for region in regions)
    fences = [token for token in tokens if token.type == "fence"]
    assert len([pre for pre in elements.of("pre") if pre.get("class") == "code"]) == len(fences)
    assert len(elements.of("sup")) == len(inline_children("footnote_ref"))
    assert len(elements.of("figure")) == 1 and len(elements.of("figcaption")) == 1
    assert len(elements.of("dt")) == 2 and len(elements.of("input")) >= 2
    assert "<del>every step</del>" in html
    assert '<a href="http://www.example.com">www.example.com</a>' in html


def test_nothing_in_the_page_needs_an_inline_style(kitchen_sink: Built) -> None:
    elements = Elements(page(kitchen_sink))
    assert [tag for tag, attrs in elements.elements if "style" in attrs] == []
    stylesheets = [link["href"] for link in elements.of("link") if link.get("rel") == "stylesheet"]
    assert stylesheets == ["static/kvpage.css", "static/formulas.css"]
    assert kitchen_sink.files["static/formulas.css"].decode("utf-8").count("!important") >= 1
