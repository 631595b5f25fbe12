"""The page's Python, made at build time: a memory snapshot with kvpage and all it imports in it.

A cold Pyodide spends seconds starting CPython and importing the stdlib, the same for every reader,
so the build does it once in Node and the page restores the memory (decision 0003). The steps and
their checks: :class:`PythonSnapshot`; the container is ``snapshot_format.py``.
"""

from __future__ import annotations

import json
import os
import re
import struct
import subprocess
import tempfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from kvpage.lab import Lab
from sitegen.book.reproducible import SOURCE_DATE_EPOCH
from sitegen.errors import BuildError, ContentError
from sitegen.labs.discovery import other_labs
from sitegen.labs.model_imports import Import, model_imports
from sitegen.labs.model_lines import FRAME
from sitegen.labs.warm_up import missing_errors, warm_up_errors
from sitegen.limited_run import run_limited
from sitegen.runtime.compiled_stdlib import compiled_key, compiled_stdlib
from sitegen.runtime.snapshot_format import decode, encode

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


@dataclass(frozen=True)
class PythonSnapshot:
    """What the page needs to restore Python instead of starting it, made by :func:`make_python_snapshot`:

    1. compile the standard library to ``.pyc`` (imports at snapshot time unmarshal instead of
       compiling, which also leaves no compiler garbage in the shipped memory), as ``python -OO``
       would, so no stdlib docstring is in that memory (decision 0049), and with line numbers but no
       columns in its code's line tables (decision 0058); this depends only on Pyodide, so its
       result is kept between builds (``compiled_stdlib.py``);
    2. boot from that in Node (``python_snapshot.mjs``), import kvpage from its wheel and every
       standard-library module the model imports, call every action of each lab the book may show
       (its enabled labs: a lab no book enables, and what only it imports, stays out), drop the
       docstrings and columns left in code that is not the model's (the frozen modules', the
       built-in modules' docstrings: 0058), zero what Python freed (the free chunks of its heap, the
       dead stack: a megabyte of stale bytes that compressed to 0.2 MB, decision 0057), snapshot;
    3. restore the snapshot as the page will, with an empty stdlib zip, and check that every lab
       answers, that a module outside memory raises ``ModuleNotFoundError``, that a traceback
       shows the model's source lines and one through ``json`` its line numbers, and that what 0058
       leaves out is out, so a Pyodide that behaves differently fails the build here.

    The page gets no standard library besides what is in memory: every module kvpage needs is
    there, and one outside that set would raise ``ModuleNotFoundError`` with or without a zip of the
    sources of those in memory (which is all such a zip could hold). Such a zip would serve only the
    source lines of standard-library frames in a model's traceback (measured: docs/performance.md),
    so none is shipped (decision 0010); the model's own lines come from its wheel.

    The snapshot is shipped as a patch over the wasm's own data segments (which the page has
    anyway): the first 3.8 MB of memory are mostly those segments unchanged, and zero runs are left
    out. That container ("KVSNAP01") is specified in ``snapshot_format.py``.

    Everything here leans on private Pyodide API, so it runs only on the exact files it was written
    and tested against: ``pyodide-pins.json`` holds their sha256 (a new Pyodide in ``package.json``
    fails the build until its files are pinned, which is the moment to re-read Pyodide's
    ``snapshot.ts``); the snapshot's embedded build id must equal the one in the ``pyodide.js`` the
    page loads.
    """

    encoded: bytes
    """The snapshot as our patch container (``snapshot_format.py``)."""
    modules: tuple[str, ...]
    """The standard library's files in the snapshot's memory (``json/decoder.py``, ...): all the page has."""
    wheel_path: str
    """Absolute path of kvpage's wheel inside the page's Python file system."""
    size: int
    """Bytes of the restored snapshot (Pyodide's format): the wasm memory the page allocates."""
    imports: tuple[str, ...] = ()
    """The standard-library modules imported for the model before the snapshot was taken."""


def build_id(pyodide_js: bytes) -> str:
    """The ``BUILD_ID`` baked into ``pyodide.js``: a snapshot records the one it was made by."""
    found: list[bytes] = re.findall(rb'BUILD_ID:"([0-9a-f]{64})"', pyodide_js)
    if len(found) != 1:
        raise BuildError([f"pyodide.js: expected one BUILD_ID, found {len(found)}: has Pyodide changed?"])
    return found[0].decode("ascii")


NODE_ENV = {"TZ": "UTC", "LC_ALL": "C.UTF-8", "SOURCE_DATE_EPOCH": str(SOURCE_DATE_EPOCH)}
"""The snapshot process's time zone, locale and clock: Python's ``time`` module keeps the zone it
saw, and the script's clock and the compiled files' dates are the build's one date."""


NO_NODE = "the build runs Pyodide under Node.js to make the snapshot"
NODE_TIMEOUT = 900
"""Seconds one run of Pyodide under Node may take, as a backstop: every lab action's warm-up call has
already run in CPython under the book's ``build_timeout`` (the labs stage), so only a model that
loops in Pyodide alone, or a stuck Node, gets here; minutes on a loaded 2-core machine are normal."""


def run_node(*args: str) -> str:
    env = {**os.environ, **NODE_ENV}
    command = ["node", str(SCRIPT), *args]
    result = run_limited(command, NODE_TIMEOUT, f"{SCRIPT.name} {args[0]} (Pyodide under Node)", NO_NODE, env=env)
    if result.returncode != 0:
        raise BuildError([f"{SCRIPT.name} {args[0]} failed:\n{result.stderr.strip()}"])
    return result.stdout


def node_version() -> str:
    """Node's version: the compiled stdlib is kept per Node too (it runs Pyodide's compiler)."""
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except FileNotFoundError:
        raise BuildError([f"node: not found; {NO_NODE}"]) from None


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


STDLIB_FRAME = re.compile(r'File "[^"]*/json/decoder\.py", line \d+, in ')
"""A frame of the check's traceback through ``json.loads``: the standard library keeps its line numbers."""
LEAN = {"json": [True, False], "frozen": [True, False], "model": [True, True], "docstrings": ["kvpage.jsonvalue"]}
"""The check's probe of what the snapshot left out (decision 0058): a function's code of the standard
library (compiled, frozen) places lines and no columns, the model's both; of the modules json, os,
sys and one of the model's only the model's keeps its docstring."""


def check_restored(report: str, labs: Mapping[str, Lab], project: Path) -> None:
    """The check command's findings: every lab action answers, a missing module is ModuleNotFoundError,
    tracebacks show the model's source lines, read from the wheel, and the standard library's line
    numbers, and what decision 0058 leaves out of memory is out (``LEAN``)."""
    found = json.loads(report)
    if found["failures"]:
        raise BuildError(warm_up_errors(found["failures"], labs, project))
    problems = []
    if not shows_model_source(found["traceback"], project):
        problems.append(
            f"a traceback from the restored snapshot shows no source line of the model:\n{found['traceback']}"
        )
    if not STDLIB_FRAME.search(found["stdlib_traceback"]):
        problems.append(f"a traceback through json.loads names no line of json:\n{found['stdlib_traceback']}")
    if found["lean"] != LEAN:
        problems.append(f"the restored code's lines, columns and docstrings are {found['lean']}, expected {LEAN}")
    if not found["missing"]:
        problems.append("importing a module that does not exist did not raise ModuleNotFoundError")
    if problems:
        raise BuildError([f"memory snapshot check: {problem}" for problem in problems])


def shows_model_source(traceback: str, project: Path) -> bool:
    """Whether ``traceback``'s innermost model frame is followed by that line of the model's source."""
    frames = [frame for frame in FRAME.finditer(traceback) if "/kvpage/" in frame.group(1)]
    if not frames:
        return False
    last = frames[-1]
    file, line = last.group(1), int(last.group(2))
    try:
        source = (project / file[file.rindex("/kvpage/") + 1 :]).read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    shown = traceback[last.end() :].split("\n")
    return 0 < line <= len(source) and len(shown) > 1 and shown[1].strip() == source[line - 1].strip() != ""


def book_imports(project: Path, labs: Collection[str]) -> tuple[list[Import], list[ContentError]]:
    """The standard-library imports of a book's wheel, whose labs are ``labs``, and errors for imports
    the page can never have (:func:`sitegen.labs.model_imports.model_imports`).

    Every file of the wheel counts (the bridge, the helpers), and only those: the other labs' modules
    are not in it (:func:`sitegen.labs.discovery.other_labs`), so the snapshot imports nothing for them.
    """
    return model_imports(project, other_labs(labs))


def make_python_snapshot(
    pyodide: Path,
    version: str,
    pinned: Mapping[str, bytes],
    wheel: Path,
    project: Path,
    labs: Mapping[str, Lab],
    compiled_cache: Path | None = None,
) -> PythonSnapshot:
    """Compile, snapshot, trim and check, each step run by the same pinned Pyodide the page runs
    (the steps, and why: :class:`PythonSnapshot`).

    ``pinned`` holds Pyodide's files, checked against their pins. ``project`` holds the model's
    source (``kvpage/``, of which the wheel holds all but the other labs' modules): the imports of
    the wheel's files are read there, and lab failures are reported at its lines. ``labs`` are the
    labs the book may show: the snapshot imports what they import and warms them up, and nothing
    of the others. ``compiled_cache`` keeps step 1's result between builds (``compiled_stdlib.py``);
    None compiles afresh.
    """
    imports, errors = book_imports(project, labs)
    if errors:
        raise BuildError(errors)
    wheel_path = f"{WHEEL_DIR}/{wheel.name}"
    with tempfile.TemporaryDirectory(prefix="kvpage-snapshot-") as tmp:
        folder = Path(tmp)
        pyc = folder / "stdlib-pyc.zip"
        raw = folder / "python.snapshot"
        common = ("--pyodide", str(pyodide), "--env", json.dumps(SNAPSHOT_ENV))
        key = compiled_key(pinned, SCRIPT.read_bytes(), {**NODE_ENV, **SNAPSHOT_ENV}, node_version())
        compiled_stdlib(pyc, key, compiled_cache, lambda out: run_node("compile-stdlib", *common, "--out", str(out)))
        wheel_args = ("--wheel", str(wheel), "--wheel-path", wheel_path, "--labs", json.dumps(sorted(labs)))
        imported = tuple(sorted({item.module for item in imports}))
        wanted = json.dumps(list(imported))
        made = json.loads(
            run_node("snapshot", *common, "--stdlib", str(pyc), *wheel_args, "--imports", wanted, "--out", str(raw))
        )
        if made["missing"] or made["failures"]:
            raise BuildError(
                missing_errors(made["missing"], imports, version) + warm_up_errors(made["failures"], labs, project)
            )
        check_restored(run_node("check", *common, "--snapshot", str(raw), *wheel_args), labs, project)
        snapshot = raw.read_bytes()
    heap_offset = check_header(snapshot, build_id(pinned["pyodide.js"]))
    wasm = pinned["pyodide.asm.wasm"]
    encoded = encode(snapshot, heap_offset, wasm)
    if decode(encoded, wasm) != snapshot:
        raise BuildError(["memory snapshot: the encoded snapshot does not decode to itself"])
    return PythonSnapshot(
        encoded=encoded, modules=tuple(made["modules"]), wheel_path=wheel_path, size=len(snapshot), imports=imported
    )
