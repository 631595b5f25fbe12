"""The in-browser runtime: the pinned Pyodide, checked, and our wheel, pure standard library."""

from __future__ import annotations

import ast
import base64
import gzip
import hashlib
import io
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import pytest
import zstandard

from sitegen.errors import BuildError
from sitegen.labs.discovery import all_labs, enabled_labs
from sitegen.labs.model_imports import module_file
from sitegen.runtime.bundle import build_wheel, classic_module, read_pinned, with_new_wheel
from sitegen.runtime.cache import cached_runtime
from sitegen.runtime.npm import declared_version
from sitegen.runtime.packing import zstd_decoder
from tests.conftest import ROOT, Built
from tests.project_copy import project_copy
from tests.sitegen.runtime.test_snapshot import unpacked

PINS = ROOT / "sitegen" / "runtime" / "pyodide-pins.json"
DECLARED = declared_version(ROOT, "pyodide")
NO_IO = {"os", "io", "sys", "socket", "subprocess", "pathlib", "shutil", "tempfile", "urllib", "http", "asyncio"}


def site_wheel(built: Built) -> tuple[str, bytes]:
    lock = json.loads(built.files["pyodide/pyodide-lock.json"])
    entry = lock["packages"]["kvpage"]
    return entry["sha256"], built.files[f"pyodide/{entry['file_name']}"]


def test_lock_lists_our_wheel_only_with_its_sha256(built: Built) -> None:
    lock = json.loads(built.files["pyodide/pyodide-lock.json"])
    assert list(lock["packages"]) == ["kvpage"]
    sha, wheel = site_wheel(built)
    assert hashlib.sha256(wheel).hexdigest() == sha


def test_browser_wheel_imports_only_the_standard_library_and_does_no_io(built: Built) -> None:
    _, wheel = site_wheel(built)
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        modules = {name: archive.read(name) for name in archive.namelist() if name.endswith(".py")}
        others = [name for name in archive.namelist() if not name.endswith(".py") and ".dist-info/" not in name]
    assert others == []
    assert "kvpage/bridge.py" in modules and "kvpage/costs.py" in modules
    for name, source in modules.items():
        assert name.startswith("kvpage/"), name
        tree = ast.parse(source, name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots = {(node.module or "").split(".")[0]} if node.level == 0 else set()
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "exec", "eval", "input", "print"}, f"{name}: {node.func.id}()"
                continue
            else:
                continue
            for root in roots - {"kvpage", "__future__"}:
                assert root in sys.stdlib_module_names, f"{name} imports {root}, which is not in the standard library"
                assert root not in NO_IO, f"{name} imports {root}: the model does no I/O"


def test_a_changed_pyodide_file_fails_the_build(tmp_path: Path) -> None:
    package = tmp_path / "pyodide"
    shutil.copytree(ROOT / "node_modules" / "pyodide", package)
    wasm = package / "pyodide.asm.wasm"
    wasm.write_bytes(wasm.read_bytes() + b"\0")
    with pytest.raises(BuildError, match=r"pyodide\.asm\.wasm: sha256 [0-9a-f]{64} does not match the pinned"):
        read_pinned(package, PINS, DECLARED)


def test_another_pyodide_version_fails_the_build(tmp_path: Path) -> None:
    package = tmp_path / "pyodide"
    shutil.copytree(ROOT / "node_modules" / "pyodide", package)
    meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
    other = f"{DECLARED}.1"
    (package / "package.json").write_text(json.dumps({**meta, "version": other}), encoding="utf-8")
    expected = f"Pyodide {other} is installed but package.json declares {DECLARED}; run 'npm ci'"
    with pytest.raises(BuildError, match=re.escape(expected)):
        read_pinned(package, PINS, DECLARED)


def test_missing_pyodide_says_how_to_install_it(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="run 'npm ci'"):
        read_pinned(tmp_path / "nothing", PINS, DECLARED)


def test_module_rewrite_asserts_what_it_replaces() -> None:
    stock = (ROOT / "node_modules" / "pyodide" / "pyodide.asm.mjs").read_bytes()
    rewritten = classic_module(stock).decode("utf-8")
    assert "import.meta" not in rewritten
    assert rewritten.rstrip().endswith("globalThis._createPyodideModule=_createPyodideModule;")
    with pytest.raises(BuildError, match="has Pyodide changed"):
        classic_module(stock.replace(b"export default _createPyodideModule;", b"export { _createPyodideModule };"))


def test_no_shared_memory_is_made_when_pyodide_loads() -> None:
    # Made on load, it costs a deprecation warning on every page (Lighthouse: Best Practices).
    stock = (ROOT / "node_modules" / "pyodide" / "pyodide.asm.mjs").read_bytes()
    rewritten = classic_module(stock).decode("utf-8")
    assert stock.decode("utf-8").count("new WebAssembly.Memory({shared:!0") == 1
    (made,) = re.finditer(r"new WebAssembly\.Memory\(\{shared:!0", rewritten)
    inside = rewritten[rewritten.rindex("function so(t){try{", 0, made.start()) : made.start()]
    assert inside == "function so(t){try{io??=new Int32Array(", "only syncSleep makes it, on its first call"
    with pytest.raises(BuildError, match="has Pyodide changed"):
        classic_module(stock.replace(b"var io=new Int32Array(", b"var io = new Int32Array("))


ENCODING_SUFFIXES = {"gz", "gzip", "tgz", "z", "br", "zst", "zstd", "bz2", "xz", "lz", "lzma"}


def test_every_binary_is_packed_zstd_or_gzip_with_its_script_alongside(built: Built) -> None:
    loader = built.runtime
    pins = json.loads(PINS.read_text(encoding="utf-8"))["files"]
    assert set(loader["packed"]) == {"pyodide.js", "pyodide.asm.wasm", "python.snapshot", loader["wheel"]}
    # The two big ones zstd; Pyodide's JavaScript (un-gzipped on the page) and the wheel gzip.
    assert loader["encoding"] == {
        "pyodide.js": "gzip",
        "pyodide.asm.wasm": "zstd",
        "python.snapshot": "zstd",
        loader["wheel"]: "gzip",
    }
    for name, file in loader["packed"].items():
        packed = built.files[f"pyodide/{file}"]
        assert unpacked(built, name) == unpack_any(packed, loader["encoding"][name])
        assert len(unpacked(built, name)) == loader["unpacked"][name]
        script = built.files[f"pyodide/{file}.js"].decode("ascii")
        assert base64.b64decode(re.search(r'base64:"([^"]*)"', script).group(1)) == packed  # type: ignore[union-attr]
        media = {"gzip": "application/gzip", "zstd": "application/zstd"}[loader["encoding"][name]]
        assert f'type:"{media}"' in script
        assert not set(file.lower().split(".")[1:]) & ENCODING_SUFFIXES, f"{file}: a host may add Content-Encoding"
    assert hashlib.sha256(unpacked(built, "pyodide.asm.wasm")).hexdigest() == pins["pyodide.asm.wasm"]


def unpack_any(packed: bytes, encoding: str) -> bytes:
    """``packed`` decoded by what its encoding says it is, checking the format's header."""
    if encoding == "gzip":
        # gzip, deflate, no flags (so no file name), mtime 0: the same bytes from every build
        assert packed[:8] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00"
        return gzip.decompress(packed)
    frame = zstandard.get_frame_parameters(packed)
    assert frame.has_checksum and frame.content_size > 0
    return zstandard.ZstdDecompressor().decompress(packed)


def test_the_worker_s_code_is_the_pinned_zstd_decoder_and_its_license_then_pyodide(built: Built) -> None:
    """The page splits the code at ``decoder_size``: the unpackers get the decoder's part, Python's
    workers Pyodide's, and neither carries the other's."""
    code = unpacked(built, "pyodide.js")
    size = built.runtime["decoder_size"]
    unpacker, python = code[:size].decode("utf-8"), code[size:].decode("utf-8")
    decoder = zstd_decoder((ROOT / "node_modules" / "zstddec" / "dist" / "zstddec.mjs").read_bytes())
    (found,) = re.findall(r'globalThis\.kvpageZstd="([^"]+)";', unpacker)
    assert base64.b64decode(found) == decoder
    assert unpacker.endswith(f'globalThis.kvpageZstd="{found}";\n')
    head = unpacker[: unpacker.index("globalThis.kvpageZstd=")]
    assert "The MIT License" in head and "BSD License" in head and "For Zstandard software" in head
    assert "kvpageZstd" not in python and "loadPyodide" in python and "loadPyodide" not in unpacker


def test_a_model_edit_under_serve_is_a_new_wheel_on_the_same_snapshot(tmp_path: Path) -> None:
    """serve's runtime after a model edit: only the wheel's files change, and the page is told to
    import kvpage afresh from it; a model that now imports a module the snapshot lacks gets none."""
    base = cached_runtime(ROOT, enabled_labs())
    project = project_copy(ROOT, tmp_path / "project", caches=())
    model = project / "kvpage" / "labs" / "decode.py"
    model.write_text(model.read_text(encoding="utf-8").replace('"cache cold"', '"cache empty"'), encoding="utf-8")
    hot = with_new_wheel(base, project)
    assert hot is not None and hot.loader.fresh_model and not base.loader.fresh_model
    old, new = base.loader.packed[base.wheel], hot.loader.packed[hot.wheel]
    assert old != new
    changed = {path for path in base.files.keys() | hot.files.keys() if base.files.get(path) != hot.files.get(path)}
    assert changed == {
        f"pyodide/{name}" for name in (base.wheel, "pyodide-lock.json", old, f"{old}.js", new, f"{new}.js")
    }
    assert {**hot.loader.packed, hot.wheel: old} == base.loader.packed  # the same snapshot, wasm and code
    assert hot.scripts == tuple(script.replace(old, new) for script in base.scripts)
    with zipfile.ZipFile(io.BytesIO(hot.files[f"pyodide/{hot.wheel}"])) as wheel:
        assert b'"cache empty"' in wheel.read("kvpage/labs/decode.py")
    assert (
        json.loads(hot.files["pyodide/pyodide-lock.json"])["packages"]["kvpage"]["sha256"]
        == hashlib.sha256(hot.files[f"pyodide/{hot.wheel}"]).hexdigest()
    )

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    assert build_wheel(project, tmp_path / "one", base.labs).read_bytes() == (
        build_wheel(project, tmp_path / "two", base.labs).read_bytes()
    ), "each wheel is built from a copy of its own: where it is must leave no mark"

    model.write_text(model.read_text(encoding="utf-8") + "\n\ndef later() -> None:\n    import wave\n")
    assert with_new_wheel(base, project) is None


def wheel_modules(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {name for name in archive.namelist() if name.endswith(".py")}


def test_a_books_wheel_holds_the_labs_it_may_show_and_no_other(tmp_path: Path) -> None:
    """The experimental and fixture labs ship only in the books that enable them; the model's other
    modules (the bridge, the helpers) in every one."""
    (tmp_path / "book").mkdir()
    (tmp_path / "turns").mkdir()
    book = wheel_modules(build_wheel(ROOT, tmp_path / "book", enabled_labs()))
    turns = wheel_modules(build_wheel(ROOT, tmp_path / "turns", enabled_labs(["turns"])))
    every = {path.relative_to(ROOT).as_posix() for path in (ROOT / "kvpage").rglob("*.py")}
    experimental = {module_file(lab.module) for lab in all_labs().values() if lab.experimental}
    assert {"kvpage/labs/square.py", "kvpage/labs/turns.py", "kvpage/labs/runaway.py"} <= experimental
    assert book == every - experimental
    assert turns == every - experimental | {"kvpage/labs/turns.py"}
