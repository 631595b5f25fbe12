"""The memory snapshot's header and build id, the trimmed stdlib, the pins; the site's snapshot.

The container format itself is tested in test_snapshot_format.py.
"""

from __future__ import annotations

import gzip
import io
import zipfile
from pathlib import Path

import pytest

from sitegen import python_snapshot
from sitegen.errors import BuildError
from sitegen.python_snapshot import build_id, check_header, page_stdlib
from sitegen.snapshot_format import decode
from tests.conftest import Built
from tests.sitegen.test_snapshot_format import BUILD_ID, page_reader, pyodide_snapshot


def unpacked(built: Built, name: str) -> bytes:
    """A binary of the site as the page gets it: its gzipped ``.bin``, un-gzipped."""
    return gzip.decompress(built.files[f"pyodide/{name}.bin"])


def test_the_header_must_name_the_page_s_pyodide_build() -> None:
    snapshot = pyodide_snapshot(b"\0" * 64)
    assert check_header(snapshot, BUILD_ID) == 80  # 48-byte header, then the JSON padded to 16
    with pytest.raises(BuildError, match=r"is not pyodide\.js's"):
        check_header(snapshot, "f" * 64)
    with pytest.raises(BuildError, match="magic"):
        check_header(b"\0" * 4 + snapshot[4:], BUILD_ID)


def test_build_id_is_read_from_pyodide_js() -> None:
    assert build_id(b'x={BUILD_ID:"' + BUILD_ID.encode() + b'"}') == BUILD_ID
    with pytest.raises(BuildError, match="expected one BUILD_ID"):
        build_id(b"no id here")


def test_the_page_stdlib_holds_the_listed_sources_stored_sorted_and_undated() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as source:
        for name in ("os.py", "json/__init__.py", "json/decoder.py", "turtle.py"):
            source.writestr(name, f"# {name}\n")
    trimmed = page_stdlib(buffer.getvalue(), ["json/decoder.py", "os.py", "json/__init__.py", "os.py"])
    with zipfile.ZipFile(io.BytesIO(trimmed)) as archive:
        infos = archive.infolist()
        assert [info.filename for info in infos] == ["json/__init__.py", "json/decoder.py", "os.py"]
        assert {info.compress_type for info in infos} == {zipfile.ZIP_STORED}
        assert {info.date_time for info in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert archive.read("os.py") == b"# os.py\n"


def test_another_pyodide_version_fails_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match=r"was written for 314\.0\.7"):
        python_snapshot.make_python_snapshot(tmp_path, "314.0.8", {}, tmp_path / "kvpage.whl", tmp_path)


def test_the_site_s_snapshot_restores_to_the_page_s_pyodide_build(built: Built) -> None:
    wasm, encoded = unpacked(built, "pyodide.asm.wasm"), unpacked(built, "python.snapshot")
    # The worker runs the pyodide.js of the asset "pyodide.js" (with pyodide.asm.mjs after it).
    check_header(decode(encoded, wasm), build_id(unpacked(built, "pyodide.js")))


def test_the_page_restores_the_site_s_snapshot_to_python_s_bytes(built: Built, tmp_path: Path) -> None:
    wasm, encoded = unpacked(built, "pyodide.asm.wasm"), unpacked(built, "python.snapshot")
    snapshot = decode(encoded, wasm)
    assert page_reader(encoded, wasm, len(snapshot), tmp_path) == snapshot


def test_the_site_s_stdlib_is_sources_of_imported_modules_only(built: Built) -> None:
    with zipfile.ZipFile(io.BytesIO(unpacked(built, "python_stdlib.zip"))) as archive:
        names = archive.namelist()
    assert all(name.endswith(".py") for name in names)
    assert {"json/decoder.py", "re/__init__.py", "dataclasses.py", "typing.py"} <= set(names)
    assert "turtle.py" not in names and "tkinter/__init__.py" not in names
