"""Content-addressed runtime names, and the caching they allow."""

from __future__ import annotations

import hashlib
import re

import pytest

from sitegen.runtime.names import IMMUTABLE, REVALIDATE, cache_control, content_name, is_content_addressed
from tests.conftest import Built


def test_the_hash_goes_before_the_last_suffix_of_the_name() -> None:
    digest = hashlib.sha256(b"x").hexdigest()[:8]
    assert content_name("pyodide.asm.wasm", b"x", ".bin") == f"pyodide.asm.{digest}.wasm.bin"
    assert content_name("pyodide.js", b"x") == f"pyodide.{digest}.js"
    assert content_name("kvpage-0.1.0-py3-none-any.whl", b"x", ".bin") == f"kvpage-0.1.0-py3-none-any.{digest}.whl.bin"
    assert content_name("python.snapshot", b"y", ".bin") != content_name("python.snapshot", b"x", ".bin")


@pytest.mark.parametrize(
    ("path", "addressed"),
    [
        ("pyodide/pyodide.asm.3f2a9c1e.wasm.bin", True),
        ("/REPO/pyodide/python.3f2a9c1e.snapshot.bin.js", True),
        ("pyodide/pyodide.3f2a9c1e.js", True),
        ("pyodide/pyodide.asm.wasm", False),  # stock Pyodide's names
        ("pyodide/kvpage-0.1.0-py3-none-any.whl", False),
        ("pyodide/pyodide-lock.json", False),
        ("static/kvpage.3f2a9c1e.js", False),  # only the runtime's files are named by the build
        ("pyodide/pyodide.3F2A9C1E.js", False),
        ("pyodide/pyodide.3f2a9c1e", False),
    ],
)
def test_only_the_runtime_s_content_addressed_files_are_immutable(path: str, addressed: bool) -> None:
    assert is_content_addressed(path) is addressed
    assert cache_control(path) == (IMMUTABLE if addressed else REVALIDATE)


def test_every_file_the_page_loads_is_named_after_its_bytes(built: Built) -> None:
    runtime = [name for name in built.files if name.startswith("pyodide/")]
    loaded = [name for name in runtime if is_content_addressed(name)]
    assert sorted(set(runtime) - set(loaded)) == ["pyodide/kvpage-0.1.0-py3-none-any.whl", "pyodide/pyodide-lock.json"]
    for name in loaded:
        (digest,) = re.findall(r"\.([0-9a-f]{8})\.", name)
        # A packed binary's script is named after the binary it carries (its bytes follow from those).
        named = built.files[name.removesuffix(".js")] if name.endswith(".bin.js") else built.files[name]
        assert hashlib.sha256(named).hexdigest()[:8] == digest, name
