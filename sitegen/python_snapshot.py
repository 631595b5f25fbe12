"""The page's Python, made at build time: a memory snapshot with kvpage imported, and its stdlib.

A cold Pyodide spends seconds starting CPython and importing ~140 standard-library modules
before kvpage answers. All of that is the same for every reader, so the build does it once, in
Node (``python_snapshot.mjs``), and ships the resulting wasm memory; the page restores it and
is ready. Three steps, each run by the same pinned Pyodide the page runs:

1. compile the standard library to ``.pyc`` (imports at snapshot time unmarshal instead of
   compiling, which also leaves no compiler garbage in the shipped memory); this depends only
   on Pyodide, so its result is kept between builds (``compiled_stdlib.py``);
2. boot from that, import kvpage from its wheel, answer one request per lab, snapshot;
3. restore the snapshot as the page will and check that the labs answer without the stdlib zip,
   and that tracebacks show source once it is there, so a Pyodide that behaves differently fails
   the build here.

The page gets the ``.py`` source of exactly the modules the snapshot imported (for tracebacks),
not the whole library: every module kvpage needs is already in memory, and a module outside that
set would raise ``ModuleNotFoundError``. Nothing at start-up reads it, so the page fetches it
after the labs are live (see docs/performance.md).

The snapshot is shipped as a patch over the wasm's own data segments (which the page has anyway):
the first 3.8 MB of memory are mostly those segments unchanged, and zero runs are left out. That
container ("KVSNAP01") is specified in ``snapshot_format.py``.

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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kvpage.lab import Lab
from sitegen.compiled_stdlib import compiled_key, compiled_stdlib
from sitegen.errors import BuildError
from sitegen.labs import all_labs
from sitegen.model_imports import model_imports
from sitegen.snapshot_format import decode, encode
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

ZIP_DATE = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class PythonSnapshot:
    """What the page needs to restore Python instead of starting it."""

    encoded: bytes
    """The snapshot as our patch container (``snapshot_format.py``)."""
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


NO_NODE = "node: not found; the build runs Pyodide under Node.js to make the snapshot"


def run_node(*args: str) -> str:
    env = {**os.environ, **NODE_ENV}
    try:
        result = subprocess.run(["node", str(SCRIPT), *args], env=env, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise BuildError([NO_NODE]) from None
    if result.returncode != 0:
        raise BuildError([f"{SCRIPT.name} {args[0]} failed:\n{result.stderr.strip()}"])
    return result.stdout


def node_version() -> str:
    """Node's version: the compiled stdlib is kept per Node too (it runs Pyodide's compiler)."""
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except FileNotFoundError:
        raise BuildError([NO_NODE]) from None


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
    pyodide: Path,
    version: str,
    pinned: Mapping[str, bytes],
    wheel: Path,
    project: Path,
    compiled_cache: Path | None = None,
) -> PythonSnapshot:
    """Compile, snapshot, trim and check; see the module docstring.

    ``pinned`` holds Pyodide's files, checked against their pins. ``project`` holds the model's
    source (``kvpage/``, the wheel's contents): its imports are read there, and lab failures are
    reported at its lines. ``compiled_cache`` keeps step 1's result between builds
    (``compiled_stdlib.py``); None compiles afresh.
    """
    imports, errors = model_imports(project)
    if errors:
        raise BuildError(errors)
    labs = all_labs()
    if version != PYODIDE_VERSION:
        raise BuildError(
            [
                f"Pyodide {version} is pinned, but the memory snapshot (sitegen/python_snapshot.py, "
                f"python_snapshot.mjs, the page's loader in static/kvpage/) was written for {PYODIDE_VERSION}: "
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
        key = compiled_key(pinned, SCRIPT.read_bytes(), {**NODE_ENV, **SNAPSHOT_ENV}, node_version())
        compiled_stdlib(pyc, key, compiled_cache, lambda out: run_node("compile-stdlib", *common, "--out", str(out)))
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
    heap_offset = check_header(snapshot, build_id(pinned["pyodide.js"]))
    wasm = pinned["pyodide.asm.wasm"]
    encoded = encode(snapshot, heap_offset, wasm)
    if decode(encoded, wasm) != snapshot:
        raise BuildError(["memory snapshot: the encoded snapshot does not decode to itself"])
    return PythonSnapshot(
        encoded=encoded, stdlib=stdlib, stdlib_path=made["stdlib"], wheel_path=wheel_path, size=len(snapshot)
    )
