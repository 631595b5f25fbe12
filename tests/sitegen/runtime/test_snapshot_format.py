"""The KVSNAP01 container: the Python writer, the Python reader and the page's reader agree.

The page's reader is stage "image" (``static/kvpage/image.js``), run here unchanged under Node on
containers the Python writer made, and compared byte for byte with ``decode``.
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import pytest

from sitegen.errors import BuildError
from sitegen.runtime.snapshot import PYODIDE_MAGIC, check_header
from sitegen.runtime.snapshot_format import HEAD, MAGIC, base_image, data_segments, decode, encode

BUILD_ID = "0123456789abcdef" * 4
IMAGE_STAGE = Path(__file__).with_name("image_stage.mjs")


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


def page_reader(encoded: bytes, wasm: bytes, size: int, tmp_path: Path) -> bytes:
    """What the page's snapshotImage makes of ``encoded``; its error message as ValueError."""
    container, module, out = tmp_path / "snapshot.kvsnap", tmp_path / "module.wasm", tmp_path / "image"
    container.write_bytes(encoded)
    module.write_bytes(wasm)
    command = ["node", str(IMAGE_STAGE), str(container), str(module), str(size), str(out)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ValueError(result.stderr.strip())
    return out.read_bytes()


SEGMENT = bytes(range(200)) * 50
WASM = wasm_with([(4096, SEGMENT), (300_000, b"tail segment")])
HEAP_SIZE = 1 << 20


def heap_with(changes: dict[int, bytes]) -> bytes:
    heap = bytearray(base_image(WASM, HEAP_SIZE).tobytes())
    for offset, data in changes.items():
        heap[offset : offset + len(data)] = data
    return bytes(heap)


CASES = {
    "no records": {},
    "a changed segment byte and new data": {5000: b"MOVE", 200_000: b"0123456789", 900_000: b"\x07"},
    "a record at the heap's first byte": {0: b"first"},
    "a record that ends at the heap's last byte": {HEAP_SIZE - 3: b"end"},
    "runs closer than the merge gap": {10: b"a", 20: b"b", 70: b"c"},
    "a cleared segment": {300_000: b"\0" * 12},
}


@pytest.mark.parametrize("changes", CASES.values(), ids=list(CASES))
def test_the_page_and_python_decode_every_container_to_the_snapshot(changes: dict[int, bytes], tmp_path: Path) -> None:
    snapshot = pyodide_snapshot(heap_with(changes))
    encoded = encode(snapshot, check_header(snapshot, BUILD_ID), WASM)
    assert decode(encoded, WASM) == snapshot
    assert page_reader(encoded, WASM, len(snapshot), tmp_path) == snapshot


def test_no_change_is_zero_records_and_the_header_only() -> None:
    snapshot = pyodide_snapshot(heap_with({}))
    heap_offset = check_header(snapshot, BUILD_ID)
    encoded = encode(snapshot, heap_offset, WASM)
    assert encoded == HEAD.pack(MAGIC, len(snapshot), heap_offset, 0) + snapshot[:heap_offset]


def test_records_hold_only_what_differs_from_the_base_image() -> None:
    snapshot = pyodide_snapshot(heap_with(CASES["a changed segment byte and new data"]))
    encoded = encode(snapshot, check_header(snapshot, BUILD_ID), WASM)
    _, _, heap_offset, count = HEAD.unpack_from(encoded)
    assert count == 3
    assert len(encoded) == HEAD.size + heap_offset + 3 * 8 + 4 + 10 + 1


def damaged() -> dict[str, bytes]:
    snapshot = pyodide_snapshot(heap_with({1000: b"data"}))
    encoded = encode(snapshot, check_header(snapshot, BUILD_ID), WASM)
    return {
        "a trailing byte": encoded + b"x",
        "the last record cut short": encoded[:-1],
        "the records cut off": encoded[: -(8 + 4)] + b"\0" * 4,
        "another magic": b"PK" + encoded[2:],
        "shorter than its header": encoded[:12],
    }


@pytest.mark.parametrize("name", list(damaged()))
def test_both_readers_refuse_a_damaged_container(name: str, tmp_path: Path) -> None:
    encoded = damaged()[name]
    size = len(pyodide_snapshot(heap_with({})))
    with pytest.raises(ValueError):
        decode(encoded, WASM)
    with pytest.raises(ValueError, match="the Python snapshot is damaged"):
        page_reader(encoded, WASM, size, tmp_path)


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
