"""How the runtime's binaries are packed: gzip, or zstd for the two big ones, and the zstd decoder.

zstd at level 19 makes the wasm and the snapshot about a fifth smaller than gzip -9, and the page
decodes them with a pinned WebAssembly build of the reference decoder (decision 0012). Why only its
wasm is taken: :func:`zstd_decoder`; the checksum and the cache: :func:`pack_zstd`.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import re
from pathlib import Path

import zstandard

from sitegen.errors import BuildError
from sitegen.runtime import cache_entries

GZIP = "gzip"
ZSTD = "zstd"
MEDIA_TYPES = {GZIP: "application/gzip", ZSTD: "application/zstd"}
"""Each encoding's media type, named in a packed binary's script."""
LEVEL = 19
"""zstd's highest level without ``--ultra``: 20 to 22 gain under 1 % here and decode with a bigger window."""
CACHE_DIR = Path(".cache") / "packed"
"""Relative to the project root."""
KEEP = 8
"""Entries kept: the wasm and a few books' snapshots."""
DECODER_MODULE = "dist/zstddec.mjs"
"""The file of the zstddec package that holds the decoder's wasm."""
DECODER_EXPORTS = ("memory", "malloc", "free", "ZSTD_decompress", "ZSTD_isError")
"""What the worker calls in the decoder: the build checks that it exports them."""


def pack_gzip(data: bytes) -> bytes:
    """gzip -9 with no file name and mtime 0: the same bytes from every build."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def pack_zstd(data: bytes, cache: Path | None = None) -> bytes:
    """One zstd frame of ``data`` at ``LEVEL``, with its size and checksum; read from ``cache`` (a
    folder) if it was packed before, else packed and kept there.

    Each zstd frame records its content size and a checksum of the content (XXH64), which the decoder
    verifies: a damaged or truncated file fails to decode instead of starting a different Python, as
    gzip's CRC does for the others.

    Level 19 takes about a minute of one core for the two, so each result is kept in
    ``.cache/packed/``, named by the sha256 of the input and everything that shapes the output (level,
    zstd and its binding's versions): a rebuild with the same wasm and snapshot reads it back.
    """
    entry = None if cache is None else cache / f"{zstd_key(data)}.zst"
    if entry is not None:
        try:
            kept = entry.read_bytes()
        except OSError:
            kept = None
        if kept is not None and unpack_zstd(kept, len(data)) == data:
            cache_entries.mark_newest(entry)
            return kept
    packed = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True, write_content_size=True).compress(data)
    if entry is not None:
        cache_entries.write_entry(entry, lambda handle: handle.write(packed), KEEP)
    return packed


def zstd_key(data: bytes) -> str:
    """The cache key of ``data`` packed by :func:`pack_zstd`: its bytes and what shapes the output."""
    shape = f"zstd level {LEVEL} checksum size; zstandard {zstandard.__version__}; libzstd {zstandard.ZSTD_VERSION}"
    return hashlib.sha256(shape.encode() + b"\0" + data).hexdigest()


def unpack_zstd(packed: bytes, size: int) -> bytes | None:
    """``packed`` decoded, if it is one valid zstd frame of ``size`` bytes; else None."""
    try:
        data = zstandard.ZstdDecompressor().decompress(packed, max_output_size=size)
    except zstandard.ZstdError:
        return None
    return data if len(data) == size else None


def pack(data: bytes, encoding: str, cache: Path | None = None) -> bytes:
    """``data`` packed with ``encoding`` (``GZIP`` or ``ZSTD``)."""
    return pack_zstd(data, cache) if encoding == ZSTD else pack_gzip(data)


def zstd_decoder(module: bytes) -> bytes:
    """The decoder's wasm, taken out of zstddec's ``dist/zstddec.mjs`` (pinned): the base64 string
    it assigns to ``wasm``, checked to be a module exporting what the worker calls.

    The wasm and the snapshot are most of what a reader downloads before the labs are live, and zstd
    at level 19 makes them about a fifth smaller than gzip -9 (docs/performance.md, "Bytes until the
    labs are live"). Browsers decode gzip natively (``DecompressionStream``) but not zstd, so the page
    decodes those two, one after the other, in a worker of their own (the unpacker, stage "spawn"),
    with a WebAssembly build of the reference decoder: the one in the npm package ``zstddec``, pinned
    by sha256 in ``zstddec-pins.json`` like Pyodide's files. Its module
    (``dist/zstddec.mjs``) is an ES module that embeds the wasm as base64 and fetches it from a
    ``data:`` URL, which the page's Content-Security-Policy refuses and a classic worker cannot import;
    so the build takes only the wasm out of it, and the unpacker instantiates it
    and calls ``ZSTD_decompress`` itself (stage "worker"). Everything else stays gzip: Pyodide's
    JavaScript is un-gzipped on the page to make the workers, and the wheel is small.
    """
    found = re.findall(rb'\bconst wasm\s*=\s*"([A-Za-z0-9+/=]+)"', module)
    if len(found) != 1:
        raise BuildError([f"{DECODER_MODULE}: expected one embedded wasm, found {len(found)}: has zstddec changed?"])
    wasm = base64.b64decode(found[0], validate=True)
    missing = [name for name in DECODER_EXPORTS if name.encode() not in wasm]
    if wasm[:4] != b"\0asm" or missing:
        raise BuildError([f"{DECODER_MODULE}: its wasm is not the zstd decoder expected (missing {missing})"])
    return wasm
