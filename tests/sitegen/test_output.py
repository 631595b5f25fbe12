"""The files stage: the new site and zip replace the old ones whole, or not at all."""

from __future__ import annotations

import re
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from sitegen import commands, pipeline
from sitegen.output import publish, zip_bytes
from sitegen.reproducible import ZIP_DATE
from sitegen.site import Site
from tests.conftest import Built


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, hidden ones too."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else None
        for path in sorted(folder.rglob("*"))
    }


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A first site and zip in ``tmp_path/site`` and ``tmp_path/dist/site.zip``."""
    site = Site({"index.html": b"old index", "old.html": b"old page", "static/a.css": b"a"})
    publish(site, tmp_path / "site", {tmp_path / "dist" / "site.zip": b"old zip"})
    return tmp_path


def test_publish_replaces_the_site_and_zip_whole(published: Path) -> None:
    publish(Site({"index.html": b"new index"}), published / "site", {published / "dist" / "site.zip": b"new zip"})
    assert snapshot(published) == {
        "dist": None,
        "dist/site.zip": b"new zip",
        "site": None,
        "site/index.html": b"new index",
    }


def test_failure_while_writing_the_site_changes_nothing(published: Path) -> None:
    before = snapshot(published)
    clash = Site({"page": b"a file", "page/child.html": b"cannot live under a file"})
    with pytest.raises(OSError):
        publish(clash, published / "site", {published / "dist" / "site.zip": b"new zip"})
    assert snapshot(published) == before


def test_failure_while_writing_the_zip_changes_nothing(published: Path) -> None:
    (published / "blocked").write_bytes(b"a file where the zip's folder should be")
    before = snapshot(published)
    with pytest.raises(OSError):
        files = {published / "dist" / "site.zip": b"new zip", published / "blocked" / "site.zip": b"new zip"}
        publish(Site({"index.html": b"new"}), published / "site", files)
    assert snapshot(published) == before


def test_site_folder_is_readable_by_a_web_server(published: Path) -> None:
    assert (published / "site").stat().st_mode & 0o777 == 0o755
    assert (published / "dist" / "site.zip").stat().st_mode & 0o777 == 0o644


def test_zip_is_reproducible_with_one_top_folder() -> None:
    site = Site({"b.html": b"b", "a.html": b"a", "static/c.css": b"c"})
    first, second = zip_bytes(site, "top"), zip_bytes(site, "top")
    assert first == second
    with zipfile.ZipFile(BytesIO(first)) as archive:
        assert archive.namelist() == ["top/a.html", "top/b.html", "top/static/c.css"]
        assert {info.date_time for info in archive.infolist()} == {ZIP_DATE}
        assert archive.read("top/static/c.css") == b"c"


def test_zip_holds_the_site_under_one_top_folder(built: Built) -> None:
    with zipfile.ZipFile(built.zip) as archive:
        infos = archive.infolist()
        names = [info.filename for info in infos]
        assert archive.testzip() is None
        for name in names:
            assert not name.startswith("/") and "\\" not in name, name
            assert ".." not in Path(name).parts, name
            assert name.startswith(f"{pipeline.ZIP_TOP}/"), name
        assert f"{pipeline.ZIP_TOP}/index.html" in names
        assert sorted(names) == names
        assert {info.date_time for info in infos} == {ZIP_DATE}
        inside = {name.removeprefix(f"{pipeline.ZIP_TOP}/"): archive.read(name) for name in names}
    # The published site (see the built fixture) also holds the zip, and its index links it.
    published = dict(built.files)
    published.pop(f"{pipeline.ZIP_TOP}.zip")
    published["index.html"] = re.sub(rb'<p class="download">.*?</p>\n', b"", published["index.html"], count=1)
    # ... and the packed binaries only a served page fetches (from disk it loads their scripts)
    packed = [name for name in published if name.startswith("pyodide/") and name.endswith(".bin")]
    assert len(packed) == 4  # Pyodide's JavaScript, the wasm, the snapshot, the wheel
    for name in packed:
        published.pop(name)
    assert inside == published


def test_build_prints_the_zip_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert commands.main(["--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]) == 0
    size = (tmp_path / "dist" / f"{pipeline.ZIP_TOP}.zip").stat().st_size
    assert f"kvpage-site.zip ({size / 1e6:.1f} MB)" in capsys.readouterr().out
