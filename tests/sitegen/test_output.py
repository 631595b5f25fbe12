"""The zip a reader downloads, and atomic writes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import build
from sitegen.output import ZIP_DATE, write_file
from tests.conftest import Built


def test_zip_holds_the_site_under_one_top_folder(built: Built) -> None:
    with zipfile.ZipFile(built.zip) as archive:
        infos = archive.infolist()
        names = [info.filename for info in infos]
        assert archive.testzip() is None
        for name in names:
            assert not name.startswith("/") and "\\" not in name, name
            assert ".." not in Path(name).parts, name
            assert name.startswith(f"{build.ZIP_TOP}/"), name
        assert f"{build.ZIP_TOP}/index.html" in names
        assert sorted(names) == names
        assert {info.date_time for info in infos} == {ZIP_DATE}
        inside = {name.removeprefix(f"{build.ZIP_TOP}/"): archive.read(name) for name in names}
    assert inside == built.files


def test_build_prints_the_zip_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert build.main(["--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]) == 0
    size = (tmp_path / "dist" / f"{build.ZIP_TOP}.zip").stat().st_size
    assert f"kvpage-site.zip ({size / 1e6:.1f} MB)" in capsys.readouterr().out


def test_write_file_replaces_whole(tmp_path: Path) -> None:
    target = tmp_path / "a" / "file.bin"
    write_file(b"one", target)
    write_file(b"two", target)
    assert target.read_bytes() == b"two"
    assert [path.name for path in target.parent.iterdir()] == ["file.bin"]
