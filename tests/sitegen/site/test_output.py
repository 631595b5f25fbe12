"""The files stage: the new site and zip replace the old ones whole, or not at all, and an output the new
build does not make (the single file) is removed in the same swap."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import BytesIO
from pathlib import Path

import pytest

from sitegen import pipeline
from sitegen.book.reproducible import ZIP_DATE
from sitegen.cli import commands
from sitegen.site.assemble import Site
from sitegen.site.output import MANIFEST, journal_path, manifest, publish, recover, write_zip
from tests.conftest import Built


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under ``folder``, hidden ones too."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else None
        for path in sorted(folder.rglob("*"))
    }


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A first site and zip in ``tmp_path/site`` and ``tmp_path/dist/site.zip``."""
    site = Site({"index.html": b"old index", "old.html": b"old page", "static/a.css": b"a"})
    publish(site, tmp_path / "site", {tmp_path / "dist" / "site.zip": b"old zip"})
    return tmp_path


def test_publish_replaces_the_site_and_zip_whole(published: Path) -> None:
    publish(Site({"index.html": b"new index"}), published / "site", {published / "dist" / "site.zip": b"new zip"})
    assert snapshot(published) == {
        "dist": None,
        "dist/site.zip": b"new zip",
        "site": None,
        f"site/{MANIFEST}": manifest(["index.html"]),
        "site/index.html": b"new index",
    }


def test_a_file_given_as_none_is_removed_with_the_swap(published: Path) -> None:
    publish(Site({"index.html": b"new"}), published / "site", {published / "dist" / "site.zip": None})
    assert not (published / "dist" / "site.zip").exists()
    assert (published / "site" / "index.html").read_bytes() == b"new"


def test_failure_while_writing_the_site_changes_nothing(published: Path) -> None:
    before = snapshot(published)
    clash = Site({"page": b"a file", "page/child.html": b"cannot live under a file"})
    with pytest.raises(OSError):
        publish(clash, published / "site", {published / "dist" / "site.zip": b"new zip"})
    assert snapshot(published) == before


def test_failure_while_writing_the_zip_changes_nothing(published: Path) -> None:
    (published / "blocked").write_bytes(b"a file where the zip's folder should be")
    before = snapshot(published)
    with pytest.raises(OSError):
        files = {published / "dist" / "site.zip": b"new zip", published / "blocked" / "site.zip": b"new zip"}
        publish(Site({"index.html": b"new"}), published / "site", files)
    assert snapshot(published) == before


def test_site_folder_is_readable_by_a_web_server(published: Path) -> None:
    assert (published / "site").stat().st_mode & 0o777 == 0o755
    assert (published / "dist" / "site.zip").stat().st_mode & 0o777 == 0o644


def test_zip_is_reproducible_with_one_top_folder() -> None:
    site = Site({"b.html": b"b", "a.html": b"a", "static/c.css": b"c"})
    written = [BytesIO(), BytesIO()]
    for handle in written:
        write_zip(site, "top", handle)
    first, second = (handle.getvalue() for handle in written)
    assert first == second
    with zipfile.ZipFile(BytesIO(first)) as archive:
        assert archive.namelist() == ["top/a.html", "top/b.html", "top/static/c.css"]
        assert {info.date_time for info in archive.infolist()} == {ZIP_DATE}
        assert archive.read("top/static/c.css") == b"c"


def test_zip_holds_the_site_under_one_top_folder(built: Built) -> None:
    with zipfile.ZipFile(built.zip) as archive:
        infos = archive.infolist()
        names = [info.filename for info in infos]
        assert archive.testzip() is None
        for name in names:
            assert not name.startswith("/") and "\\" not in name, name
            assert ".." not in Path(name).parts, name
            assert name.startswith(f"{pipeline.ZIP_TOP}/"), name
        assert f"{pipeline.ZIP_TOP}/index.html" in names
        assert sorted(names) == names
        assert {info.date_time for info in infos} == {ZIP_DATE}
        inside = {name.removeprefix(f"{pipeline.ZIP_TOP}/"): archive.read(name) for name in names}
    # The published site (see the built fixture) also holds the zip, and its index links it.
    published = dict(built.files)
    published.pop(f"{pipeline.ZIP_TOP}.zip")
    published["index.html"] = re.sub(rb'<p class="download">.*?</p>\n', b"", published["index.html"], count=1)
    # ... and the packed binaries only a served page fetches (from disk it loads their scripts)
    packed = [name for name in published if name.startswith("pyodide/") and name.endswith(".bin")]
    assert len(packed) == 4  # Pyodide's JavaScript, the wasm, the snapshot, the wheel
    for name in packed:
        published.pop(name)
    assert inside == published


def test_build_prints_the_zip_size(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert commands.main(["--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]) == 0
    size = (tmp_path / "dist" / f"{pipeline.ZIP_TOP}.zip").stat().st_size
    assert f"kvpage-site.zip ({size / 1e6:.1f} MB)" in capsys.readouterr().out


KILLING_PUBLISHER = """
import os, signal, sys, traceback
from pathlib import Path
from sitegen.site import output
from sitegen.site.assemble import Site

exchange = sys.argv[1]


def publish(root, kill_at, version):
    calls = 0

    def killing(original):
        def step(*args, **kwargs):
            nonlocal calls
            calls += 1
            if calls == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return original(*args, **kwargs)
        return step

    # Every rename the swap may make, every file it stages or removes: os.rename, os.replace and os.unlink
    # (Path's too), and renameat2 through ctypes where output uses it.
    os.rename, os.replace, os.unlink = killing(os.rename), killing(os.replace), killing(os.unlink)
    output.write_tree = killing(output.write_tree)
    if hasattr(output, "_renameat2"):
        found = output._renameat2
        output._renameat2 = lambda: None if found() is None or exchange == "renames" else killing(found())
    # The new build makes no single file: the old one is removed in its swap.
    output.publish(
        Site({"index.html": version.encode(), f"{version}.html": version.encode()}),
        root / "site",
        {root / "dist" / "site.zip": version.encode(), root / "dist" / "book.html": None},
    )


# One publish per line of stdin (root, step to be killed at, version), each in a process forked from
# this one, which has imported output and never publishes itself: every publish starts from the same
# untouched modules, as in a process of its own. Its exit code (-9 when killed) is the answer.
for line in sys.stdin:
    root, kill_at, version = line.rstrip("\\n").split("\\t")
    child = os.fork()
    if child == 0:
        try:
            publish(Path(root), int(kill_at), version)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    print(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]), flush=True)
"""
"""A process that publishes, killed at a given step. Each publish is a fork of it, not a ``python -c``
of its own: importing ``sitegen.site.output`` (``assemble``'s imports: the runtime's, numpy's) takes
about a CPU-second, the publish of four tiny files a few milliseconds, and a fork of a process that
imported it once and did nothing else is the same untouched process, killed by the same SIGKILL."""


@contextmanager
def killing_publisher(exchange: str) -> Iterator[Callable[[Path, int, str], int]]:
    """A function that publishes ``version`` into a root, killed (SIGKILL) at step ``kill_at`` of the
    publish, and gives the exit code of the process that published (0 if it finished)."""
    command = [sys.executable, "-c", KILLING_PUBLISHER, exchange]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as server:
        assert server.stdin is not None and server.stdout is not None
        stdin, stdout = server.stdin, server.stdout

        def published(root: Path, kill_at: int, version: str) -> int:
            stdin.write(f"{root}\t{kill_at}\t{version}\n")
            stdin.flush()
            return int(stdout.readline())

        try:
            yield published
        finally:
            stdin.close()
            server.wait(timeout=60)


def builds_seen(root: Path) -> set[str]:
    """The builds whose site, zip and single file a reader finds (one when they belong together): no
    single file is the new build's (it makes none)."""
    site = snapshot(root / "site")
    assert site in (version_files("old"), version_files("new"))
    dist = root / "dist"
    single = dist / "book.html"
    return {
        (root / "site" / "index.html").read_text(),
        (dist / "site.zip").read_text(),
        single.read_text() if single.exists() else "new",
    }


def version_files(version: str) -> dict[str, bytes | None]:
    files = {"index.html": version.encode(), f"{version}.html": version.encode()}
    return {**files, MANIFEST: manifest(files)}


@pytest.mark.parametrize("exchange", ["renameat2", "renames"])
def test_a_kill_at_any_step_of_the_swap_never_splits_the_build(tmp_path: Path, exchange: str) -> None:
    """Killed (SIGKILL) at every rename and staged write of a publish in turn: ``site/`` is always there
    and whole; unless a swap is pending (its journal beside ``site/``), site, zip and single file are
    one build's; the next build finishes or forgets the killed one and leaves nothing behind. Without
    ``renameat2`` the folder is exchanged by three renames, and only then may ``site/`` be missing,
    while the journal says a swap is pending."""
    kill_at, outcomes = 0, []
    with killing_publisher(exchange) as published:
        while True:
            kill_at += 1
            root = tmp_path / str(kill_at)
            site = Site({"index.html": b"old", "old.html": b"old"})
            publish(site, root / "site", {root / "dist" / "site.zip": b"old", root / "dist" / "book.html": b"old"})
            returncode = published(root, kill_at, "new")
            assert returncode in (0, -signal.SIGKILL)
            pending = journal_path(root / "site").exists()
            if exchange == "renameat2" or not pending:
                assert (root / "site").is_dir() and not (root / "site").is_symlink()
                seen = builds_seen(root)
                assert pending or len(seen) == 1, f"killed at step {kill_at}: {seen}"
            recover(root / "site", [root / "dist" / "site.zip", root / "dist" / "book.html"])
            outcomes.append(builds_seen(root))
            assert len(outcomes[-1]) == 1, f"killed at step {kill_at}, then recovered: {outcomes[-1]}"
            (version,) = outcomes[-1]
            left = {
                "dist",
                "dist/site.zip",
                *(["dist/book.html"] if version == "old" else []),
                "site",
                *(f"site/{name}" for name in version_files(version)),
            }
            assert set(snapshot(root)) == left, f"killed at step {kill_at}: leftovers after the next build"
            if returncode == 0:
                break
    assert outcomes[0] == {"old"} and outcomes[-1] == {"new"}
