"""The pages stage and the book's files: used ones ride along, unused ones are warned of, none replaces the site's."""

from __future__ import annotations

from pathlib import Path

from sitegen.book.assets import load_assets
from sitegen.book.source import load_source
from sitegen.labs.stage import starting_views
from sitegen.markdown.mathml import STYLESHEET
from sitegen.markdown.pages import Pages, parse_chapters, render_pages
from sitegen.site.templates import make_templates
from tests.conftest import ROOT

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20"/>'


def pages_of(tmp_path: Path, chapter: str, files: dict[str, bytes], hide_python: tuple[str, ...] = ()) -> Pages:
    content = tmp_path / "content"
    content.mkdir(parents=True)
    (content / "01-one.md").write_text(f"---\nnumber: 1\npart: P\ntitle: One\nslug: one\n---\n\n{chapter}")
    for name, data in files.items():
        (content / name).parent.mkdir(parents=True, exist_ok=True)
        (content / name).write_bytes(data)
    templates = make_templates(ROOT / "site_template")
    chapters = parse_chapters(load_source(content))
    labs = starting_views(chapters.placements)
    return render_pages(chapters, labs, templates, frozenset({"static/kvpage.css"}), load_assets(content), hide_python)


def test_the_files_a_chapter_uses_ride_along_and_the_rest_are_warned_about(tmp_path: Path) -> None:
    pages = pages_of(
        tmp_path,
        "![A box](img/box.svg) and [the numbers](files/costs.csv).\n",
        {"img/box.svg": SVG, "files/costs.csv": b"1\n", "img/old.svg": SVG},
    )
    assert pages.errors == ()
    assert sorted(pages.assets) == ["files/costs.csv", "img/box.svg"]
    assert [str(warning) for warning in pages.warnings] == [
        "content/img/old.svg: no chapter links to this file or shows it, so the site leaves it out"
    ]
    assert '<img src="img/box.svg" alt="A box" width="40" height="20">' in pages.pages[0].body
    assert pages.stylesheets == {} and pages.pages[0].stylesheets == ()


def test_no_file_of_the_book_may_take_the_place_of_one_of_the_site(tmp_path: Path) -> None:
    pages = pages_of(
        tmp_path,
        "[c](static/x.css) [d](pyodide/x.wasm)\n",
        {"static/x.css": b"", "pyodide/x.wasm": b""},
    )
    assert [str(error) for error in pages.errors] == [
        "content/pyodide/x.wasm: the site keeps its own files in pyodide/; move this file to another folder",
        "content/static/x.css: the site keeps its own files in static/; move this file to another folder",
    ]


def test_a_chapter_with_formulas_links_their_stylesheet(tmp_path: Path) -> None:
    pages = pages_of(tmp_path, "Costs $n^2$.\n", {})
    assert pages.errors == ()
    assert pages.pages[0].stylesheets == (STYLESHEET,)
    assert list(pages.stylesheets) == [STYLESHEET]
    assert "<math>" in pages.pages[0].body


LABS = "::: lab decode\n## Lab · one\n:::\n\n::: lab next-request request1='a b' request2='a c'\n## Lab · two\n:::\n"


def test_every_lab_ends_with_its_python_but_those_the_book_hides(tmp_path: Path) -> None:
    shown = pages_of(tmp_path / "shown", LABS, {}).pages[0].body
    assert shown.count('<details class="lab-python"') == 2
    hidden = pages_of(tmp_path / "hidden", LABS, {}, hide_python=("next-request",)).pages[0].body
    assert hidden.count('<details class="lab-python"') == 1
    assert 'data-file="kvpage/labs/decode.py"' in hidden and 'data-file="kvpage/labs/next_request.py"' not in hidden
