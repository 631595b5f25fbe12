"""Where a build may write: ``--out``/``--dist`` in the book, the project, a parent of either, or a folder
holding what no build wrote are refused before anything is written; an earlier build's output is replaced.

Each test builds a small book without labs (no runtime, a few seconds) in a project of its own under
``tmp_path``: the book, a copy of the templates, a model folder, and links to the checkout's
``node_modules`` and ``package.json`` (the search stage's MiniSearch). The real project is never a target.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitegen import pipeline
from sitegen.cli import commands
from sitegen.site.output import MANIFEST
from tests.conftest import ROOT

EARLIER_SEARCH_INDEX = "/*! MiniSearch */\nglobalThis.kvpageSearchData = JSON.parse('{}');\n"
"""The shape of an earlier build's search/index.js (7970b80's ``sitegen/search/index.py``)."""
CHAPTER = "---\nnumber: 1\npart: Tests\ntitle: One\nslug: one\n---\n\nThe only chapter.\n"


def small_project(folder: Path) -> Path:
    """A project whose book has one chapter and no lab, under ``folder``."""
    project = folder / "project"
    (project / "content").mkdir(parents=True)
    (project / "content" / "book.toml").write_text('title = "Targets"\n')
    (project / "content" / "01-one.md").write_text(CHAPTER)
    shutil.copytree(ROOT / "site_template", project / "site_template")
    (project / "kvpage").mkdir()
    (project / "kvpage" / "costs.py").write_text("CELLS = 1\n")
    (project / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    (project / "package.json").symlink_to(ROOT / "package.json")
    return project


def options(project: Path, out: Path, dist: Path, *, single_file: bool = False) -> pipeline.Options:
    return pipeline.Options(
        root=project,
        content=project / "content",
        templates=project / "site_template",
        out=out,
        dist=dist,
        single_file=single_file,
    )


def state(folder: Path) -> dict[str, tuple[int, int] | None]:
    """Every path under ``folder`` (links not followed): a file's size and time, None for a folder."""
    return {
        path.relative_to(folder).as_posix(): (path.lstat().st_size, path.lstat().st_mtime_ns)
        if path.is_file() or path.is_symlink()
        else None
        for path in sorted(folder.rglob("*"))
    }


REFUSED = {
    "the book": ("project/content", "project/dist"),
    "inside the book": ("project/content/site", "project/dist"),
    "the project": ("project", "project/dist"),
    "a parent of the project": (".", "project/dist"),
    "the templates": ("project/site_template", "project/dist"),
    "the model": ("project/kvpage", "project/dist"),
    "the zip into the book": ("project/site", "project/content"),
    "the zip into the project": ("project/site", "project"),
    "the zip into a parent of the book": ("project/site", "."),
    "the zip inside the site": ("project/site", "project/site/dist"),
}
"""--out and --dist (relative to the test's folder) a build must refuse."""


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_target_in_the_book_the_project_or_a_parent_is_refused_before_anything_is_written(
    tmp_path: Path, case: str
) -> None:
    project = small_project(tmp_path)
    out, dist = (tmp_path / name for name in REFUSED[case])
    before = state(tmp_path)
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(options(project, out, dist))
    (message,) = [str(error) for error in failure.value.errors]
    option, folder = ("--out", out) if message.startswith("--out") else ("--dist", dist)
    assert message.startswith(f"{option} {folder.resolve()}: "), message
    assert state(tmp_path) == before


def test_the_command_line_says_why_it_refuses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = small_project(tmp_path)
    content = (project / "content").resolve()
    before = state(tmp_path)
    argv = ["--content", str(content), "--out", str(content), "--dist", str(tmp_path / "dist")]
    assert commands.main(argv) == 1
    errors = capsys.readouterr().err.splitlines()
    assert errors == [
        f"error: --out {content}: the folder of the book ({content}), which the build reads: "
        "a build would replace or litter it",
        "build failed: 1 error(s); nothing was written",
    ]
    assert state(tmp_path) == before


def test_a_folder_holding_what_no_build_wrote_is_refused(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    out, dist = tmp_path / "out" / "site", tmp_path / "out" / "dist"
    (out / "notes").mkdir(parents=True)
    (out / "notes" / "mine.txt").write_text("mine")
    (dist / "old").mkdir(parents=True)
    before = state(tmp_path)
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(options(project, out, dist))
    assert [str(error).split(": ", 1)[0] for error in failure.value.errors] == [f"--out {out}", f"--dist {dist}"]
    assert "holds what no build wrote (notes, notes/mine.txt) and no build's manifest" in str(failure.value)
    assert "holds what no build wrote (old)" in str(failure.value)
    assert state(tmp_path) == before

    # A site the build wrote, then a file added to it by hand: the manifest says it is not the build's.
    shutil.rmtree(out / "notes")
    shutil.rmtree(dist / "old")
    pipeline.build(options(project, out, dist))
    (out / "static" / "mine.css").write_text("mine")
    with pytest.raises(pipeline.BuildError, match=r"holds what no build wrote \(static/mine\.css\)"):
        pipeline.build(options(project, out, dist))
    assert (out / "static" / "mine.css").read_text() == "mine"


def test_a_site_with_no_manifest_is_refused_unless_an_earlier_build_wrote_it(tmp_path: Path) -> None:
    """Another generator's site may have an index.html and a search/index.js too: what it holds tells."""
    project = small_project(tmp_path)
    out, dist = tmp_path / "site", tmp_path / "dist"
    (out / "search").mkdir(parents=True)
    (out / "index.html").write_text("<!doctype html>")
    (out / "search" / "index.js").write_text("window.otherSearch = {};")
    with pytest.raises(
        pipeline.BuildError, match=r"holds what no build wrote \(index\.html, search, search/index\.js\)"
    ):
        pipeline.build(options(project, out, dist))
    (out / "search" / "index.js").write_text(EARLIER_SEARCH_INDEX)
    pipeline.build(options(project, out, dist))


def test_a_build_without_the_single_file_removes_the_one_an_earlier_build_left(tmp_path: Path) -> None:
    project = small_project(tmp_path)
    out, dist = tmp_path / "site", tmp_path / "dist"
    pipeline.build(options(project, out, dist, single_file=True))
    assert (dist / pipeline.SINGLE_FILE).is_file()
    pipeline.build(options(project, out, dist))
    assert sorted(path.name for path in dist.iterdir()) == [f"{pipeline.ZIP_TOP}.zip"]


def test_the_site_and_dist_of_a_build_from_before_manifests_are_replaced(tmp_path: Path) -> None:
    """What a build before manifests (7970b80) left: a site with no manifest, the zip, the single file,
    and a killed build's staged single file; every one replaced or removed, and the site's manifest
    lists exactly what the build wrote."""
    project = small_project(tmp_path)
    out, dist = tmp_path / "site", tmp_path / "dist"
    for name in ("index.html", "one.html", "search/index.js", "static/kvpage.css", "old-chapter.html"):
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("an earlier build's")
    (out / "search" / "index.js").write_text(EARLIER_SEARCH_INDEX)
    dist.mkdir()
    for name in (f"{pipeline.ZIP_TOP}.zip", pipeline.SINGLE_FILE, f".{pipeline.SINGLE_FILE}-killed"):
        (dist / name).write_text("an earlier build's")
    site = pipeline.build(options(project, out, dist))
    on_disk = {path.relative_to(out).as_posix() for path in out.rglob("*") if path.is_file()}
    assert on_disk == {*site.files, MANIFEST}
    assert sorted(path.name for path in dist.iterdir()) == [f"{pipeline.ZIP_TOP}.zip"]
