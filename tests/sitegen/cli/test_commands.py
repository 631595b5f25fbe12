"""serve's rebuild (``rebuild_for_serve``) keeps what it can between builds (decision 0064): after every
kind of edit, the site it leaves in its folder is byte for byte a fresh full build's, and it says the
same errors.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from sitegen import pipeline
from sitegen.cli import commands
from sitegen.cli.progress import SILENT
from sitegen.errors import BuildError
from sitegen.markdown import pages
from sitegen.site.output import publish
from tests.conftest import ROOT, TWO_CHAPTERS

Edit = Callable[[Path, Path], None]
"""An edit of the book's folder and the templates' folder."""


def replaced(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name}: no {old!r} to edit"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def prose(book: Path, _templates: Path) -> None:
    chapter = book / "02-second.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nOne sentence more.\n", encoding="utf-8")


def heading_renamed(book: Path, _templates: Path) -> None:
    """The first chapter's heading that the second links to: the second's link now leads nowhere."""
    replaced(book / "01-first.md", "### A detail worth a heading", "### A detail renamed")


def link_mended(book: Path, _templates: Path) -> None:
    replaced(book / "02-second.md", "chapter:first#a-detail-worth-a-heading", "chapter:first#a-detail-renamed")


def chapter_added(book: Path, _templates: Path) -> None:
    text = "---\nnumber: 3\npart: Basics\ntitle: Third\nslug: third\n---\n\nBack to [the start](chapter:first).\n"
    (book / "03-third.md").write_text(text, encoding="utf-8")


def chapter_removed(book: Path, _templates: Path) -> None:
    (book / "03-third.md").unlink()


def template(_book: Path, templates: Path) -> None:
    replaced(templates / "chapter.html", "</main>", "</main><!-- edited -->")


def lab_template(_book: Path, templates: Path) -> None:
    replaced(templates / "labs" / "square.html", "{{ ui.lab(lab) }}", "{{ ui.lab(lab) }}<!-- edited -->")


def book_toml(book: Path, _templates: Path) -> None:
    replaced(book / "book.toml", 'title = "Two chapters"', 'title = "Two chapters, retitled"')


def formula(book: Path, _templates: Path) -> None:
    replaced(book / "01-first.md", "## Onwards", "## Onwards\n\nIt costs $n^2$ cells.")


def formula_edited(book: Path, _templates: Path) -> None:
    replaced(book / "01-first.md", "$n^2$", "$\\frac{n^2}{2}$")


EDITS: tuple[Edit, ...] = (
    prose,
    heading_renamed,
    link_mended,
    chapter_added,
    prose,  # with the third chapter in the book
    chapter_removed,
    template,
    lab_template,
    book_toml,
    formula,
    formula_edited,
)


def tree(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
    }


def fresh(options: pipeline.Options, out: Path) -> tuple[bool, list[str], dict[str, bytes]]:
    """A full build of the book as it is now, with nothing kept: its outcome and the folder it publishes."""
    try:
        rendered = pipeline.render(options)
    except BuildError as error:
        return False, [str(problem) for problem in error.errors], {}
    shutil.rmtree(out, ignore_errors=True)
    publish(rendered.site, out, {})
    return True, [], tree(out)


def differences(tmp_path: Path, edits: tuple[Edit, ...]) -> list[str]:
    """The edits made one after the other, and after each, what serve's warm rebuild left that a fresh
    build would not have (its errors, or the files of its folder)."""
    book, templates = tmp_path / "content", tmp_path / "site_template"
    shutil.copytree(TWO_CHAPTERS, book)
    shutil.copytree(ROOT / "site_template", templates)
    options = pipeline.Options(content=book, templates=templates, out=tmp_path / "serve" / "site", sweep=False)
    commands.KEPT.clear()
    first = commands.rebuild_for_serve(options, SILENT)
    assert first.ok, first.errors
    found: list[str] = []
    for edit in edits:
        edit(book, templates)
        report = commands.rebuild_for_serve(options, SILENT)
        ok, errors, files = fresh(options, tmp_path / "fresh" / "site")
        if (report.ok, report.errors) != (ok, errors):
            found.append(f"after {edit.__name__}: serve said {report.ok, report.errors}, a fresh build {ok, errors}")
        elif ok and tree(options.out) != files:
            served = tree(options.out)
            unlike = sorted(name for name in served.keys() | files.keys() if served.get(name) != files.get(name))
            found.append(f"after {edit.__name__}: {unlike} differ from a fresh build's")
    commands.KEPT.clear()
    return found


def test_serves_rebuild_after_every_kind_of_edit_is_a_fresh_builds_site(tmp_path: Path) -> None:
    assert differences(tmp_path, EDITS) == []


def test_a_key_without_the_books_headings_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above has teeth: with the headings of the other chapters left out of a rendered
    chapter's key, a renamed heading is not checked again where it is linked, and the test sees it."""
    monkeypatch.setattr(pages, "targets_key", lambda targets: "")
    found = differences(tmp_path, (heading_renamed,))
    assert len(found) == 1 and "after heading_renamed" in found[0]
