"""The snapshot container, "KVSNAP01": its one specification (:data:`MAGIC`), its writer and reader.

Most of Python's memory is the wasm's own data segments unchanged, or zeros, and the page has the
wasm anyway, so the site ships only what differs from them (decisions 0003, 0056). The page's own
reader is tested against this one on the same containers.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import numpy as np

from sitegen.errors import BuildError

MAGIC = b"KVSNAP01"
"""The container's magic; here is its one specification.

The page restores Python from a memory snapshot (``sitegen/runtime/snapshot.py``). Most of that memory is
the wasm's own data segments unchanged, or zeros, and the page has the wasm anyway, so the site
ships only what differs from the memory a fresh instance starts with: the *base image*, zeros
with every active data segment of ``pyodide.asm.wasm`` copied to its offset.

Layout (all integers u32, little-endian)::

    offset  size         field
    0       8            magic, the ASCII bytes "KVSNAP01"
    8       4            size: bytes of the restored snapshot (Pyodide's format), header included
    12      4            heap offset: where the wasm memory starts in the restored snapshot
    16      4            record count
    20      heap offset  Pyodide's snapshot header, verbatim (magic, build id, JSON state, padding)
    ...                  records, back to back, in increasing offset order:
                         u32 offset into the heap, u32 length, then length bytes that replace
                         the base image's bytes there

The file ends right after the last record (zero records: right after the header); anything else
is damage. The restored snapshot is the header followed by the base image (``size - heap
offset`` bytes) with every record written over it. ``encode`` merges differing runs closer than
``MERGE_GAP`` bytes into one record.

Two readers follow this: ``decode`` here (the build checks each container decodes to the
snapshot it came from) and ``snapshotImage`` in the page's stage ``static/kvpage/image.js``.
``tests/sitegen/runtime/test_snapshot_format.py`` runs the JavaScript one under Node on containers
written here and checks both give the same bytes.
"""
HEAD = struct.Struct("<8sIII")
"""Magic, size, heap offset, record count."""
RECORD = struct.Struct("<II")
"""Offset into the heap, length."""
MERGE_GAP = 32
"""Equal runs shorter than this stay inside a record: fewer records (~6,500) for the page to apply."""


def _leb128(data: bytes, at: int, signed: bool = False) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[at]
        at += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            if signed and byte & 0x40:
                result -= 1 << shift
            return result, at


def data_segments(wasm: bytes) -> Iterator[tuple[int, int, int]]:
    """(memory offset, start in ``wasm``, length) of each active data segment.

    Only the form this Pyodide uses is accepted (flag 0, ``i32.const`` offset): anything else
    means the page's copy of this parser (``image.js``) would build a different image.
    """
    if wasm[:8] != b"\0asm\1\0\0\0":
        raise BuildError(["pyodide.asm.wasm: not a version-1 WebAssembly module"])
    at = 8
    while at < len(wasm):
        section = wasm[at]
        size, at = _leb128(wasm, at + 1)
        end = at + size
        if section == 11:
            count, at = _leb128(wasm, at)
            for _ in range(count):
                flag, at = _leb128(wasm, at)
                if flag != 0 or wasm[at] != 0x41:
                    form = f"{flag}/{wasm[at]:#x}"
                    raise BuildError([f"pyodide.asm.wasm: data segment of form {form}: has Pyodide changed?"])
                offset, at = _leb128(wasm, at + 1, signed=True)
                if wasm[at] != 0x0B:
                    raise BuildError(["pyodide.asm.wasm: data segment offset is not a constant: has Pyodide changed?"])
                length, at = _leb128(wasm, at + 1)
                yield offset, at, length
                at += length
        at = end


def base_image(wasm: bytes, size: int) -> np.ndarray:
    """Memory as instantiation leaves it before any code runs: zeros and the data segments."""
    image = np.zeros(size, dtype=np.uint8)
    source = np.frombuffer(wasm, dtype=np.uint8)
    for offset, start, length in data_segments(wasm):
        image[offset : offset + length] = source[start : start + length]
    return image


def encode(snapshot: bytes, heap_offset: int, wasm: bytes) -> bytes:
    """``snapshot`` as records of the heap bytes that differ from ``base_image``."""
    heap = np.frombuffer(snapshot, dtype=np.uint8, offset=heap_offset)
    differs = np.flatnonzero(heap != base_image(wasm, len(heap)))
    records: list[bytes] = []
    if len(differs):
        breaks = np.flatnonzero(np.diff(differs) > MERGE_GAP)
        starts = np.concatenate(([differs[0]], differs[breaks + 1]))
        ends = np.concatenate((differs[breaks], [differs[-1]])) + 1
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            records.append(RECORD.pack(start, end - start) + heap[start:end].tobytes())
    head = HEAD.pack(MAGIC, len(snapshot), heap_offset, len(records))
    return head + snapshot[:heap_offset] + b"".join(records)


def decode(encoded: bytes, wasm: bytes) -> bytes:
    """The Pyodide snapshot back from ``encode``: what the page's ``snapshotImage`` does, in Python."""
    if len(encoded) < HEAD.size or encoded[:8] != MAGIC:
        raise ValueError("not a kvpage snapshot")
    _, size, heap_offset, count = HEAD.unpack_from(encoded)
    at = HEAD.size + heap_offset
    if heap_offset > size or at > len(encoded):
        raise ValueError("the header is cut short")
    heap = base_image(wasm, size - heap_offset)
    for _ in range(count):
        if at + RECORD.size > len(encoded):
            raise ValueError("a record is cut short")
        offset, length = RECORD.unpack_from(encoded, at)
        if at + RECORD.size + length > len(encoded) or offset + length > len(heap):
            raise ValueError("a record is cut short or lies outside the heap")
        heap[offset : offset + length] = np.frombuffer(encoded, dtype=np.uint8, count=length, offset=at + RECORD.size)
        at += RECORD.size + length
    if at != len(encoded):
        raise ValueError("trailing bytes after the last record")
    return encoded[HEAD.size : HEAD.size + heap_offset] + heap.tobytes()
