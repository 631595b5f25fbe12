"""The page's script is its stages joined in order, Python's worker one function of it, and a
missing or stray stage fails the build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sitegen.errors import BuildError
from sitegen.page_script import STAGES, WORKER_STAGES, page_script
from tests.conftest import ROOT

STAGE_FOLDER = ROOT / "site_template" / "static" / "kvpage"


def test_the_stages_are_joined_in_their_order_into_one_script(tmp_path: Path) -> None:
    script = page_script(STAGE_FOLDER).decode("utf-8")
    marks = [script.index(f"// ==== stage {name} (kvpage/{name}.js) ====") for name in (*STAGES, *WORKER_STAGES)]
    assert marks == sorted(marks)
    for name in (*STAGES, *WORKER_STAGES):
        assert (STAGE_FOLDER / f"{name}.js").read_text(encoding="utf-8").rstrip() in script
    worker = script.index("function kvpageWorker() {")
    assert marks[len(STAGES) - 1] < worker < marks[len(STAGES)], "the worker's stages, and only they, are its body"
    (tmp_path / "kvpage.js").write_text(script, encoding="utf-8")
    subprocess.run(["node", "--check", str(tmp_path / "kvpage.js")], check=True)


def test_the_loader_block_bench_swaps_spans_assets_to_spawn() -> None:
    script = page_script(STAGE_FOLDER).decode("utf-8")
    start, end = script.index("\n// ---- loader: "), script.index("\n// ---- end of loader ----\n")
    assert script.index("// ==== stage assets") < start < end < script.index("// ==== stage python")
    assert script.index("// ==== stage spawn") < end
    loader = script[start:end]
    assert "function pythonWorker(" in loader
    assert "function say(" in script[end:] and "function progress(" in script[end:]


def test_the_worker_uses_nothing_of_the_page() -> None:
    """Its text runs alone in the worker: every name it uses is its own, the worker's or the platform's."""
    script = page_script(STAGE_FOLDER).decode("utf-8")
    body = script[script.index("function kvpageWorker() {") :]
    for name in ("document", "window", "say(", "progress(", "config.", "TREE", "CONFIG_ID", "pythonWorker"):
        assert name not in body, name


def test_a_missing_or_unknown_stage_fails_the_build(tmp_path: Path) -> None:
    folder = tmp_path / "kvpage"
    shutil.copytree(STAGE_FOLDER, folder)
    (folder / "hooks.js").unlink()
    (folder / "extra.js").write_text("", encoding="utf-8")
    with pytest.raises(BuildError) as failed:
        page_script(folder)
    assert any("hooks.js: missing" in error for error in failed.value.errors)
    assert any("extra.js not a stage" in error for error in failed.value.errors)
