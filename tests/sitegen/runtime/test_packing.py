"""Packing the runtime's binaries: deterministic gzip and zstd, the zstd cache, and the decoder's wasm."""

from __future__ import annotations

import base64
import gzip
import json
import zlib
from pathlib import Path

import pytest
import zstandard

from sitegen.errors import BuildError
from sitegen.runtime import packing
from sitegen.runtime.packing import DECODER_MODULE, pack, pack_gzip, pack_zstd, unpack_zstd, zstd_decoder, zstd_key
from tests.conftest import ROOT

DATA = bytes(range(256)) * 1000 + b"kvpage" * 5000
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
DECODER = ROOT / "node_modules" / "zstddec"


def test_gzip_is_what_any_decoder_reads_and_repeats_byte_for_byte() -> None:
    assert pack_gzip(DATA) == pack_gzip(DATA)
    assert gzip.decompress(pack_gzip(DATA)) == DATA
    assert zlib.decompress(pack_gzip(DATA), wbits=31) == DATA
    # no flags (so no file name), mtime 0
    assert pack_gzip(DATA)[:8] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00"


def test_zstd_is_one_frame_with_its_size_and_checksum_repeated_byte_for_byte() -> None:
    packed = pack_zstd(DATA)
    assert packed == pack_zstd(DATA)
    assert packed[:4] == ZSTD_MAGIC
    frame = zstandard.get_frame_parameters(packed)
    assert frame.content_size == len(DATA)  # the decoder knows the size it writes (the page checks it too)
    assert frame.has_checksum  # a damaged file fails to decode
    assert zstandard.ZstdDecompressor().decompress(packed) == DATA
    assert len(packed) < len(pack_gzip(DATA))


def test_pack_chooses_by_encoding() -> None:
    assert pack(DATA, packing.GZIP) == pack_gzip(DATA)
    assert pack(DATA, packing.ZSTD) == pack_zstd(DATA)


def test_unpack_zstd_takes_only_a_whole_undamaged_frame_of_the_size() -> None:
    packed = pack_zstd(DATA)
    assert unpack_zstd(packed, len(DATA)) == DATA
    assert unpack_zstd(packed, len(DATA) + 1) is None
    assert unpack_zstd(packed[:-10], len(DATA)) is None
    damaged = bytearray(packed)
    damaged[len(damaged) // 2] ^= 0xFF
    assert unpack_zstd(bytes(damaged), len(DATA)) is None


def test_a_packed_file_is_kept_and_read_back_instead_of_packed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = pack_zstd(DATA, tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == [f"{zstd_key(DATA)}.zst"]

    class NoCompressor:
        def __init__(self, **_: object) -> None:
            raise AssertionError("packed again")

    monkeypatch.setattr(zstandard, "ZstdCompressor", NoCompressor)
    assert pack_zstd(DATA, tmp_path) == made


def test_a_damaged_kept_file_is_packed_again(tmp_path: Path) -> None:
    made = pack_zstd(DATA, tmp_path)
    entry = tmp_path / f"{zstd_key(DATA)}.zst"
    entry.write_bytes(made[:-1])
    assert pack_zstd(DATA, tmp_path) == made
    assert entry.read_bytes() == made


def test_the_key_changes_with_the_input_and_the_level(monkeypatch: pytest.MonkeyPatch) -> None:
    key = zstd_key(DATA)
    assert zstd_key(DATA + b"!") != key
    monkeypatch.setattr(packing, "LEVEL", 3)
    assert zstd_key(DATA) != key


def test_the_decoder_is_the_wasm_zstddec_embeds() -> None:
    module = (DECODER / DECODER_MODULE).read_bytes()
    wasm = zstd_decoder(module)
    assert wasm[:4] == b"\0asm"
    assert base64.b64encode(wasm) in module
    pins = json.loads((ROOT / "sitegen" / "runtime" / "zstddec-pins.json").read_text(encoding="utf-8"))["files"]
    assert DECODER_MODULE in pins and "LICENSE" in pins


def wasm_module(wasm: bytes) -> bytes:
    return b'let x;\nconst wasm = "' + base64.b64encode(wasm) + b'";\nexport { x };\n'


def test_a_changed_zstddec_fails_the_build() -> None:
    good = zstd_decoder((DECODER / DECODER_MODULE).read_bytes())
    assert zstd_decoder(wasm_module(good)) == good
    with pytest.raises(BuildError, match="expected one embedded wasm, found 0"):
        zstd_decoder(b"export {};")
    with pytest.raises(BuildError, match="found 2"):
        zstd_decoder(wasm_module(good) + wasm_module(good))
    with pytest.raises(BuildError, match="not the zstd decoder"):
        zstd_decoder(wasm_module(good.replace(b"ZSTD_isError", b"ZSTD_isFrame")))
    with pytest.raises(BuildError, match="not the zstd decoder"):
        zstd_decoder(wasm_module(b"\0ELF" + good[4:]))
