"""The memory snapshot's container, the wasm data-segment parser, the trimmed stdlib, and the pins."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from sitegen import python_snapshot
from sitegen.errors import BuildError
from sitegen.python_snapshot import (
    PYODIDE_MAGIC,
    base_image,
    build_id,
    check_header,
    data_segments,
    decode,
    encode,
    page_stdlib,
)
from tests.conftest import Built

BUILD_ID = "0123456789abcdef" * 4


def leb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def wasm_with(segments: list[tuple[int, bytes]], form: bytes = b"\x00\x41") -> bytes:
    """A module with a memory-less type section and one data section holding ``segments``."""
    body = leb(len(segments))
    for offset, data in segments:
        body += form + leb(offset) + b"\x0b" + leb(len(data)) + data
    type_section = b"\x01" + leb(1) + b"\x00"
    return b"\0asm\1\0\0\0" + type_section + b"\x0b" + leb(len(body)) + body


def pyodide_snapshot(heap: bytes, build: str = BUILD_ID) -> bytes:
    """A snapshot in Pyodide's layout: magic, heap offset, JSON length, 0, build id, JSON, heap."""
    state = b'{"hiwireKeys":[]}'
    heap_offset = 48 + 16 * -(-len(state) // 16)
    words = [int(build[i : i + 8], 16) for i in range(0, 64, 8)]
    header = struct.pack("<4I8I", PYODIDE_MAGIC, heap_offset, len(state), 0, *words) + state
    return header.ljust(heap_offset, b"\0") + heap


def test_data_segments_are_found_where_the_module_puts_them() -> None:
    wasm = wasm_with([(1024, b"hello"), (300_000, b"world!")])
    found = [(offset, wasm[start : start + length]) for offset, start, length in data_segments(wasm)]
    assert found == [(1024, b"hello"), (300_000, b"world!")]


def test_an_unknown_segment_form_fails_the_build() -> None:
    passive = wasm_with([(0, b"x")], form=b"\x01")
    with pytest.raises(BuildError, match="has Pyodide changed"):
        list(data_segments(passive))


def test_the_base_image_is_zeros_with_the_segments_in_place() -> None:
    image = base_image(wasm_with([(4, b"ab"), (10, b"c")]), 16)
    assert image.tobytes() == b"\0\0\0\0ab\0\0\0\0c\0\0\0\0\0"


def test_encode_keeps_only_what_differs_from_the_base_image_and_decodes_back() -> None:
    segment = bytes(range(200)) * 50
    wasm = wasm_with([(4096, segment)])
    heap = bytearray(1 << 20)
    heap[4096 : 4096 + len(segment)] = segment
    heap[5000:5004] = b"MOVE"  # a changed segment byte
    heap[200_000:200_010] = b"0123456789"  # new data in the heap
    heap[900_000] = 7
    snapshot = pyodide_snapshot(bytes(heap))
    encoded = encode(snapshot, check_header(snapshot, BUILD_ID), wasm)
    assert len(encoded) < 200
    assert decode(encoded, wasm) == snapshot


def test_a_damaged_container_is_refused() -> None:
    wasm = wasm_with([])
    snapshot = pyodide_snapshot(b"\0" * 64 + b"data" + b"\0" * 60)
    encoded = encode(snapshot, check_header(snapshot, BUILD_ID), wasm)
    with pytest.raises(ValueError, match="trailing"):
        decode(encoded + b"x", wasm)
    with pytest.raises(ValueError, match="not a kvpage snapshot"):
        decode(b"PK" + encoded[2:], wasm)


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
        python_snapshot.make_python_snapshot(tmp_path, "314.0.8", b"", b"", tmp_path / "kvpage.whl", tmp_path)


def test_the_site_s_snapshot_restores_to_the_page_s_pyodide_build(built: Built) -> None:
    files = built.files
    wasm = files["pyodide/pyodide.asm.wasm"]
    snapshot = decode(files["pyodide/python.snapshot"], wasm)
    check_header(snapshot, build_id(files["pyodide/pyodide.js"]))


def test_the_site_s_stdlib_is_sources_of_imported_modules_only(built: Built) -> None:
    with zipfile.ZipFile(io.BytesIO(built.files["pyodide/python_stdlib.zip"])) as archive:
        names = archive.namelist()
    assert all(name.endswith(".py") for name in names)
    assert {"json/decoder.py", "re/__init__.py", "dataclasses.py", "typing.py"} <= set(names)
    assert "turtle.py" not in names and "tkinter/__init__.py" not in names
