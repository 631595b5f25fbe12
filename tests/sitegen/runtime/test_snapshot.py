"""The memory snapshot's header and build id, its check, the pins; the site's snapshot.

The container format itself is tested in test_snapshot_format.py.
"""

from __future__ import annotations

import gzip
import io
import json
import struct
import zipfile
from pathlib import Path

import pytest
import zstandard

import kvpage.bridge
from sitegen import pipeline
from sitegen.errors import BuildError
from sitegen.runtime.bundle import Runtime
from sitegen.runtime.snapshot import (
    LEAN,
    SNAPSHOT_ENV,
    STDLIB_FRAME,
    build_id,
    check_header,
    check_restored,
    run_node,
    shows_model_source,
)
from sitegen.runtime.snapshot_format import _leb128, decode
from tests.conftest import ROOT, Built
from tests.sitegen.runtime.test_snapshot_format import BUILD_ID, page_reader, pyodide_snapshot


def unpacked(built: Built, name: str) -> bytes:
    """A binary of the site as the page gets it: its packed ``.bin``, unpacked (gzip or zstd)."""
    packed = built.files[built.packed(name)]
    if built.runtime["encoding"][name] == "zstd":
        return zstandard.ZstdDecompressor().decompress(packed)
    return gzip.decompress(packed)


def test_the_header_must_name_the_page_s_pyodide_build() -> None:
    snapshot = pyodide_snapshot(b"\0" * 64)
    assert check_header(snapshot, BUILD_ID) == 80  # 48-byte header, then the JSON padded to 16
    with pytest.raises(BuildError, match=r"is not pyodide\.js's"):
        check_header(snapshot, "f" * 64)
    with pytest.raises(BuildError, match="magic"):
        check_header(b"\0" * 4 + snapshot[4:], BUILD_ID)


def test_build_id_is_read_from_pyodide_js() -> None:
    assert build_id(b'x={BUILD_ID:"' + BUILD_ID.encode() + b'"}') == BUILD_ID
    with pytest.raises(BuildError, match="expected one BUILD_ID"):
        build_id(b"no id here")


def test_the_site_s_snapshot_restores_to_the_page_s_pyodide_build(built: Built) -> None:
    wasm, encoded = unpacked(built, "pyodide.asm.wasm"), unpacked(built, "python.snapshot")
    # The worker runs the pyodide.js of the asset "pyodide.js" (with pyodide.asm.mjs after it).
    check_header(decode(encoded, wasm), build_id(unpacked(built, "pyodide.js")))


def test_the_page_restores_the_site_s_snapshot_to_python_s_bytes(built: Built, tmp_path: Path) -> None:
    wasm, encoded = unpacked(built, "pyodide.asm.wasm"), unpacked(built, "python.snapshot")
    snapshot = decode(encoded, wasm)
    assert page_reader(encoded, wasm, len(snapshot), tmp_path) == snapshot


def test_the_site_ships_no_stdlib_zip_the_snapshot_holds_the_modules(built: Built, rendered: pipeline.Rendered) -> None:
    assert not [name for name in built.files if "python_stdlib" in name]
    runtime = rendered.runtime
    assert runtime is not None
    assert {"json/decoder.py", "re/__init__.py", "dataclasses.py", "typing.py"} <= set(runtime.modules)
    assert "turtle.py" not in runtime.modules


def test_a_traceback_must_show_the_model_s_own_line(tmp_path: Path) -> None:
    (tmp_path / "kvpage").mkdir()
    (tmp_path / "kvpage" / "m.py").write_text("x = 1\nraise ValueError(x)\n", encoding="utf-8")
    frame = 'Traceback (most recent call last):\n  File "<exec>", line 3, in <module>\n'
    frame += '  File "/lib/kvpage/kvpage-0.1.0-py3-none-any.whl/kvpage/m.py", line 2, in <module>\n'
    assert shows_model_source(frame + "    raise ValueError(x)\nValueError: 1\n", tmp_path)
    assert not shows_model_source(frame + "ValueError: 1\n", tmp_path)  # no source line: no wheel source
    assert not shows_model_source(frame.replace("line 2", "line 1") + "    raise ValueError(x)\n", tmp_path)
    assert not shows_model_source('  File "/lib/python314.zip/json/decoder.py", line 2, in f\n    x\n', tmp_path)


def test_the_check_requires_source_lines_and_a_missing_module_error(tmp_path: Path) -> None:
    report = {
        "failures": [],
        "traceback": "Traceback (most recent call last):\nE: x\n",
        "stdlib_traceback": 'File "/lib/python314.zip/json/decoder.py", line None, in decode\n',
        "lean": {**LEAN, "frozen": [True, True]},
        "missing": False,
    }
    with pytest.raises(BuildError) as raised:
        check_restored(json.dumps(report), {}, tmp_path)
    assert [problem.split(":")[1].strip() for problem in raised.value.errors] == [
        "a traceback from the restored snapshot shows no source line of the model",
        "a traceback through json.loads names no line of json",
        "the restored code's lines, columns and docstrings are {'json'",
        "importing a module that does not exist did not raise ModuleNotFoundError",
    ]


def test_the_restored_standard_library_keeps_lines_but_not_columns_nor_docstrings(
    built: Built, rendered: pipeline.Rendered, tmp_path: Path
) -> None:
    """The site's own snapshot, restored as the page restores it (``python_snapshot.mjs check``): the
    standard library's code, compiled and frozen, places lines and no columns and its modules have no
    docstrings, while the model keeps both (decision 0058); a traceback through json names its lines."""
    runtime = rendered.runtime
    assert runtime is not None
    raw = tmp_path / "python.snapshot"
    raw.write_bytes(decode(unpacked(built, "python.snapshot"), unpacked(built, "pyodide.asm.wasm")))
    wheel = tmp_path / runtime.wheel
    wheel.write_bytes(built.files[f"pyodide/{runtime.wheel}"])
    report = run_node(
        "check",
        *("--pyodide", str(ROOT / "node_modules" / "pyodide"), "--env", json.dumps(SNAPSHOT_ENV)),
        *("--snapshot", str(raw), "--wheel", str(wheel), "--wheel-path", built.runtime["wheel_path"]),
        *("--labs", json.dumps(list(runtime.labs))),
    )
    found = json.loads(report)
    assert found["lean"] == {
        "json": [True, False],
        "frozen": [True, False],
        "model": [True, True],
        "docstrings": ["kvpage.jsonvalue"],
    }
    assert STDLIB_FRAME.search(found["stdlib_traceback"])
    assert shows_model_source(found["traceback"], ROOT)


def test_the_snapshot_and_the_wheel_hold_the_book_s_labs_and_what_only_they_import(rendered: pipeline.Rendered) -> None:
    # The turns lab (experimental) imports statistics inside a function; the book enables it.
    book = rendered.runtime
    turns = pipeline.render(pipeline.Options(content=ROOT / "tests" / "books" / "turns" / "content")).runtime
    assert book is not None and turns is not None
    assert "turns" not in book.labs and "square" not in book.labs
    assert "statistics.py" not in book.modules
    assert "turns" in turns.labs and "statistics.py" in turns.modules
    assert set(book.labs) < set(turns.labs)
    # Nor is it a module of the published book's wheel, which the snapshot imported from.
    assert "kvpage/labs/turns.py" not in wheel_modules(book)
    assert "kvpage/labs/turns.py" in wheel_modules(turns)
    assert "kvpage/labs/square.py" not in wheel_modules(turns)  # not enabled there either


def wheel_modules(runtime: Runtime) -> set[str]:
    """The files of a runtime's kvpage wheel, as the site ships it."""
    with zipfile.ZipFile(io.BytesIO(runtime.files[f"pyodide/{runtime.wheel}"])) as wheel:
        return set(wheel.namelist())


def test_the_snapshots_standard_library_has_no_docstrings(built: Built) -> None:
    """The standard library in memory is compiled as ``python -OO`` would (python_snapshot.mjs): its
    docstrings were the largest text in the memory every reader downloads (decision 0049). The
    model's own stay: they are read in the memory just as a stdlib one would be (the control)."""
    memory = decode(unpacked(built, "python.snapshot"), unpacked(built, "pyodide.asm.wasm"))
    model_doc = (kvpage.bridge.__doc__ or "").split("\n")[0].encode()
    assert model_doc and model_doc in memory
    assert json.__doc__ is not None
    assert json.__doc__.split("\n")[0].encode() not in memory  # json is imported by the labs


def imported_globals(wasm: bytes, at: int) -> int:
    """How many of the import section's entries at ``at`` are globals (they come before the module's own)."""
    count, at = _leb128(wasm, at)
    globals_ = 0
    for _ in range(count):
        for _ in range(2):  # module and field names
            length, at = _leb128(wasm, at)
            at += length
        kind, at = wasm[at], at + 1
        if kind in (0, 4):  # function (type index), tag (attribute, type index)
            _, at = _leb128(wasm, at + (kind == 4))
        elif kind in (1, 2):  # table (reference type, limits), memory (limits)
            flags, at = _leb128(wasm, at + (kind == 1))
            for _ in range(1 + (flags & 1)):
                _, at = _leb128(wasm, at)
        else:  # global: value type, mutability
            globals_, at = globals_ + 1, at + 2
    return globals_


def exported_globals(wasm: bytes) -> dict[str, int]:
    """The value of each global the module defines with an ``i32.const`` and exports (``__heap_base``, ...)."""
    at, imported, values, exports = 8, 0, [], {}
    while at < len(wasm):
        section = wasm[at]
        size, at = _leb128(wasm, at + 1)
        end = at + size
        if section == 2:
            imported = imported_globals(wasm, at)
        if section == 6:
            count, at = _leb128(wasm, at)
            for _ in range(count):
                value, after = _leb128(wasm, at + 3, signed=True)
                assert wasm[after] == 0x0B, "a constant initialiser"
                values.append(value if wasm[at + 2] == 0x41 else None)
                at = after + 1
        if section == 7:
            count, at = _leb128(wasm, at)
            for _ in range(count):
                length, at = _leb128(wasm, at)
                name, kind = wasm[at : at + length].decode(), wasm[at + length]
                index, at = _leb128(wasm, at + length + 1)
                if kind == 3 and index >= imported:
                    exports[name] = index - imported
        at = end
    return {name: value for name, index in exports.items() if (value := values[index]) is not None}


def test_the_snapshot_holds_no_freed_bytes(built: Built) -> None:
    """What Python freed before the snapshot is zeros in it (python_snapshot.mjs, zeroFreed): past
    its links, every free chunk of dlmalloc's heap, the top chunk past its head, and the stack
    below the last frame (decision 0057). The heap is walked as dlmalloc lays it out: from
    ``__heap_base``, chunks back to back (u32 prev_foot, u32 size | PINUSE 1 | CINUSE 2), the top
    chunk last, then a foot with no in-use bits."""
    wasm = unpacked(built, "pyodide.asm.wasm")
    memory = decode(unpacked(built, "python.snapshot"), wasm)
    heap = memory[check_header(memory, build_id(unpacked(built, "pyodide.js"))) :]
    found = exported_globals(wasm)
    assert found["__heap_base"] == found["__stack_high"] > found["__stack_low"] > 0

    def head(chunk: int) -> int:
        return int(struct.unpack_from("<I", heap, chunk + 4)[0])

    chunks, at = [], found["__heap_base"]
    while head(at) & 3:
        chunks.append((at, head(at) & ~7))
        at += chunks[-1][1]
    *body, (top, top_size) = chunks
    free = [(chunk, size) for chunk, size in body if not head(chunk + size) & 1]
    assert len(chunks) > 10_000 and len(free) > 100, (len(chunks), len(free))
    stale = [chunk for chunk, size in free if heap[chunk + (16 if size < 256 else 32) : chunk + size].strip(b"\0")]
    assert stale == [], f"{len(stale)} of {len(free)} free chunks hold bytes past their links"
    assert not heap[top + 8 : top + top_size].strip(b"\0")
    assert not heap[found["__stack_low"] : found["__stack_high"] - 256].strip(b"\0")
