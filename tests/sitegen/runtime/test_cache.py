"""The runtime stage's cache: reused while its inputs are unchanged, rebuilt as soon as one changes."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from kvpage.lab import Lab
from sitegen.labs.discovery import all_labs, enabled_labs
from sitegen.runtime import cache as runtime_cache
from sitegen.runtime.bundle import Runtime
from sitegen.runtime.cache import CACHE_DIR, KEEP, cached_runtime, runtime_key
from tests.conftest import ROOT
from tests.project_copy import COMPILED_CACHE

LABS = enabled_labs()
"""A book's labs: the runtime is made for them."""


@pytest.fixture(autouse=True)
def forget() -> Iterator[None]:
    """Each test starts (and leaves) with nothing remembered in this process."""
    runtime_cache._memory.clear()
    yield
    runtime_cache._memory.clear()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose model and metadata a test may change; Pyodide is linked."""
    shutil.copytree(ROOT / "kvpage", tmp_path / "kvpage", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "pyodide").symlink_to(ROOT / "node_modules" / "pyodide", target_is_directory=True)
    return tmp_path


class Loader:
    """Stands in for the real stage: counts its runs and returns a runtime naming the run."""

    def __init__(self) -> None:
        self.runs = 0
        self.compiled_caches: list[Path | None] = []

    def __call__(self, root: Path, labs: Mapping[str, Lab], compiled_cache: Path | None) -> Runtime:
        self.runs += 1
        self.compiled_caches.append(compiled_cache)
        return Runtime({"pyodide/run.txt": str(self.runs).encode()}, (), {}, f"run{self.runs}.whl", "0", {})


def test_unchanged_inputs_reuse_the_runtime_even_in_a_new_process(project: Path) -> None:
    load = Loader()
    first = cached_runtime(project, LABS, load=load)
    assert cached_runtime(project, LABS, load=load) is first  # this process remembers it
    runtime_cache._memory.clear()  # as if a new process: read back from .cache/runtime/
    assert cached_runtime(project, LABS, load=load) == first
    assert load.runs == 1
    assert len(list((project / CACHE_DIR).glob("*.pickle"))) == 1
    assert load.compiled_caches == [project / COMPILED_CACHE]  # the build keeps the compiled stdlib


@pytest.mark.parametrize(
    "change",
    [
        lambda root: (root / "kvpage" / "costs.py").write_text("# changed\n", encoding="utf-8"),
        lambda root: (root / "kvpage" / "labs" / "new_lab.py").write_text("", encoding="utf-8"),
        lambda root: (root / "kvpage" / "pyproject.toml").write_text("[project]\n", encoding="utf-8"),
    ],
    ids=["model edited", "module added", "metadata edited"],
)
def test_a_changed_input_builds_it_again(project: Path, change: Callable[[Path], object]) -> None:
    load = Loader()
    before = runtime_key(project, LABS)
    cached_runtime(project, LABS, load=load)
    change(project)
    assert runtime_key(project, LABS) != before
    assert cached_runtime(project, LABS, load=load).wheel == "run2.whl"


def test_bytecode_is_not_an_input(project: Path) -> None:
    before = runtime_key(project, LABS)
    (project / "kvpage" / "__pycache__").mkdir(exist_ok=True)
    (project / "kvpage" / "__pycache__" / "costs.cpython-311.pyc").write_bytes(b"\0")
    assert runtime_key(project, LABS) == before


def test_an_unreadable_entry_is_built_again(project: Path) -> None:
    load = Loader()
    cached_runtime(project, LABS, load=load)
    (entry,) = (project / CACHE_DIR).glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    runtime_cache._memory.clear()
    assert cached_runtime(project, LABS, load=load).wheel == "run2.whl"
    runtime_cache._memory.clear()
    assert cached_runtime(project, LABS, load=load).wheel == "run2.whl"  # and stored again


def test_no_cache_always_builds(project: Path) -> None:
    load = Loader()
    cached_runtime(project, LABS, load=load, use_cache=False)
    cached_runtime(project, LABS, load=load, use_cache=False)
    assert load.runs == 2
    assert load.compiled_caches == [None, None]  # nothing kept: the stdlib is compiled afresh too
    assert not (project / CACHE_DIR).exists()


def test_only_the_newest_entries_are_kept(project: Path) -> None:
    load = Loader()
    for number in range(KEEP + 2):
        (project / "kvpage" / "costs.py").write_text(f"# version {number}\n", encoding="utf-8")
        cached_runtime(project, LABS, load=load)
    assert len(list((project / CACHE_DIR).glob("*.pickle"))) == KEEP


def test_the_labs_are_part_of_the_key(project: Path) -> None:
    load = Loader()
    with_turns = {**LABS, "turns": all_labs()["turns"]}
    assert runtime_key(project, with_turns) != runtime_key(project, LABS)
    assert runtime_key(project, dict(reversed(LABS.items()))) == runtime_key(project, LABS)  # a set: no order
    first = cached_runtime(project, LABS, load=load)
    assert cached_runtime(project, with_turns, load=load).wheel == "run2.whl"
    assert cached_runtime(project, LABS, load=load) is first  # both remembered: books built in turn
    assert load.runs == 2


def test_another_labs_module_is_no_input_of_a_book_without_it(project: Path) -> None:
    """The book's wheel holds only its labs (sitegen/runtime/bundle.py build_wheel): an edit to a lab it
    leaves out keeps its runtime, and changes that of a book that enables the lab."""
    with_turns = {**LABS, "turns": all_labs()["turns"]}
    before, before_turns = runtime_key(project, LABS), runtime_key(project, with_turns)
    turns = project / "kvpage" / "labs" / "turns.py"
    turns.write_text(turns.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    assert runtime_key(project, LABS) == before
    assert runtime_key(project, with_turns) != before_turns
