"""A copy of the project holds what a build reads, fresh, with Pyodide linked and the caches asked for."""

from __future__ import annotations

import os
from pathlib import Path

from tests.project_copy import COMPILED_CACHE, PACKED_CACHE, PROJECT, RUNTIME_CACHE, project_copy


def fake_project(root: Path) -> Path:
    for name in PROJECT:
        if "." in name:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(name)
        else:
            (root / name / "__pycache__").mkdir(parents=True)
            (root / name / "a.txt").write_text(name)
            (root / name / "__pycache__" / "a.pyc").write_bytes(b"")
    for cache in (RUNTIME_CACHE, COMPILED_CACHE, PACKED_CACHE):
        (root / cache).mkdir(parents=True)
        (root / cache / "entry").write_text(str(cache))
    (root / "node_modules").mkdir()
    (root / "site").mkdir()  # build output: not copied
    return root


def test_the_copy_has_the_sources_without_bytecode_and_links_pyodide(tmp_path: Path) -> None:
    root = fake_project(tmp_path / "root")
    os.utime(root / "kvpage" / "a.txt", (0, 0))  # 1970: a copy that kept file times would too
    copy = project_copy(root, tmp_path / "copy", caches=())
    assert sorted(path.name for path in copy.iterdir()) == sorted([*PROJECT, "node_modules"])
    assert (copy / "kvpage" / "a.txt").read_text() == "kvpage"
    assert not (copy / "kvpage" / "__pycache__").exists()
    assert (copy / "node_modules").resolve() == (root / "node_modules").resolve()
    assert (copy / "kvpage" / "a.txt").stat().st_mtime > 0  # fresh times


def test_only_the_caches_asked_for_are_copied(tmp_path: Path) -> None:
    root = fake_project(tmp_path / "root")
    copy = project_copy(root, tmp_path / "copy", caches=(COMPILED_CACHE,))
    assert (copy / COMPILED_CACHE / "entry").read_text() == str(COMPILED_CACHE)
    assert not (copy / RUNTIME_CACHE).exists()
    every = project_copy(root, tmp_path / "every")
    assert all((every / cache / "entry").is_file() for cache in (RUNTIME_CACHE, COMPILED_CACHE, PACKED_CACHE))
