"""An image's size in pixels, read from its file's header: so ``<img>`` gets ``width`` and ``height``.

The browser reserves the box from these before the file arrives, so nothing below it moves; each
format says its size in a few bytes at a known place, so no imaging library is needed
(:func:`raster_size`). SVG, which is XML, is read by :mod:`sitegen.book.svg`.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}
"""The images a chapter may show, by file name extension (lowercase), with their media type."""


class ImageError(ValueError):
    """The file does not hold the image its name promises, or its size cannot be read."""


def png_size(data: bytes) -> tuple[int, int]:
    """PNG: the signature, then the IHDR chunk, whose first eight bytes are width and height."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR" or len(data) < 24:
        raise ImageError("not a PNG image (no PNG signature and IHDR header)")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def gif_size(data: bytes) -> tuple[int, int]:
    """GIF: the signature, then the logical screen's width and height (little-endian)."""
    if data[:6] not in (b"GIF87a", b"GIF89a") or len(data) < 10:
        raise ImageError("not a GIF image (no GIF87a or GIF89a signature)")
    width, height = struct.unpack("<HH", data[6:10])
    return width, height


def webp_size(data: bytes) -> tuple[int, int]:
    """WebP: a RIFF file whose first chunk is lossy (VP8), lossless (VP8L) or extended (VP8X)."""
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        raise ImageError("not a WebP image (no RIFF/WEBP header)")
    chunk = data[12:16]
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a" and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20:21] == b"\x2f" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X" and len(data) >= 30:
        return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    raise ImageError(f"a WebP image whose first chunk ({chunk!r}) is not VP8, VP8L or VP8X")


SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
"""JPEG's start-of-frame markers: each holds the frame's height and width."""
STANDALONE = {0x01, *range(0xD0, 0xD9)}
"""JPEG markers with no length and no payload."""


def jpeg_size(data: bytes) -> tuple[int, int]:
    """JPEG: walk the segments to the start of frame; an EXIF orientation of 5–8 swaps the sides.

    A JPEG whose EXIF orientation turns it by 90° is shown turned by every browser
    (``image-orientation: from-image``), so its width and height are swapped here as well.
    """
    if data[:2] != b"\xff\xd8":
        raise ImageError("not a JPEG image (no SOI marker)")
    position, turned = 2, False
    while position + 4 <= len(data):
        if data[position] != 0xFF:
            raise ImageError(f"not a JPEG image (no marker at byte {position})")
        marker = data[position + 1]
        if marker == 0xFF:  # fill byte before a marker
            position += 1
            continue
        if marker in STANDALONE:
            position += 2
            continue
        (length,) = struct.unpack(">H", data[position + 2 : position + 4])
        segment = data[position + 4 : position + 2 + length]
        if marker == 0xE1 and segment[:6] == b"Exif\x00\x00":
            turned = exif_orientation(segment[6:]) in (5, 6, 7, 8)
        if marker in SOF:
            if len(segment) < 5:
                break
            height, width = struct.unpack(">HH", segment[1:5])
            return (height, width) if turned else (width, height)
        if marker == 0xDA:  # start of scan: no frame header came before the image data
            break
        position += 2 + length
    raise ImageError("a JPEG image without a frame header (SOF): its size cannot be read")


def exif_orientation(tiff: bytes) -> int:
    """The Orientation tag (0x0112) of EXIF's first image directory, or 1 (upright) if it has none."""
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None or len(tiff) < 8:
        return 1
    (offset,) = struct.unpack(f"{order}I", tiff[4:8])
    if offset + 2 > len(tiff):
        return 1
    (count,) = struct.unpack(f"{order}H", tiff[offset : offset + 2])
    for index in range(count):
        entry = tiff[offset + 2 + 12 * index : offset + 14 + 12 * index]
        if len(entry) < 12:
            break
        tag, _kind, _count, value = struct.unpack(f"{order}HHIH", entry[:10])
        if tag == 0x0112:
            return int(value)
    return 1


RASTER: dict[str, Callable[[bytes], tuple[int, int]]] = {
    "image/png": png_size,
    "image/jpeg": jpeg_size,
    "image/gif": gif_size,
    "image/webp": webp_size,
}


def raster_size(media_type: str, data: bytes) -> tuple[int, int]:
    """The width and height in pixels of a PNG, JPEG, GIF or WebP; ImageError if the bytes disagree.

    The browser reserves an image's box from these two attributes before the file arrives, so
    nothing below it moves when it loads (CSS scales it down to the column, keeping the ratio).
    Each format's header says its size in a few bytes at a known place; reading them needs no
    imaging library. SVG, which is XML, is read by :mod:`sitegen.book.svg`.
    """
    width, height = RASTER[media_type](data)
    if width == 0 or height == 0:
        raise ImageError(f"the image's header gives it no area ({width} × {height} pixels)")
    return width, height
