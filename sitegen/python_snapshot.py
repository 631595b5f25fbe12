"""The page's Python, made at build time: a memory snapshot with kvpage imported, and its stdlib.

A cold Pyodide spends seconds starting CPython and importing ~140 standard-library modules
before kvpage answers. All of that is the same for every reader, so the build does it once, in
Node (``python_snapshot.mjs``), and ships the resulting wasm memory; the page restores it and
is ready. Three steps, each run by the same pinned Pyodide the page runs:

1. compile the standard library to ``.pyc`` (imports at snapshot time unmarshal instead of
   compiling, which also leaves no compiler garbage in the shipped memory);
2. boot from that, import kvpage from its wheel, answer one request per lab, snapshot;
3. restore the snapshot as the page will and check that the labs answer without the stdlib zip,
   and that tracebacks show source once it is there, so a Pyodide that behaves differently fails
   the build here.

The page gets the ``.py`` source of exactly the modules the snapshot imported (for tracebacks),
not the whole library: every module kvpage needs is already in memory, and a module outside that
set would raise ``ModuleNotFoundError``. Nothing at start-up reads it, so the page fetches it
after the labs are live (see docs/performance.md).

The snapshot is shipped as a patch over the wasm's own data segments (which the page has anyway):
the first 3.8 MB of memory are mostly those segments unchanged, and zero runs are left out.

Everything here leans on private Pyodide API, so it runs only for the exact version it was written
and tested against (``PYODIDE_VERSION``); the snapshot's embedded build id must equal the one in
the ``pyodide.js`` the page loads.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kvpage.catalog import find_labs
from kvpage.lab import Lab
from sitegen.errors import BuildError
from sitegen.model_imports import model_imports
from sitegen.warm_up import missing_errors, warm_up_errors

PYODIDE_VERSION = "314.0.7"
"""The only Pyodide whose private snapshot API this module (and the page's loader) was tested on."""

SCRIPT = Path(__file__).with_name("python_snapshot.mjs")
WHEEL_DIR = "/lib/kvpage"
"""Where the page's Python finds kvpage: its wheel, imported with zipimport from this folder."""

PYODIDE_MAGIC = 1886286592
"""First word of a Pyodide memory snapshot (``snapshot.ts``)."""
PYODIDE_HEADER = 48
"""Bytes before the snapshot's JSON: magic, heap offset, JSON length, reserved, 32-byte build id."""

SNAPSHOT_ENV = {"PYTHONHASHSEED": "0"}
"""Python's environment when the snapshot is made, and when the page restores it.

The snapshot freezes the hash secret (and everything else in memory) for every reader anyway;
a fixed seed makes that explicit and the build reproducible.
"""

MAGIC = b"KVSNAP01"
"""Our container: magic, then u32 total size, u32 heap offset, u32 record count, little-endian."""
MERGE_GAP = 32
"""Equal runs shorter than this stay inside a record: fewer records (~6,500) for the page to apply."""

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class PythonSnapshot:
    """What the page needs to restore Python instead of starting it."""

    encoded: bytes
    """The snapshot as our patch container (see ``encode``)."""
    stdlib: bytes
    """The page's standard library zip: ``.py`` of every module the snapshot imported."""
    stdlib_path: str
    """Where Pyodide's zipimport reads the stdlib zip from; the page writes it there once live."""
    wheel_path: str
    """Absolute path of kvpage's wheel inside the page's Python file system."""
    size: int
    """Bytes of the restored snapshot (Pyodide's format): the wasm memory the page allocates."""


def build_id(pyodide_js: bytes) -> str:
    """The ``BUILD_ID`` baked into ``pyodide.js``: a snapshot records the one it was made by."""
    found: list[bytes] = re.findall(rb'BUILD_ID:"([0-9a-f]{64})"', pyodide_js)
    if len(found) != 1:
        raise BuildError([f"pyodide.js: expected one BUILD_ID, found {len(found)}: has Pyodide changed?"])
    return found[0].decode("ascii")


NODE_ENV = {"TZ": "UTC", "LC_ALL": "C.UTF-8"}
"""The snapshot process's time zone and locale: Python's ``time`` module keeps the zone it saw."""


def run_node(*args: str) -> str:
    env = {**os.environ, **NODE_ENV}
    try:
        result = subprocess.run(["node", str(SCRIPT), *args], env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise BuildError(["node: not found; the build runs Pyodide under Node.js to make the snapshot"]) from None
    if result.returncode != 0:
        raise BuildError([f"{SCRIPT.name} {args[0]} failed:\n{result.stderr.strip()}"])
    return result.stdout


def page_stdlib(stdlib: bytes, modules: list[str]) -> bytes:
    """The ``.py`` files ``modules`` from Pyodide's stdlib zip, stored (the server compresses)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(stdlib)) as source, zipfile.ZipFile(buffer, "w") as target:
        for name in sorted(set(modules)):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.external_attr = 0o644 << 16
            target.writestr(info, source.read(name))
    return buffer.getvalue()


def check_header(snapshot: bytes, expected_build_id: str) -> int:
    """The heap offset of a Pyodide snapshot, after checking its magic and build id."""
    magic, heap_offset = struct.unpack_from("<II", snapshot)
    if magic != PYODIDE_MAGIC:
        raise BuildError([f"memory snapshot: magic {magic:#x}, expected {PYODIDE_MAGIC:#x}: has Pyodide changed?"])
    words = struct.unpack_from("<8I", snapshot, 16)
    found = "".join(f"{word:08x}" for word in words)
    if found != expected_build_id:
        raise BuildError([f"memory snapshot: build id {found} is not pyodide.js's {expected_build_id}"])
    if heap_offset % 16 or not PYODIDE_HEADER <= heap_offset < len(snapshot):
        raise BuildError([f"memory snapshot: heap offset {heap_offset} is implausible"])
    return int(heap_offset)


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
    means the page's copy of this parser (``kvpage.js``) would build a different image.
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
            records.append(struct.pack("<II", start, end - start) + heap[start:end].tobytes())
    head = MAGIC + struct.pack("<III", len(snapshot), heap_offset, len(records))
    return head + snapshot[:heap_offset] + b"".join(records)


def decode(encoded: bytes, wasm: bytes) -> bytes:
    """The Pyodide snapshot back from ``encode``: what the page's loader does, in Python."""
    if encoded[:8] != MAGIC:
        raise ValueError("not a kvpage snapshot")
    size, heap_offset, count = struct.unpack_from("<III", encoded, 8)
    at = 20 + heap_offset
    heap = base_image(wasm, size - heap_offset)
    for _ in range(count):
        offset, length = struct.unpack_from("<II", encoded, at)
        heap[offset : offset + length] = np.frombuffer(encoded, dtype=np.uint8, count=length, offset=at + 8)
        at += 8 + length
    if at != len(encoded):
        raise ValueError("trailing bytes after the last record")
    return encoded[20 : 20 + heap_offset] + heap.tobytes()


def check_restored(report: str, labs: Mapping[str, Lab], project: Path) -> None:
    """The check command's findings: every lab action answers, tracebacks show stdlib source lines."""
    found = json.loads(report)
    if found["failures"]:
        raise BuildError(warm_up_errors(found["failures"], labs, project))
    problems = []
    if "return _default_decoder.decode(s)" not in found["traceback"]:
        problems.append(f"a traceback from the restored snapshot shows no stdlib source:\n{found['traceback']}")
    if not found["missing"]:
        problems.append("importing a module that does not exist did not raise ModuleNotFoundError")
    if problems:
        raise BuildError([f"memory snapshot check: {problem}" for problem in problems])


def make_python_snapshot(
    pyodide: Path, version: str, pyodide_js: bytes, wasm: bytes, wheel: Path, project: Path
) -> PythonSnapshot:
    """Compile, snapshot, trim and check; see the module docstring.

    ``project`` holds the model's source (``kvpage/``, the wheel's contents): its
    imports are read there, and lab failures are reported at its lines.
    """
    imports, errors = model_imports(project)
    if errors:
        raise BuildError(errors)
    labs = find_labs()
    if version != PYODIDE_VERSION:
        raise BuildError(
            [
                f"Pyodide {version} is pinned, but the memory snapshot (sitegen/python_snapshot.py, "
                f"python_snapshot.mjs, the loader in kvpage.js) was written for {PYODIDE_VERSION}: "
                "re-read Pyodide's snapshot.ts and re-test before changing PYODIDE_VERSION"
            ]
        )
    wheel_path = f"{WHEEL_DIR}/{wheel.name}"
    with tempfile.TemporaryDirectory(prefix="kvpage-snapshot-") as tmp:
        folder = Path(tmp)
        pyc = folder / "stdlib-pyc.zip"
        raw = folder / "python.snapshot"
        page = folder / "python_stdlib.zip"
        common = ("--pyodide", str(pyodide), "--env", json.dumps(SNAPSHOT_ENV))
        run_node("compile-stdlib", *common, "--out", str(pyc))
        wheel_args = ("--wheel", str(wheel), "--wheel-path", wheel_path, "--labs", json.dumps(sorted(labs)))
        wanted = json.dumps(sorted({item.module for item in imports}))
        made = json.loads(
            run_node("snapshot", *common, "--stdlib", str(pyc), *wheel_args, "--imports", wanted, "--out", str(raw))
        )
        if made["missing"] or made["failures"]:
            raise BuildError(
                missing_errors(made["missing"], imports, version) + warm_up_errors(made["failures"], labs, project)
            )
        stdlib = page_stdlib((pyodide / "python_stdlib.zip").read_bytes(), made["modules"])
        page.write_bytes(stdlib)
        page_args = ("--stdlib", str(page), "--stdlib-path", made["stdlib"], "--snapshot", str(raw))
        check_restored(run_node("check", *common, *page_args, *wheel_args), labs, project)
        snapshot = raw.read_bytes()
    heap_offset = check_header(snapshot, build_id(pyodide_js))
    encoded = encode(snapshot, heap_offset, wasm)
    if decode(encoded, wasm) != snapshot:
        raise BuildError(["memory snapshot: the encoded snapshot does not decode to itself"])
    return PythonSnapshot(
        encoded=encoded, stdlib=stdlib, stdlib_path=made["stdlib"], wheel_path=wheel_path, size=len(snapshot)
    )
