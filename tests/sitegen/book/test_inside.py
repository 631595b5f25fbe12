"""Nothing outside the book is read: symbolic links out of ``content/`` are refused, links inside followed.

The cases are issue 34's: a link to ``/etc/passwd`` a chapter links to, one into the
repository's ``.git/config``, an outside SVG shown as an image, a chapter that is a link to a
file outside, a folder that is a link outside, and a link outside that no chapter uses. They are
made at test time in a temporary project (git keeps no links to ``/etc``), and every file the
build opens is recorded, so "never read" is checked, not only "never shipped".
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from sitegen import pipeline
from sitegen.book.inside import CIRCLE, LOOP, OUTSIDE, list_files, within
from sitegen.book.source import NOT_A_FILE
from tests.conftest import ROOT
from tests.sitegen.markdown.test_pages import SVG
from tests.sitegen.test_invalid_content import search_only_project

CHAPTER = "---\nnumber: {number}\npart: Tests\ntitle: {slug}\nslug: {slug}\n---\n\n{body}\n"
PASSWD = Path("/etc/passwd")


def chapter(number: int, slug: str, body: str) -> str:
    return CHAPTER.format(number=number, slug=slug, body=body)


def opened_files(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file opened from now on (``open``, ``Path.read_bytes``/``read_text``), resolved."""
    opened: list[Path] = []

    def spying(real: Callable[..., Any]) -> Callable[..., Any]:
        def spy(file: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(file, str | os.PathLike):
                opened.append(Path(file).resolve())
            return real(file, *args, **kwargs)

        return spy

    monkeypatch.setattr(builtins, "open", spying(builtins.open))
    monkeypatch.setattr(io, "open", spying(io.open))
    return opened


def build(content: Path, out: Path) -> pipeline.Site:
    options = pipeline.Options(
        root=search_only_project(), content=content, out=out / "site", dist=out / "dist", single_file=True
    )
    return pipeline.build(options)


@pytest.mark.skipif(not PASSWD.is_file(), reason="needs /etc/passwd")
def test_every_link_out_of_the_book_is_refused_at_its_line_and_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    content = project / "content"
    (content / "img").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[remote]\n  token = SECRET\n")
    (outside / "folder").mkdir(parents=True)
    (outside / "folder" / "notes.txt").write_text("SECRET notes\n")
    (outside / "drawing.svg").write_bytes(SVG)
    (outside / "unused.txt").write_text("SECRET unused\n")
    (outside / "chapter.md").write_text(chapter(2, "outside", "SECRET chapter"))
    (content / "book.toml").write_text('title = "Links out"\n')
    body = "[p](passwd.txt) and [the config](config)\n\n![A drawing](img/drawing.svg)\n\n[notes](folder/notes.txt)"
    (content / "01-inside.md").write_text(chapter(1, "inside", body))
    (content / "passwd.txt").symlink_to(PASSWD)
    (content / "config").symlink_to(Path("..") / ".git" / "config")
    (content / "img" / "drawing.svg").symlink_to(outside / "drawing.svg")
    (content / "02-outside.md").symlink_to(outside / "chapter.md")
    (content / "folder").symlink_to(outside / "folder", target_is_directory=True)
    (content / "unused.txt").symlink_to(outside / "unused.txt")
    opened = opened_files(monkeypatch)

    with pytest.raises(pipeline.BuildError) as failure:
        build(content, tmp_path / "out")

    refused = "the build refuses {} (its own error says why)"
    assert [str(error) for error in failure.value.errors] == [
        f"content/01-inside.md:8: link to 'config': {refused.format('content/config')}",
        f"content/01-inside.md:8: link to 'passwd.txt': {refused.format('content/passwd.txt')}",
        f"content/01-inside.md:10: image 'img/drawing.svg': {refused.format('content/img/drawing.svg')}",
        f"content/01-inside.md:12: link to 'folder/notes.txt': {refused.format('content/folder')}",
        f"content/02-outside.md: {OUTSIDE}",
        f"content/config: {OUTSIDE}",
        f"content/folder: {OUTSIDE}",
        f"content/img/drawing.svg: {OUTSIDE}",
        f"content/passwd.txt: {OUTSIDE}",
        f"content/unused.txt: {OUTSIDE}",
    ]
    assert not (tmp_path / "out").exists()
    read_outside = [path for path in opened if not path.is_relative_to(content)]
    secrets = [PASSWD.resolve(), project / ".git" / "config", *outside.rglob("*")]
    assert [path for path in read_outside if path in secrets] == []


def test_links_that_stay_inside_the_book_are_followed(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "art").mkdir(parents=True)
    (content / "art" / "box.svg").write_bytes(SVG)
    (content / "files").mkdir()
    (content / "files" / "costs.csv").write_text("1,2\n")
    (content / "img").symlink_to("art", target_is_directory=True)
    (content / "costs.csv").symlink_to(Path("files") / "costs.csv")
    (content / "book.toml").write_text('title = "Links in"\n')
    body = "![A box](img/box.svg), [costs](costs.csv), [the same](files/costs.csv), ![again](art/box.svg)"
    (content / "01-one.md").write_text(chapter(1, "one", body))
    (content / "drafts").mkdir()
    (content / "drafts" / "two.md").write_text(chapter(2, "two", "[Back](one.html)"))
    (content / "02-two.md").symlink_to(Path("drafts") / "two.md")  # a chapter may be a link too

    site = build(content, tmp_path / "out")

    assert site.files["img/box.svg"] == site.files["art/box.svg"] == SVG
    assert site.files["costs.csv"] == site.files["files/costs.csv"] == b"1,2\n"
    assert "two.html" in site.files


def test_a_folder_link_that_leads_back_up_is_refused(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "img").mkdir(parents=True)
    (content / "img" / "up").symlink_to("..", target_is_directory=True)
    (content / "img" / "self").symlink_to(".", target_is_directory=True)
    (content / "img" / "box.svg").write_bytes(SVG)
    listing = list_files(content, lambda _: True)
    assert listing.refused == {PurePosixPath("img/self"): LOOP, PurePosixPath("img/up"): LOOP}
    assert listing.files == {PurePosixPath("img/box.svg"): (content / "img" / "box.svg").resolve()}


def test_within_follows_every_link_of_the_path(tmp_path: Path) -> None:
    root = tmp_path / "book"
    (root / "a").mkdir(parents=True)
    (tmp_path / "secret").write_text("x")
    (root / "a" / "out").symlink_to(tmp_path / "secret")
    (root / "hop").symlink_to(Path("a") / "out")
    assert within(root.resolve(), root / "a") == (root / "a").resolve()
    assert within(root.resolve(), root / "hop") == OUTSIDE
    assert within(root.resolve(), root / "a" / ".." / ".." / "secret") == OUTSIDE


def test_links_in_a_circle_are_refused_not_a_traceback(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "book.toml").write_text('title = "Circles"\n')
    (content / "01-one.md").write_text(chapter(1, "one", "Text."))
    (content / "self.txt").symlink_to("self.txt")
    (content / "02-a.md").symlink_to("03-b.md")
    (content / "03-b.md").symlink_to("02-a.md")
    with pytest.raises(pipeline.BuildError) as failure:
        build(content, tmp_path / "out")
    assert [str(error) for error in failure.value.errors] == [
        f"content/02-a.md: {CIRCLE}",
        f"content/03-b.md: {CIRCLE}",
        f"content/self.txt: {CIRCLE}",
    ]


def test_a_chapter_that_is_no_file_is_an_error_not_a_traceback(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "book.toml").write_text('title = "Nothing there"\n')
    (content / "01-one.md").write_text(chapter(1, "one", "Text."))
    (content / "02-gone.md").symlink_to("missing.md")
    (content / "03-folder.md").mkdir()
    with pytest.raises(pipeline.BuildError) as failure:
        build(content, tmp_path / "out")
    assert [str(error) for error in failure.value.errors] == [
        f"content/02-gone.md: {NOT_A_FILE}",
        f"content/03-folder.md: {NOT_A_FILE}",
    ]


def test_a_link_out_of_the_templates_or_their_static_files_is_refused_at_its_path_and_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43: ``site_template/static/h.txt`` → ``/etc/hostname`` shipped. The templates and their static
    files are each held to their own folder, as the book is: a static file may not point at a template."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "host.txt").write_text("SECRET host\n")
    (outside / "part.html").write_text("SECRET part\n")
    templates = tmp_path / "site_template"
    shutil.copytree(ROOT / "site_template", templates)
    (templates / "static" / "h.txt").symlink_to(outside / "host.txt")
    (templates / "partials" / "evil.html").symlink_to(outside / "part.html")
    (templates / "static" / "base.html").symlink_to(Path("..") / "base.html")
    content = tmp_path / "content"
    content.mkdir()
    (content / "book.toml").write_text('title = "Links out of the templates"\n')
    (content / "01-one.md").write_text(chapter(1, "one", "Text."))
    opened = opened_files(monkeypatch)

    options = pipeline.Options(
        root=search_only_project(), content=content, templates=templates, out=tmp_path / "site", dist=tmp_path / "dist"
    )
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(options)

    found = [(error.where, error.message.split(":")[0]) for error in failure.value.errors]
    assert found == [
        ("site_template/partials/evil.html", "a symbolic link out of site_template/"),
        ("site_template/static/base.html", "a symbolic link out of site_template/static/"),
        ("site_template/static/h.txt", "a symbolic link out of site_template/static/"),
    ]
    assert not (tmp_path / "site").exists() and not (tmp_path / "dist").exists()
    assert [path for path in opened if path.is_relative_to(outside.resolve())] == []
