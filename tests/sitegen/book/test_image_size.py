"""Image sizes read from the files' headers: each format, a turned JPEG, and files that lie about their type.

The files are made here, byte by byte, from each format's specification, so the
expected size is the one written into the header, not one read back by the code
under test.
"""

from __future__ import annotations

import struct
import zlib

import pytest

from sitegen.book.image_size import ImageError, raster_size


def png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def gif(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x80\x00\x00" + b"\x00" * 6 + b";"


def segment(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def exif(orientation: int) -> bytes:
    """An APP1 EXIF payload (big-endian TIFF) whose first directory holds only Orientation."""
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff = b"MM" + struct.pack(">HI", 42, 8) + struct.pack(">H", 1) + entry + struct.pack(">I", 0)
    return b"Exif\x00\x00" + tiff


def jpeg(width: int, height: int, *, orientation: int | None = None, progressive: bool = False) -> bytes:
    app0 = segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    app1 = segment(0xE1, exif(orientation)) if orientation is not None else b""
    frame = segment(0xC2 if progressive else 0xC0, struct.pack(">BHHB", 8, height, width, 1) + b"\x01\x11\x00")
    return b"\xff\xd8" + app0 + app1 + b"\xff\xff" + frame + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00") + b"\xff\xd9"


def webp_lossy(width: int, height: int) -> bytes:
    frame = b"\x30\x01\x00" + b"\x9d\x01\x2a" + struct.pack("<HH", width, height)
    chunk = b"VP8 " + struct.pack("<I", len(frame)) + frame
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def webp_lossless(width: int, height: int) -> bytes:
    bits = (width - 1) | ((height - 1) << 14)
    data = b"\x2f" + bits.to_bytes(4, "little")
    chunk = b"VP8L" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


def webp_extended(width: int, height: int) -> bytes:
    data = b"\x10\x00\x00\x00" + (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    chunk = b"VP8X" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk


@pytest.mark.parametrize(
    ("media_type", "data", "size"),
    [
        ("image/png", png(640, 360), (640, 360)),
        ("image/gif", gif(30, 20), (30, 20)),
        ("image/jpeg", jpeg(800, 600), (800, 600)),
        ("image/jpeg", jpeg(800, 600, progressive=True), (800, 600)),
        ("image/jpeg", jpeg(800, 600, orientation=1), (800, 600)),
        ("image/jpeg", jpeg(800, 600, orientation=6), (600, 800)),
        ("image/jpeg", jpeg(800, 600, orientation=8), (600, 800)),
        ("image/webp", webp_lossy(320, 240), (320, 240)),
        ("image/webp", webp_lossless(1000, 16383), (1000, 16383)),
        ("image/webp", webp_extended(4000, 3000), (4000, 3000)),
    ],
)
def test_each_format_gives_its_size(media_type: str, data: bytes, size: tuple[int, int]) -> None:
    assert raster_size(media_type, data) == size


@pytest.mark.parametrize(
    ("media_type", "data", "message"),
    [
        ("image/png", gif(1, 1), "not a PNG image"),
        ("image/png", png(1, 1)[:20], "not a PNG image"),
        ("image/gif", png(1, 1), "not a GIF image"),
        ("image/jpeg", png(1, 1), "not a JPEG image"),
        (
            "image/jpeg",
            b"\xff\xd8" + segment(0xE0, b"JFIF\x00") + segment(0xDA, b"\x00") + b"\xff\xd9",
            "without a frame",
        ),
        ("image/webp", png(1, 1), "not a WebP image"),
        ("image/webp", webp_lossy(1, 1).replace(b"VP8 ", b"ALPH"), "is not VP8, VP8L or VP8X"),
        ("image/png", png(0, 10), "no area"),
    ],
)
def test_a_file_that_is_not_its_type_is_refused(media_type: str, data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        raster_size(media_type, data)
