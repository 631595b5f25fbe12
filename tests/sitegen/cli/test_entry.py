"""The command's entry point: a model that links out of its folder is refused before it is imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.project_copy import project_copy

RUNS = """
from pathlib import Path as _Path
_Path({marker!r}).write_text("ran")
"""
"""A module outside the project that says, by a file of its own, that the build's Python ran it."""


def test_a_link_out_of_the_model_is_refused_before_the_model_is_imported(tmp_path: Path) -> None:
    """``kvpage/lab.py`` is imported by the build's own code as it starts: a link there to a file outside
    would run that file in the build's Python before any stage could refuse it."""
    project = project_copy(ROOT, tmp_path / "project")
    outside, marker = tmp_path / "outside", tmp_path / "ran"
    outside.mkdir()
    lab = project / "kvpage" / "lab.py"
    (outside / "lab.py").write_text(lab.read_text(encoding="utf-8") + RUNS.format(marker=str(marker)))
    lab.unlink()
    lab.symlink_to(outside / "lab.py")
    (project / "kvpage" / "evil.py").symlink_to(outside / "lab.py")
    out, dist = tmp_path / "out" / "site", tmp_path / "out" / "dist"
    result = subprocess.run(
        [sys.executable, "build.py", "--quiet", "--out", str(out), "--dist", str(dist)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert not marker.exists(), "the build ran a file from outside the project"
    assert result.returncode == 1, result.stderr
    assert [line.split(":")[:2] for line in result.stderr.splitlines()] == [
        ["error", " kvpage/evil.py"],
        ["error", " kvpage/lab.py"],
        ["build failed", " 2 error(s); nothing was written"],
    ]
    assert "a symbolic link out of kvpage/" in result.stderr
    assert not (tmp_path / "out").exists()
