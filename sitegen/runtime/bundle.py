"""Stage "runtime": the in-browser runtime, Pyodide plus our wheel, checked and packed.

Every file taken from Pyodide must match its pin, so a changed download fails the build. Its
JavaScript becomes a plain script for a worker made from a Blob (:func:`classic_module`, decision
0047); every binary is packed, written twice and named after its content (:class:`Runtime`).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pyodide_lock.spec import InfoSpec
from pyodide_lock.utils import package_spec_from_wheel

from kvpage.lab import Lab
from sitegen.book.reproducible import SOURCE_DATE_EPOCH
from sitegen.errors import BuildError
from sitegen.labs.discovery import other_labs
from sitegen.labs.model_imports import model_tree
from sitegen.runtime.names import RUNTIME_DIR, content_name, is_content_addressed
from sitegen.runtime.npm import declared_version
from sitegen.runtime.packing import DECODER_MODULE, GZIP, MEDIA_TYPES, ZSTD, pack, pack_gzip, zstd_decoder
from sitegen.runtime.snapshot import SNAPSHOT_ENV, PythonSnapshot, book_imports, make_python_snapshot


@dataclass(frozen=True)
class Runtime:
    """The files of ``pyodide/`` in the site and what the page needs to boot (:func:`packed_runtime`).

    Every binary is packed (``sitegen/runtime/packing.py``: the wasm and the snapshot with zstd, level
    19, the others with gzip -9), and every packed file is written twice:

    - ``NAME.bin``: the packed file, fetched over http. The name tells no host to
      add a ``Content-Encoding`` (``.gz`` may: then the browser would undo our gzip
      before the page sees it), and hosts send ``.bin`` as
      ``application/octet-stream``, as it is: what a reader downloads is the same
      on every host, compressed or not by it.
    - ``NAME.bin.js``: the same bytes base64-encoded in a classic script, for
      file:// and, inline, for the single-file book.

    The page un-gzips with ``DecompressionStream`` (Chromium 80, Firefox 113, Safari 16.4), and its
    unpacker worker decodes zstd with the pinned WebAssembly decoder the build puts before Pyodide's
    JavaScript (:func:`worker_code`); see docs/performance.md for why. The zip of the site leaves
    the ``.bin`` files out (``Runtime.fetched_only``): from disk only the scripts
    load, and an unzipped copy served over http falls back to them.

    Every file the page loads is named after its content (``pyodide.asm.3f2a9c1e.wasm.bin``,
    ``sitegen/runtime/names.py``), so a server may let browsers keep it for a year. The loader
    config maps the names Pyodide and the loader use (``pyodide.asm.wasm``) to those files.
    """

    files: dict[str, bytes]
    """Relative path in the site → content."""
    scripts: tuple[str, ...]
    """The packed binaries' scripts (``NAME.bin.js``), in the order the page needs them, relative to the site root."""
    lock: dict[str, Any]
    """The Pyodide lock file listing our wheel (and nothing else)."""
    wheel: str
    """File name of the kvpage wheel."""
    version: str
    loader: Loader
    """What the page's loader needs besides the scripts: asset names, sizes, the snapshot's setup."""
    fetched_only: tuple[str, ...] = ()
    """Files only a page served over http reads (the packed binaries): the zip leaves them out."""
    labs: tuple[str, ...] = ()
    """The labs the snapshot holds (warmed up, their imports in memory), by name."""
    modules: tuple[str, ...] = ()
    """The standard library's files in the snapshot's memory: all the page's Python has of it."""
    snapshot_key: str = ""
    """For a runtime made by :func:`with_new_wheel`: the cache key of the runtime whose snapshot it keeps."""
    imports: tuple[str, ...] = ()
    """The standard-library modules the model imports that the snapshot imported for it
    (``book_imports``): a new wheel whose model imports no others can run on this snapshot."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_pinned(package: Path, pins_file: Path, wanted: str, what: str = "Pyodide") -> tuple[dict[str, bytes], str]:
    """The pinned files of the npm package (``what``, for messages), each checked against its sha256,
    once the installed version is ``wanted`` (the one ``package.json`` declares, sitegen/runtime/npm.py).

    Pyodide arrives as the npm package pinned in ``package.json``. Every file we take from it must
    match the sha256 in ``pyodide-pins.json``, so a changed download fails the build instead of
    shipping a different interpreter.
    """
    if not package.is_dir():
        raise BuildError([f"{package}: {what} is not installed; run 'npm ci' (the README's build command does)"])
    pins = json.loads(pins_file.read_text(encoding="utf-8"))
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    if version != wanted:
        raise BuildError([f"{package}: {what} {version} is installed but package.json declares {wanted}; run 'npm ci'"])
    files: dict[str, bytes] = {}
    errors: list[str] = []
    for name, expected in sorted(pins["files"].items()):
        path = package / name
        if not path.is_file():
            errors.append(f"{path}: missing from the {what} package")
            continue
        data = path.read_bytes()
        if sha256(data) != expected:
            errors.append(f"{path}: sha256 {sha256(data)} does not match the pinned {expected}")
        files[name] = data
    if errors:
        raise BuildError(errors)
    return files, version


def replace_once(text: str, old: str, new: str, what: str) -> str:
    """``text`` with its single ``old`` replaced; anything else means Pyodide changed."""
    found = text.count(old)
    if found != 1:
        raise BuildError([f"{what}: expected exactly one {old!r}, found {found}: has Pyodide changed?"])
    return text.replace(old, new)


SHARED_MEMORY = (
    "var io=new Int32Array(new WebAssembly.Memory({shared:!0,initial:1,maximum:1}).buffer);"
    "function so(t){try{return Atomics.wait(io,0,0,t),!0}catch{return!1}}"
)
"""The pinned Pyodide's syncSleep, minified as shipped: its shared memory is made when the module loads."""
LAZY_SHARED_MEMORY = (
    "var io;"
    "function so(t){try{io??=new Int32Array(new WebAssembly.Memory({shared:!0,initial:1,maximum:1}).buffer);"
    "return Atomics.wait(io,0,0,t),!0}catch{return!1}}"
)
"""The same, with the memory made on the first call."""


def classic_module(source: bytes) -> bytes:
    """``pyodide.asm.mjs`` as a plain script defining ``globalThis._createPyodideModule`` (no export, no
    import.meta), its shared memory made only if it is ever used.

    The page runs Python in a Web Worker made from a Blob of JavaScript it holds
    (``static/kvpage/python.js``): a page opened from disk (file://, origin ``null``) has no worker
    URL, and can read its sibling files only as classic ``<script src>`` (``fetch``, XHR and
    ``import()`` of file:// URLs are refused). So Pyodide's JavaScript is one more binary for the
    worker: ``pyodide.js`` with the ES module ``pyodide.asm.mjs`` after it, made a plain script
    (each rewrite asserts the exact text it replaces, so a new Pyodide fails here, loudly).
    """
    text = source.decode("utf-8")
    what = "pyodide.asm.mjs"
    text = replace_once(
        text, "export default _createPyodideModule;", "globalThis._createPyodideModule=_createPyodideModule;", what
    )
    if text.count("import.meta.url") != 3:
        raise BuildError([f"{what}: expected 3 uses of import.meta.url, found {text.count('import.meta.url')}"])
    # Only Node and the default script location read it; the page passes indexURL and locateFile.
    text = text.replace("import.meta.url", "globalThis.location.href")
    if "import.meta" in text:
        raise BuildError([f"{what}: still uses import.meta after the rewrite; has Pyodide changed?"])
    # Pyodide makes a shared wasm memory when it loads, only for syncSleep (an Atomics.wait while
    # a read says EAGAIN, which a page's main thread may not do anyway). Shared memory without
    # cross-origin isolation is deprecated: Chromium warns on every load (Lighthouse's Best
    # Practices counts it). Made on first use instead, inside syncSleep's own try, it never is.
    text = replace_once(text, SHARED_MEMORY, LAZY_SHARED_MEMORY, what)
    return text.encode("utf-8")


def strip_source_map(source: bytes, name: str) -> bytes:
    """Drop the source-map comment so no tool asks the site for a file it lacks."""
    text = source.decode("utf-8")
    return replace_once(text, f"\n//# sourceMappingURL={name}.map\n", "\n", name).encode("utf-8")


PACKED = ".bin"
"""Suffix of a packed (gzipped or zstd) binary; :class:`Runtime` says why not ``.gz``."""


def sent_size(path: str, data: bytes) -> int:
    """The bytes a host that compresses text (GitHub Pages: gzip) sends for ``path``.

    Over http the page fetches only the packed binaries (Pyodide's JavaScript is one), which are
    ``application/octet-stream``, sent as they are (they are packed already); a script such a host
    would gzip. The page's progress bar starts from these, and corrects one by what the browser
    reports it received when it comes another way (its script, from an unzipped copy).
    """
    return len(pack_gzip(data)) if path.endswith(".js") else len(data)


def asset_script(name: str, media_type: str, data: bytes) -> bytes:
    """A classic script that hands ``data`` to the page's loader, base64-encoded."""
    payload = base64.b64encode(data).decode("ascii")
    entry = f'"{name}",{{type:"{media_type}",base64:"{payload}"}}'
    return f"(globalThis.kvpageAssets??=new Map()).set({entry});\n".encode("ascii")


MODEL = "kvpage"
"""The model's folder: its package, and its own project (``kvpage/pyproject.toml``) for the wheel."""


def build_wheel(project: Path, out: Path, labs: Collection[str]) -> Path:
    """The model's wheel for a book whose labs are ``labs``: the project ``kvpage/pyproject.toml``
    without the other labs' modules (:func:`sitegen.labs.discovery.other_labs`), built by hatchling, reproducibly.

    A book ships only the labs it may show: an experimental or fixture lab it does not enable is
    no module of its wheel (nor of its snapshot: ``python_snapshot.book_imports`` reads the same
    files). Hatchling builds a folder, so it builds a copy of ``kvpage/`` that holds only those
    files (:func:`sitegen.labs.model_imports.model_tree`); where the copy is leaves no mark on the wheel.
    Built in this process, not by hatchling's command: no Python to start, which ``serve``'s model
    edits feel most (its build process has hatchling imported already).
    """
    from hatchling.builders.wheel import WheelBuilder

    with tempfile.TemporaryDirectory(prefix="kvpage-model-") as tmp:
        source = Path(tmp) / MODEL
        for path in model_tree(project, other_labs(labs)):
            copy = source / path.relative_to(project / MODEL)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
        before = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = str(SOURCE_DATE_EPOCH)
        try:
            (made,) = WheelBuilder(str(source)).build(directory=str(out), versions=["standard"])
        except Exception as error:  # noqa: BLE001 - pyproject.toml or the package, as the frontend would say
            raise BuildError([f"building the kvpage wheel failed: {type(error).__name__}: {error}"]) from None
        finally:
            if before is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = before
    return Path(made)


def make_lock(pyodide_lock: bytes, wheel: Path, version: str) -> dict[str, Any]:
    """Pyodide's lock file with our wheel as its only package.

    pyodide-lock (the offline part of pyodide-build) checks that the wheel suits
    this Pyodide and derives its entry (name, imports, sha256). Its schema is
    older than Pyodide 314's file (no ``tool`` key, ``info.version`` required),
    so only the entry is taken from it; the rest of the file stays Pyodide's.
    """
    lock: dict[str, Any] = json.loads(pyodide_lock)
    info = InfoSpec(**{**lock["info"], "version": version})
    entry = package_spec_from_wheel(wheel, info).model_dump()
    entry["file_name"] = wheel.name
    lock["packages"] = {entry["name"]: {**entry, "tool": {}}}
    return lock


ZSTD_PACKED = ("pyodide.asm.wasm", "python.snapshot")
"""The binaries packed with zstd (the wasm and the snapshot: most of the bytes); the others gzip."""
SNAPSHOT = "python.snapshot"
"""The page's Python memory, made at build time (``sitegen/runtime/snapshot.py``)."""
CODE = "pyodide.js"
"""Pyodide's JavaScript (``pyodide.js``, then ``pyodide.asm.mjs`` made a plain script): the page
runs it in its Python worker, never on the page itself, so it too is a packed binary."""
WASM = "pyodide.asm.wasm"
STDLIB = "python_stdlib.zip"
"""What Pyodide asks its ``indexURL`` for as the standard library: the worker answers with an empty
file (every module the labs use is in the snapshot's memory), so the site has no such file."""


@dataclass(frozen=True)
class Loader:
    """What the page's loader reads to start Python: the "python" object of the page's config.

    Its keys are these fields' names, and the page's script reads exactly these
    (``tests/sitegen/site/test_page_contract.py`` holds the two together). The asset names
    (``code``, ``wasm``, …) are keys of ``packed`` and ``unpacked``.
    """

    pyodide: str
    """The Pyodide version the snapshot was made by; the worker checks the one it started."""
    index_url: str
    """Pyodide's ``indexURL``, relative to the page: the folder of the runtime's files."""
    lock: dict[str, Any]
    """The Pyodide lock file listing our wheel, given to Pyodide as it starts."""
    code: str
    decoder_size: int
    """Bytes at the start of the code, unpacked, that are the zstd decoder's script (:func:`worker_code`)."""
    wasm: str
    snapshot: str
    snapshot_size: int
    """Bytes of the restored memory image (the buffer the worker allocates for it)."""
    stdlib: str
    """The name Pyodide asks for as its standard library (``STDLIB``); the worker answers with an empty file."""
    wheel: str
    wheel_path: str
    """Where the snapshot imported kvpage's wheel from; the worker writes it there before restoring."""
    env: dict[str, str]
    packed: dict[str, str]
    """Asset name → its packed file in ``pyodide/``, named after its content (its script adds ``.js``)."""
    unpacked: dict[str, int]
    """Asset name → its size unpacked."""
    encoding: dict[str, str]
    """Asset name → how its file is packed: ``"gzip"`` or ``"zstd"`` (``sitegen/runtime/packing.py``)."""
    sizes: dict[str, int]
    """Site path → bytes of each runtime file the page may load (for the progress bar)."""
    sent: dict[str, int]
    """Site path → bytes a host sends for each packed binary fetched over http (``sent_size``): the
    progress bar's total before anything arrived."""
    fresh_model: bool = False
    """The wheel is newer than the model the snapshot imported (``serve`` after a model edit:
    :func:`with_new_wheel`): the worker imports kvpage afresh from it once Python is restored."""

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_runtime(
    project: Path, labs: Mapping[str, Lab], compiled_cache: Path | None = None, packed_cache: Path | None = None
) -> Runtime:
    """Check the pinned Pyodide, build our wheel, make Python's memory snapshot, pack it all.

    ``labs`` are the labs the book may show (its enabled ones): the snapshot holds them and what
    they import, nothing else. ``compiled_cache`` is where the compiled stdlib is kept between
    builds, ``packed_cache`` the zstd output (``sitegen/runtime/packing.py``); None makes them afresh.
    """
    package = project / "node_modules" / "pyodide"
    wanted = declared_version(project, "pyodide")
    pinned, version = read_pinned(package, Path(__file__).with_name("pyodide-pins.json"), wanted)
    decoder = read_decoder(project)
    with tempfile.TemporaryDirectory(prefix="kvpage-wheel-") as tmp:
        wheel = build_wheel(project, Path(tmp), labs)
        lock = make_lock(pinned["pyodide-lock.json"], wheel, version)
        wheel_bytes = wheel.read_bytes()
        wheel_name = wheel.name
        python = make_python_snapshot(package, version, pinned, wheel, project, labs, compiled_cache)
    code, decoder_size = worker_code(pinned, decoder)
    blobs = {
        CODE: code,
        WASM: pinned["pyodide.asm.wasm"],
        SNAPSHOT: python.encoded,
        wheel_name: wheel_bytes,
    }
    files, loader = packed_runtime(blobs, wheel_name, lock, version, python, packed_cache, decoder_size)
    names = loader.packed
    return Runtime(
        files=files,
        scripts=tuple(f"{RUNTIME_DIR}/{names[name]}.js" for name in blobs),
        lock=lock,
        wheel=wheel_name,
        version=version,
        loader=loader,
        fetched_only=tuple(f"{RUNTIME_DIR}/{names[name]}" for name in blobs),
        labs=tuple(sorted(labs)),
        modules=python.modules,
        imports=python.imports,
    )


def packed_runtime(
    blobs: dict[str, bytes],
    wheel_name: str,
    lock: dict[str, Any],
    version: str,
    python: PythonSnapshot,
    packed_cache: Path | None,
    decoder_size: int,
) -> tuple[dict[str, bytes], Loader]:
    """The files of ``pyodide/`` for the binaries ``blobs`` (asset name → bytes, the wheel's under
    ``wheel_name``; the code's first ``decoder_size`` bytes are the zstd decoder's script), each
    packed, named after its content and written twice (:class:`Runtime` says why), and the page's loader.
    """
    wheel_bytes = blobs[wheel_name]
    encoding = {name: ZSTD if name in ZSTD_PACKED else GZIP for name in blobs}
    packed = {name: pack(data, encoding[name], packed_cache) for name, data in blobs.items()}
    # Every file the page loads is named after its content (sitegen/runtime/names.py).
    names = {name: content_name(name, data, PACKED) for name, data in packed.items()}
    files = {
        "pyodide-lock.json": (json.dumps(lock, indent=2, sort_keys=True) + "\n").encode("utf-8"),
        wheel_name: wheel_bytes,  # as the lock file names it, for tools that install from the lock
    }
    # Each binary packed twice: fetched over http, and as a script for file:// (Runtime's docstring).
    files |= {names[name]: data for name, data in packed.items()}
    files |= {
        f"{names[name]}.js": asset_script(name, MEDIA_TYPES[encoding[name]], data) for name, data in packed.items()
    }
    files = {f"{RUNTIME_DIR}/{name}": data for name, data in sorted(files.items())}
    loaded = {path: data for path, data in files.items() if is_content_addressed(path)}
    loader = Loader(
        pyodide=version,
        index_url=f"{RUNTIME_DIR}/",
        lock=lock,
        code=CODE,
        decoder_size=decoder_size,
        wasm=WASM,
        snapshot=SNAPSHOT,
        snapshot_size=python.size,
        stdlib=STDLIB,
        wheel=wheel_name,
        wheel_path=python.wheel_path,
        env=dict(SNAPSHOT_ENV),
        packed=names,
        unpacked={name: len(data) for name, data in blobs.items()},
        encoding=encoding,
        sizes={path: len(data) for path, data in loaded.items()},
        sent={path: sent_size(path, data) for path, data in loaded.items() if not path.endswith(f"{PACKED}.js")},
    )
    return files, loader


def read_decoder(project: Path) -> tuple[bytes, bytes]:
    """The zstd decoder's wasm, from the pinned zstddec package (``sitegen/runtime/packing.py``), and its license."""
    package = project / "node_modules" / "zstddec"
    pins = Path(__file__).with_name("zstddec-pins.json")
    pinned, _ = read_pinned(package, pins, declared_version(project, "zstddec"), "zstddec")
    return zstd_decoder(pinned[DECODER_MODULE]), pinned["LICENSE"]


def worker_code(pinned: Mapping[str, bytes], decoder: tuple[bytes, bytes]) -> tuple[bytes, int]:
    """What the page makes its workers from, before the workers' own stages, and where its two parts
    meet: first the zstd decoder's wasm as base64 in ``globalThis.kvpageZstd``, its license above it
    (what an unpacker runs), then Pyodide's JavaScript (``pyodide.js``, then ``pyodide.asm.mjs`` made
    a plain script: what Python's worker runs). The page splits it at the returned size, so that
    neither kind of worker reads the other's part (stage "spawn")."""
    wasm, license_text = decoder
    license_comment = license_text.decode("utf-8").strip().replace("*/", "* /")
    decoder_script = (
        f"/*! The zstd decoder of the npm package zstddec (its wasm), under this license:\n\n{license_comment}\n*/\n"
        f'globalThis.kvpageZstd="{base64.b64encode(wasm).decode("ascii")}";\n'
    ).encode()
    pyodide = strip_source_map(pinned["pyodide.js"], "pyodide.js") + b"\n" + classic_module(pinned["pyodide.asm.mjs"])
    return decoder_script + pyodide, len(decoder_script)


def with_new_wheel(base: Runtime, project: Path) -> Runtime | None:
    """``base`` with the wheel of the model now in ``project``, its snapshot kept: ``serve``'s runtime
    after a model edit, a second where a new snapshot takes a minute.

    The page restores the old snapshot and imports kvpage afresh from the new wheel
    (``Loader.fresh_model``; an open page swaps it into its running Python). None when that cannot
    work: the model now imports a standard-library module the snapshot did not import (the page's
    Python has no other), or cannot be read (the full runtime stage reports why).
    """
    imports, errors = book_imports(project, base.labs)
    if errors or not base.imports or not {item.module for item in imports} <= set(base.imports):
        return None
    old = base.loader
    with tempfile.TemporaryDirectory(prefix="kvpage-wheel-") as tmp:
        wheel = build_wheel(project, Path(tmp), base.labs)
        if wheel.name != base.wheel:
            return None
        wheel_bytes = wheel.read_bytes()
        lock = make_lock(pinned_lock(project), wheel, base.version)
    packed = pack_gzip(wheel_bytes)
    name = content_name(base.wheel, packed, PACKED)
    gone = {f"{RUNTIME_DIR}/{old.packed[base.wheel]}", f"{RUNTIME_DIR}/{old.packed[base.wheel]}.js"}
    files = {path: data for path, data in base.files.items() if path not in gone}
    files |= {
        f"{RUNTIME_DIR}/{name}": packed,
        f"{RUNTIME_DIR}/{name}.js": asset_script(base.wheel, MEDIA_TYPES[GZIP], packed),
        f"{RUNTIME_DIR}/{base.wheel}": wheel_bytes,
        f"{RUNTIME_DIR}/pyodide-lock.json": (json.dumps(lock, indent=2, sort_keys=True) + "\n").encode("utf-8"),
    }
    fetched = f"{RUNTIME_DIR}/{name}"
    sizes = {path: size for path, size in old.sizes.items() if path not in gone} | {
        fetched: len(packed),
        f"{fetched}.js": len(files[f"{fetched}.js"]),
    }
    sent = {path: size for path, size in old.sent.items() if path not in gone} | {fetched: sent_size(fetched, packed)}
    loader = dataclasses.replace(
        old,
        lock=lock,
        packed={**old.packed, base.wheel: name},
        unpacked={**old.unpacked, base.wheel: len(wheel_bytes)},
        sizes=sizes,
        sent=sent,
        fresh_model=True,
    )
    renamed = {f"{RUNTIME_DIR}/{old.packed[base.wheel]}": fetched}
    return dataclasses.replace(
        base,
        files=dict(sorted(files.items())),
        scripts=tuple(
            f"{renamed.get(script.removesuffix('.js'), script.removesuffix('.js'))}.js" for script in base.scripts
        ),
        lock=lock,
        loader=loader,
        fetched_only=tuple(renamed.get(path, path) for path in base.fetched_only),
    )


def pinned_lock(project: Path) -> bytes:
    """Pyodide's own lock file, checked against its pin."""
    pins = Path(__file__).with_name("pyodide-pins.json")
    pinned, _ = read_pinned(project / "node_modules" / "pyodide", pins, declared_version(project, "pyodide"))
    return pinned["pyodide-lock.json"]
