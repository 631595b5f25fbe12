"""The whole pipeline on the real chapter: every seed sentence and figure is on the page.

What the whole book decides (its index, its single file, its zip, the files it ships) is checked on
each of tests/conftest.py's BOOKS (``EVERY_BOOK``): content/, and content/ with a second author's
chapters added; the chapter's own page (``built``'s ``cache.html``) is the same in both.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from html import escape, unescape
from pathlib import Path

import pytest

from kvpage.costs import MODE_NAMES, MODES, cumulative_cost, step_cost
from kvpage.jsonvalue import count
from kvpage.tokenizer import tokenize
from sitegen import pipeline
from sitegen.book.source import load_book
from sitegen.cli import commands
from sitegen.labs.discovery import all_labs
from sitegen.markdown.pages import page_url
from sitegen.markdown.plugins.chapter_links import COMING
from sitegen.runtime.names import content_name
from sitegen.site.csp import source_hash
from sitegen.site.page_script import READER_ID, READER_SCRIPT
from tests.chapter_labs import lab_params
from tests.conftest import (
    CONTENT,
    EVERY_BOOK,
    ROOT,
    BookUnderTest,
    Built,
    book_chapters,
    index_link_name,
    page_configs,
)
from tests.pagetext import WORD, Elements, headings, meta_description, prose_runs, visible_text

pytestmark = pytest.mark.book

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"
SEED = (ROOT / "tests" / "fixtures" / "seed-cache-chapter.txt").read_text(encoding="utf-8")

SYSTEM = "You are a precise assistant. Answer briefly User:"

# Lines of the seed that are lab readouts: on the page they are a label and an
# <output>, so they are checked as label + value rather than as one string.
READOUTS = {
    "This step: —": ("This step", "—"),
    "Paid so far: 0": ("Paid so far", "0"),
    "If every step recomputed: 256": ("If every step recomputed", "256"),
    "Shared prefix 10 / 14 · hit through “:”": ("Shared prefix", "10 / 14 · hit through “:”"),
    "Cold prefill: 196": ("Cold prefill", "196"),
    "With prefix cache: 96": ("With prefix cache", "96"),
    "1 · You are a precise assistant. Answer briefly User: 2+2?": ("Request 1", f"{SYSTEM} 2+2?"),
    "2 · You are a precise assistant. Answer briefly User: 3+3?": ("Request 2", f"{SYSTEM} 3+3?"),
}


def seed_lines() -> list[str]:
    return [line.strip() for line in SEED.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def chapter(built: Built) -> str:
    return built.files["cache.html"].decode("utf-8")


def test_every_seed_line_is_on_the_page_in_order(chapter: str) -> None:
    text = visible_text(chapter)
    position = 0
    for line in seed_lines():
        if line in READOUTS:
            label, value = READOUTS[line]
            found = text.find(f"{label} {value}", position)
        else:
            found = text.find(line, position)
        assert found >= 0, f"seed line missing or out of order: {line!r}"
        position = found


def test_readouts_are_outputs_labelled_exactly(chapter: str) -> None:
    """Each seed readout's figure, exactly, and at most the unit the decode lab gives it (``0 cells``)."""
    for label, value in READOUTS.values():
        control = rf'<(?:output|textarea) id="\1"[^>]*>{re.escape(value)}(?:\xa0cells?)?</'
        pattern = rf'<label for="([^"]+)">{re.escape(label)}</label>\s*{control}'
        assert re.search(pattern, chapter), f"no control labelled {label!r} showing {value!r}"


def test_labs_are_regions_named_by_their_heading(chapter: str) -> None:
    for title in ("Lab · prefill once, then decode", "Lab · the next request"):
        match = re.search(rf'<h2 id="([^"]+)">{re.escape(title)}</h2>', chapter)
        assert match, title
        region = re.search(
            rf'<section class="lab\b[^"]*"[^>]*\baria-labelledby="{match.group(1)}"[^>]*>(.*?)</section>',
            chapter,
            re.DOTALL,
        )
        assert region, f"no lab section labelled by its heading {title!r}"
        assert match.group(0) in region.group(1), f"the heading {title!r} is outside the section it names"


def test_controls_start_disabled_until_python_runs(chapter: str) -> None:
    for name in ("Generate", "Back", "Forward", "Reset"):
        assert re.search(rf"<button [^>]*disabled>{name}</button>", chapter)
    assert re.search(r'<input type="range" [^>]*data-linked="steps"[^>]* disabled>', chapter)  # the step slider
    assert "starting values" in chapter and "needs JavaScript" in chapter  # what a page without script says


@EVERY_BOOK
def test_the_page_says_each_lab_once_its_schema_and_the_books_time_limit_in_one_config(
    book_under_test: BookUnderTest,
) -> None:
    built = book_under_test.built
    chapter = built.files["cache.html"].decode("utf-8")
    (config,) = page_configs(chapter)
    kinds = {lab.name: lab for lab in all_labs().values() if f'data-lab="{lab.name}"' in chapter}
    assert config["labs"] == {name: lab.schema() for name, lab in kinds.items()}
    book, _ = load_book(book_under_test.content / "book.toml", "book.toml")
    assert book is not None and config["call_timeout"] == book.call_timeout
    assert config["inline"] is False
    # The single file holds every chapter: its labs are those of every chapter's page, whatever the book.
    chapters = book_chapters(book_under_test.content)
    pages = [page_configs(built.files[page_url(source)].decode("utf-8")) for source in chapters]
    every = {name: schema for configs in pages for found in configs for name, schema in found["labs"].items()}
    (single,) = page_configs(built.single.read_text(encoding="utf-8"))
    assert single["inline"] is True and single["labs"] == every
    # No value twice: no embedded view, no parameters or update action that nothing reads.
    for dead in ("data-view", "data-params", "data-update", "data-calls", "data-draw"):
        assert dead not in chapter, dead


def test_the_starting_pictures_are_in_the_html_for_a_reader_without_javascript(chapter: str) -> None:
    """The grid, the slots, both charts, the table, the chips and the bars, drawn at build time."""
    for part in (
        "grid_kv",
        "grid_recompute",
        "slots_kv",
        "slots_recompute",
        "per_step",
        "totals",
        "tokens1",
        "tokens2",
        "bars",
    ):
        match = re.search(rf'data-part="{part}"[^>]*>(.+?)</(?:div|ol)>\n', chapter, re.DOTALL)
        assert match and ("<svg" in match.group(1) or "<li" in match.group(1)), part
    table = re.search(r'<table data-part="table">(.*?)</table>', chapter, re.DOTALL)
    assert table and "<caption>Cells per step and in total, both modes</caption>" in table.group(1)
    params = lab_params("next-request")
    tokens = sum(len(tokenize(params[name])) for name in ("request1", "request2"))
    assert chapter.count('<li class="chip"') == tokens


def test_the_thesis_figure_follows_the_lede_drawn_at_build_time_at_the_decode_labs_values(chapter: str) -> None:
    """Before any script runs: the lede, then a figure naming both modes with the model's totals, then the rest."""
    after_header = chapter.split('<header class="chapter-header">', 1)[1].split("</header>", 1)[1]
    match = re.match(r"\s*<p>([^<]+)</p>\n(<figure class=\"model-figure\"[^>]*>.*?</figure>)\n", after_header, re.S)
    assert match, "the chapter's first paragraph is not followed by a figure"
    lede, figure = match.groups()
    assert lede == seed_lines()[2]  # after the kicker and the title
    assert "<svg" in figure and "<script" not in figure
    caption = re.search(r"<figcaption>(.+)</figcaption>", figure, re.S)
    assert caption and visible_text(caption.group(1))
    prompt, tokens = (int(lab_params("decode")[name]) for name in ("prompt", "tokens"))
    words = visible_text(figure)
    for mode in MODES:
        assert MODE_NAMES[mode] in words
        assert f"{count(cumulative_cost(prompt, tokens, mode))} cells" in words, mode
        assert f"{count(step_cost(prompt, tokens, mode))} cells" in words, mode


def test_the_link_to_the_planned_harness_chapter_is_its_text_as_the_seed_has_it(chapter: str) -> None:
    assert "Compaction (harness chapter) is what you do" in visible_text(chapter)
    assert f'<span class="chapter-planned" title="{COMING}">harness chapter</span>' in chapter
    assert "chapter:harness" not in chapter


@EVERY_BOOK
def test_front_matter_makes_the_headline_and_title(book_under_test: BookUnderTest) -> None:
    chapter = book_under_test.built.files["cache.html"].decode("utf-8")
    assert re.search(r'<p class="kicker">03 · The model</p>\s*<h1>Cache</h1>', chapter)
    book, _ = load_book(book_under_test.content / "book.toml", "book.toml")
    assert book is not None and f"<title>Cache · 03 · The model · {escape(book.title)}</title>" in chapter


@EVERY_BOOK
def test_site_layout(book_under_test: BookUnderTest) -> None:
    built = book_under_test.built
    names = set(built.files)
    assert {"index.html", "cache.html", "static/kvpage.js", "static/kvpage.css"} <= names
    assert "pyodide/pyodide-lock.json" in names
    # Pyodide's JavaScript is a packed binary too (the worker runs it, the page never does): every
    # script of the runtime is a binary's; and no standard library is shipped besides the snapshot.
    runtime = [name for name in names if name.startswith("pyodide/")]
    assert all(name.endswith(".bin.js") for name in runtime if name.endswith(".js"))
    assert not any("stdlib" in name for name in runtime)
    for binary in ("pyodide.js", "pyodide.asm.wasm", "python.snapshot"):
        assert {built.packed(binary), f"{built.packed(binary)}.js"} <= names  # over http, from disk
        assert re.fullmatch(r"pyodide/.+\.[0-9a-f]{8}\.[a-z]+\.bin", built.packed(binary))  # named after its bytes
        assert f"pyodide/{binary}" not in names  # packed only
    assert not any(name.startswith("static/kvpage/") for name in names)  # the script's modules: bundled
    assert all((built.site / name).read_bytes() == data for name, data in built.files.items())


@EVERY_BOOK
def test_the_editor_is_a_script_of_its_own_named_in_the_config_and_inline_but_not_run_in_the_single_file(
    book_under_test: BookUnderTest,
) -> None:
    """The editor of the Python disclosures (issue 37) is loaded on the first Edit: a file named after its
    content that the chapter's config names and no page loads by itself; in the single file a data block
    the CSP allows by its hash, so the page may run it then (sitegen/site/page_script.py)."""
    built = book_under_test.built
    chapter = built.files["cache.html"].decode("utf-8")
    (config,) = page_configs(chapter)
    reader = built.files[config["reader"]]
    assert config["reader"] == content_name(READER_SCRIPT, reader)
    assert config["reader"] not in chapter.replace(json.dumps(config["reader"]), "")  # named by the config only
    single = built.single.read_text(encoding="utf-8")
    (block,) = re.findall(rf'<script type="text/plain" id="{READER_ID}">(.*?)</script>', single, re.DOTALL)
    assert block == reader.decode("utf-8")
    (policy,) = map(unescape, re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', single))
    assert source_hash(block) in policy and "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    (inline,) = page_configs(single)
    assert inline["inline"] is True and inline["reader"] == config["reader"]


@EVERY_BOOK
def test_the_zip_holds_the_site_but_the_binaries_only_a_served_page_fetches(book_under_test: BookUnderTest) -> None:
    built = book_under_test.built
    with zipfile.ZipFile(built.zip) as archive:
        zipped = {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()}
    packed = {name for name in built.files if name.endswith(".bin")}
    assert len(packed) == 4 and not packed & set(zipped)  # from disk the page loads their scripts
    assert {f"{name}.js" for name in packed} <= set(zipped)
    assert zipped["cache.html"] == built.files["cache.html"]


@EVERY_BOOK
def test_index_lists_every_chapter_in_order(book_under_test: BookUnderTest) -> None:
    index = book_under_test.built.files["index.html"].decode("utf-8")
    chapters = book_chapters(book_under_test.content)
    assert re.findall(r'<li><a href="([^"]+)">', index) == [page_url(chapter) for chapter in chapters]
    text = visible_text(index)
    assert all(index_link_name(chapter) in text for chapter in chapters)
    assert "03 · The model Cache" in text


def lede_and_labs(page: str) -> tuple[str, list[str]]:
    """As the chapter's page says them: its lede (the page's description, which must be words its page
    opens a paragraph with), and the heading that names each lab's region, in order."""
    lede = meta_description(page)
    opening = WORD.findall(lede)
    assert any(opening[: len(run)] == run for run in prose_runs(page)), f"{lede!r} opens no paragraph of its page"
    named = headings(page)
    labs = [named[attrs["aria-labelledby"]] for attrs in Elements(page).of("section") if "data-lab" in attrs]
    return lede, labs


@EVERY_BOOK
def test_index_shows_each_chapters_number_title_lede_and_labs(book_under_test: BookUnderTest) -> None:
    index_shows_each_chapter(book_under_test.built, book_under_test.content)


def test_the_two_chapter_books_index_shows_each_chapters_number_title_lede_and_labs(two_chapters: Built) -> None:
    index_shows_each_chapter(two_chapters, BOOK)


def index_shows_each_chapter(made: Built, content: Path) -> None:
    """The index of the book in ``content`` built as ``made``: the book's title, then each chapter's
    number and title, lede and labs, in order, each lab linked at its heading."""
    index = made.files["index.html"].decode("utf-8")
    text = visible_text(index)
    title, _ = load_book(content / "book.toml", "book.toml")
    assert title is not None and text.startswith(f"{title.title} ")
    position = 0
    for chapter in book_chapters(content):
        page = made.files[page_url(chapter)].decode("utf-8")
        lede, labs = lede_and_labs(page)
        for said in (f"{chapter.meta.headline} {chapter.meta.title}", lede, *labs):
            found = text.find(said, position)
            assert found >= 0, f"{said!r} is not in the index, after what comes before it"
            position = found
        for title in labs:
            anchor = re.search(rf'<h2 id="([^"]+)">{re.escape(title)}</h2>', page)
            assert anchor, title
            assert f'<a href="{page_url(chapter)}#{anchor.group(1)}">{escape(title)}</a>' in index


def test_strict_mode_refuses_the_harness_link_unless_the_book_plans_that_chapter(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(CONTENT, content)
    toml = (content / "book.toml").read_text(encoding="utf-8")
    unplanned = "\n".join(line for line in toml.splitlines() if not line.startswith("planned_chapters"))
    (content / "book.toml").write_text(unplanned, encoding="utf-8")
    options = pipeline.Options(content=content, out=tmp_path / "site", dist=tmp_path / "dist", strict=True)
    with pytest.raises(pipeline.BuildError, match=r"content/03-cache\.md:\d+: chapter 'harness' is not in this book"):
        pipeline.build(options)
    assert not (tmp_path / "site").exists()


def test_command_line_reports_success(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert commands.main(["--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]) == 0
    assert "built" in capsys.readouterr().out


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, hidden ones too."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else None
        for path in sorted(folder.rglob("*"))
    }


def test_failed_build_leaves_the_previous_site_and_zip_untouched(tmp_path: Path) -> None:
    content, templates, out = tmp_path / "content", tmp_path / "site_template", tmp_path / "out"
    shutil.copytree(CONTENT, content)
    shutil.copytree(ROOT / "site_template", templates)
    options = pipeline.Options(content=content, templates=templates, out=out / "site", dist=out / "dist")
    pipeline.build(options)
    before = snapshot(out)
    assert set(before) >= {"site", "site/cache.html", "dist", f"dist/{pipeline.ZIP_TOP}.zip"}

    chapter = content / "03-cache.md"
    good = chapter.read_text(encoding="utf-8")
    chapter.write_text(good.replace("tokens=16", "tokens=999"), encoding="utf-8")
    with pytest.raises(pipeline.BuildError, match=r"content/03-cache\.md:\d+: tokens .* not 999"):
        pipeline.build(options)
    assert snapshot(out) == before

    # A template error surfaces later, after the runtime is built: still nothing written.
    chapter.write_text(good, encoding="utf-8")
    page = templates / "chapter.html"
    page.write_text(page.read_text(encoding="utf-8").replace("<main>", "<main>{{ missing_variable }}"), "utf-8")
    with pytest.raises(pipeline.BuildError, match=r"site_template/chapter\.html:\d+: 'missing_variable' is undefined"):
        pipeline.build(options)
    assert snapshot(out) == before


def test_chapter_has_a_table_of_contents_of_its_headings(chapter: str) -> None:
    contents = re.search(r'<nav class="toc" aria-label="On this page">(.*?)</nav>', chapter, re.S)
    assert contents
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', contents.group(1))
    assert links == [
        ("in-english", "In English"),
        ("lab--prefill-once-then-decode", "Lab · prefill once, then decode"),
        ("lab--the-next-request", "Lab · the next request"),
    ]
    for anchor, _ in links:
        assert f'id="{anchor}"' in chapter


@EVERY_BOOK
def test_the_published_site_links_its_zip_and_the_zip_does_not(book_under_test: BookUnderTest) -> None:
    """On GitHub Pages the index offers the zip; inside the unzipped copy there is nothing to download."""
    built = book_under_test.built
    index = built.files["index.html"].decode("utf-8")
    assert re.search(r'<a href="kvpage-site\.zip" download>Download the book</a> \(\d+\.\d MB, zip\)', index)
    assert built.files["kvpage-site.zip"] == built.zip.read_bytes()
    with zipfile.ZipFile(built.zip) as archive:
        names = archive.namelist()
        inner_index = archive.read("kvpage-site/index.html").decode("utf-8")
    assert "kvpage-site/cache.html" in names
    assert not any(name.endswith("kvpage-site.zip") for name in names)  # the zip does not hold itself
    assert "Download the book" not in inner_index
    assert "kvpage-site.zip" not in inner_index


def test_without_publish_zip_the_site_has_no_zip_and_no_link(tmp_path: Path) -> None:
    site = pipeline.build(pipeline.Options(content=BOOK, out=tmp_path / "site", dist=tmp_path / "dist"))
    assert "kvpage-site.zip" not in site.files
    assert "Download the book" not in site.files["index.html"].decode("utf-8")


@EVERY_BOOK
def test_nothing_built_holds_serves_reload_script(book_under_test: BookUnderTest) -> None:
    """serve adds its script to the pages it serves; the site, the zip and the single file never hold it."""
    built = book_under_test.built
    assert all(b"__kvpage" not in data for data in built.files.values())
    assert b"__kvpage" not in built.zip.read_bytes()
    assert b"__kvpage" not in built.single.read_bytes()


@EVERY_BOOK
def test_the_harness_link_resolves_once_the_book_has_that_chapter(
    book_under_test: BookUnderTest, tmp_path: Path
) -> None:
    content = tmp_path / "content"
    shutil.copytree(book_under_test.content, content)
    last = book_chapters(content)[-1]
    number = last.meta.number + 1
    harness = (
        f"---\nnumber: {number}\npart: The harness\ntitle: Harness\nslug: harness\n---\n\n## Compaction\n\nText.\n"
    )
    (content / f"{number:02d}-harness.md").write_text(harness, encoding="utf-8")
    options = pipeline.Options(content=content, out=tmp_path / "site", dist=tmp_path / "dist", strict=True)
    site = pipeline.build(options)
    cache = site.files["cache.html"].decode("utf-8")
    assert 'Compaction (<a href="harness.html">harness chapter</a>) is what you do' in cache
    before = site.files[page_url(last)].decode("utf-8")
    assert f'<a rel="next" href="harness.html">{number:02d} · The harness — Harness →</a>' in before
    back = f'<a rel="prev" href="{page_url(last)}">← {escape(last.meta.headline)} — {escape(last.meta.title)}</a>'
    assert back in site.files["harness.html"].decode()


def test_a_two_chapter_book_builds_strictly_and_its_first_chapter_has_only_the_search_script(
    two_chapters: Built,
) -> None:
    index = two_chapters.files["index.html"].decode("utf-8")
    assert re.findall(r'<li><a href="([^"]+)">', index) == ["first.html", "second.html"]
    first, second = two_chapters.files["first.html"].decode("utf-8"), two_chapters.files["second.html"].decode("utf-8")
    assert re.findall(r"<script[^>]*>", first) == ['<script src="static/search.js" defer>']
    assert '<a href="second.html#lab--the-square">the square lab</a>' in first
    assert '<a href="first.html#a-detail-worth-a-heading">a detail of the first chapter</a>' in second
    assert 'data-lab="square"' in second and '<script src="static/kvpage.js" defer></script>' in second
    assert re.search(r'<p class="kicker">02 · Basics</p>\s*<h1>The square</h1>', second), "quotes are YAML's"


@EVERY_BOOK
def test_the_example_lab_is_not_in_the_published_book(book_under_test: BookUnderTest) -> None:
    files = book_under_test.built.files
    assert not any(b'data-lab="square"' in data for name, data in files.items() if name.endswith(".html"))


def test_long_steps_show_progress_unless_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["build", "--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist"), "--single-file"]
    assert commands.main(argv) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(re.fullmatch(r"zipping the site into kvpage-site\.zip… \d+\.\d s", line) for line in err), err
    assert any(re.fullmatch(r"assembling the single-file book kvpage\.html… \d+\.\d s", line) for line in err), err
    assert any(line.startswith("in-browser runtime unchanged") or "kvpage wheel built)… " in line for line in err)
    assert commands.main([*argv, "--quiet"]) == 0
    assert [line for line in capsys.readouterr().err.splitlines() if not line.startswith("warning:")] == []
