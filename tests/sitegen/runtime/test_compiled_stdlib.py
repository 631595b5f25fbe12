"""The compiled stdlib is kept between builds: reused while Pyodide, the script and its environment
are unchanged, compiled again when any of them changes, when the entry is unreadable, or without
the cache. The real compile is run by the build tests; here it is a stand-in that counts its runs."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from sitegen.runtime.compiled_stdlib import KEEP, compiled_key, compiled_stdlib

PINNED = {"pyodide.asm.wasm": b"wasm", "python_stdlib.zip": b"stdlib"}
ENV = {"PYTHONHASHSEED": "0", "TZ": "UTC"}


class Compiler:
    """Writes a small zip naming its run, as ``python_snapshot.mjs compile-stdlib`` writes the real one."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self, out: Path) -> None:
        self.runs += 1
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("os.pyc", f"run {self.runs}")
        out.write_bytes(buffer.getvalue())


def run(out: Path) -> str:
    with zipfile.ZipFile(out) as archive:
        return archive.read("os.pyc").decode()


def test_an_unchanged_key_reuses_the_compiled_stdlib(tmp_path: Path) -> None:
    compiler, key, cache = Compiler(), compiled_key(PINNED, b"script", ENV, "v22"), tmp_path / "cache"
    assert compiled_stdlib(tmp_path / "first.zip", key, cache, compiler) is False
    assert compiled_stdlib(tmp_path / "second.zip", key, cache, compiler) is True
    assert compiler.runs == 1
    assert (tmp_path / "second.zip").read_bytes() == (tmp_path / "first.zip").read_bytes()


@pytest.mark.parametrize(
    ("pinned", "script", "env", "node"),
    [
        ({**PINNED, "python_stdlib.zip": b"other"}, b"script", ENV, "v22"),
        ({**PINNED, "pyodide.js": b"js"}, b"script", ENV, "v22"),
        (PINNED, b"changed script", ENV, "v22"),
        (PINNED, b"script", {**ENV, "PYTHONHASHSEED": "1"}, "v22"),
        (PINNED, b"script", ENV, "v24"),
    ],
    ids=["Pyodide file changed", "Pyodide file added", "script changed", "environment changed", "Node changed"],
)
def test_every_input_is_in_the_key(pinned: dict[str, bytes], script: bytes, env: dict[str, str], node: str) -> None:
    assert compiled_key(pinned, script, env, node) != compiled_key(PINNED, b"script", ENV, "v22")


def test_the_key_does_not_depend_on_order() -> None:
    assert compiled_key(dict(reversed(PINNED.items())), b"s", dict(reversed(ENV.items())), "v") == compiled_key(
        PINNED, b"s", ENV, "v"
    )


def test_without_a_cache_it_always_compiles_and_stores_nothing(tmp_path: Path) -> None:
    compiler, key = Compiler(), compiled_key(PINNED, b"script", ENV, "v22")
    compiled_stdlib(tmp_path / "a.zip", key, None, compiler)
    compiled_stdlib(tmp_path / "b.zip", key, None, compiler)
    assert compiler.runs == 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.zip", "b.zip"]


def test_an_unreadable_entry_is_compiled_again(tmp_path: Path) -> None:
    compiler, key, cache = Compiler(), compiled_key(PINNED, b"script", ENV, "v22"), tmp_path / "cache"
    compiled_stdlib(tmp_path / "out.zip", key, cache, compiler)
    entry = cache / f"{key}.zip"
    entry.write_bytes(entry.read_bytes()[:-30])  # cut short, as by a full disk
    assert compiled_stdlib(tmp_path / "out.zip", key, cache, compiler) is False
    assert run(tmp_path / "out.zip") == "run 2"
    assert compiled_stdlib(tmp_path / "again.zip", key, cache, compiler) is True  # and stored again
    assert run(tmp_path / "again.zip") == "run 2"


def test_only_the_newest_entries_are_kept(tmp_path: Path) -> None:
    compiler, cache = Compiler(), tmp_path / "cache"
    keys = [compiled_key(PINNED, f"script {n}".encode(), ENV, "v22") for n in range(KEEP + 2)]
    for key in keys:
        compiled_stdlib(tmp_path / "out.zip", key, cache, compiler)
    assert sorted(path.name for path in cache.iterdir()) == sorted(f"{key}.zip" for key in keys[-KEEP:])
