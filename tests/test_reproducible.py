"""Two builds of the same sources write byte-identical ``site/`` and zip.

The two builds differ in everything that must not matter, so that whatever leaks into the output
shows up as a difference: they run in separate processes with different hash seeds (set order),
from two folders (absolute paths) whose files have different times (the second is a fresh copy),
in time zones 26 hours apart (a local build date or time), one after the other (the clock).
Both build their runtime (wheel, Python snapshot): the first from nothing (``--no-cache``), the
second from the compiled stdlib and the zstd output this checkout's build kept
(``sitegen/runtime/compiled_stdlib.py``, ``sitegen/runtime/packing.py``), so a kept compile or packing must make
the same bytes as a fresh one. And the session's own build, which
reads its runtime back from this checkout's runtime cache (``sitegen/runtime/cache.py``; stored by
an earlier build process, under ``make test`` the site built before pytest), must hold the same
runtime as the build from nothing: what the cache returns is what the stage makes.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from sitegen import pipeline
from sitegen.book.reproducible import ZIP_DATE
from sitegen.site.output import MANIFEST
from tests.conftest import ROOT, Built
from tests.project_copy import COMPILED_CACHE, PACKED_CACHE, project_copy

BUILD_S = 900
"""A bound on one build's hang, not a wait. A build from nothing is about 37 CPU-s on a 2-core
machine (user + sys of ``build.py --single-file`` with no ``.cache/``), but here it runs while the
browser suites keep both cores busy: under ``make test`` on a 2-core machine shared with
another suite (load average 15-20) one took over 300 s, and the run failed on the bound alone."""


@dataclass(frozen=True)
class Output:
    files: dict[str, bytes]
    zip: bytes


def build_in_subprocess(root: Path, out: Path, hash_seed: str, tz: str, *flags: str) -> Output:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "TZ": tz}
    command = [
        sys.executable,
        str(root / "build.py"),
        *flags,
        "--out",
        str(out / "site"),
        "--dist",
        str(out / "dist"),
    ]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=BUILD_S, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    site = out / "site"
    files = {path.relative_to(site).as_posix(): path.read_bytes() for path in site.rglob("*") if path.is_file()}
    return Output(files=files, zip=(out / "dist" / f"{pipeline.ZIP_TOP}.zip").read_bytes())


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Output, Output]:
    first = build_in_subprocess(ROOT, tmp_path_factory.mktemp("first"), "1", "Pacific/Kiritimati", "--no-cache")
    # The copy starts with the kept compiled stdlib and packed binaries, but no runtime: it builds one from those.
    copy = project_copy(ROOT, tmp_path_factory.mktemp("project"), caches=(COMPILED_CACHE, PACKED_CACHE))
    second = build_in_subprocess(copy, tmp_path_factory.mktemp("second"), "2", "Etc/GMT+12")
    return first, second


def test_two_builds_write_the_same_site_byte_for_byte(two_builds: tuple[Output, Output]) -> None:
    first, second = two_builds
    assert "cache.html" in first.files
    assert sorted(first.files) == sorted(second.files)
    differing = [name for name in sorted(first.files) if first.files[name] != second.files[name]]
    assert differing == []


def runtime_files(files: dict[str, bytes]) -> dict[str, bytes]:
    """The runtime stage's part of a site: the wheel, the packed Pyodide binaries and their scripts."""
    return {name: data for name, data in files.items() if name.startswith("pyodide/")}


def test_the_cached_runtime_is_the_one_built_from_nothing(two_builds: tuple[Output, Output], built: Built) -> None:
    first, _ = two_builds
    from_nothing = runtime_files(first.files)
    assert any(name.startswith("pyodide/python.") and name.endswith(".snapshot.bin") for name in from_nothing)
    assert runtime_files(built.files) == from_nothing


def test_two_builds_write_the_same_zip(two_builds: tuple[Output, Output]) -> None:
    first, second = two_builds
    assert len(first.zip) > 0
    assert first.zip == second.zip


def test_the_zip_holds_the_site_sorted_and_undated(two_builds: tuple[Output, Output]) -> None:
    first, _ = two_builds
    with zipfile.ZipFile(io.BytesIO(first.zip)) as archive:
        infos = archive.infolist()
        # all but the packed binaries a served page fetches (from disk it loads their scripts) and the
        # build's list of what it wrote into site/ (which only tells a later build what it may replace)
        zipped = [
            name
            for name in first.files
            if not (name.startswith("pyodide/") and name.endswith(".bin")) and name != MANIFEST
        ]
        assert len(zipped) == len(first.files) - 5
        assert [info.filename for info in infos] == sorted(f"{pipeline.ZIP_TOP}/{name}" for name in zipped)
        assert {info.date_time for info in infos} == {ZIP_DATE}
        for info in infos:
            assert archive.read(info) == first.files[info.filename.removeprefix(f"{pipeline.ZIP_TOP}/")]


def test_the_wheel_is_undated(two_builds: tuple[Output, Output]) -> None:
    first, _ = two_builds
    wheels = [name for name in first.files if name.endswith(".whl")]
    assert len(wheels) == 1
    with zipfile.ZipFile(io.BytesIO(first.files[wheels[0]])) as wheel:
        assert {info.date_time for info in wheel.infolist()} == {ZIP_DATE}
