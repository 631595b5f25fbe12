"""bench/harness.py: the options the page benchmarks share, and the folder and site they work on."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import harness


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser()
    harness.add_options(made, 5, runs_help="cold runs", quick_help="one run", work_help="the traces")
    harness.add_also(made, "another site")
    return made


def test_the_shared_options_mean_the_same_in_every_benchmark(tmp_path: Path) -> None:
    args = parser().parse_args(["--site", "site", "--json", str(tmp_path / "out.json")])
    assert (args.runs, args.quick, args.site, args.work, args.also) == (5, False, Path("site"), None, [])
    assert "(default 5)" in parser().format_help()
    assert parser().parse_args(["--quick", "--runs", "2"]).quick


def test_also_names_each_site(tmp_path: Path) -> None:
    args = parser().parse_args(["--also", f"before={tmp_path}", "--also", "other=x"])
    assert harness.also_sites(args.also) == {"before": tmp_path.resolve(), "other": Path("x").resolve()}


def test_the_workspace_is_the_work_folder_and_the_given_site(tmp_path: Path) -> None:
    work, site = tmp_path / "made" / "here", tmp_path / "site"
    args = parser().parse_args(["--work", str(work), "--site", str(site)])
    with harness.workspace(args, "kvpage-test-") as found:
        assert found == (work, site.resolve())
        assert work.is_dir()  # made for it
    assert work.is_dir()  # --work is kept afterwards


def test_without_work_the_folder_is_temporary(tmp_path: Path) -> None:
    args = parser().parse_args(["--site", str(tmp_path)])
    with harness.workspace(args, "kvpage-test-") as (work, _):
        assert work.name.startswith("kvpage-test-") and work.is_dir()
    assert not work.exists()
