"""serve shows ruff's findings on a lab file as warnings at path:line, and never fails on them (issue 46)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sitegen.cli.commands import rebuild_for_serve
from sitegen.cli.progress import SILENT
from sitegen.serve import lint
from tests.conftest import ROOT
from tests.sitegen.test_invalid_content import WARNING_ONLY, fixture_options

LAB = "import os\nimport math\n\n\n\ndef compute( args ):\n    return math.floor(args)\n"
"""A lab file with an unused import, unsorted imports and two blank lines too many, as a new author may write."""


def project(tmp_path: Path) -> Path:
    """A project of the checkout's ruff settings and a model holding one lab file: ``LAB``."""
    root = tmp_path / "project"
    (root / "kvpage" / "labs").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    (root / "kvpage" / "labs" / "memo.py").write_text(LAB, encoding="utf-8")
    (root / "node_modules").symlink_to(ROOT / "node_modules")  # the search stage's MiniSearch
    (root / "package.json").symlink_to(ROOT / "package.json")
    return root


def lines_of(text: str) -> dict[str, int]:
    return {line: number for number, line in enumerate(text.splitlines(), start=1)}


def test_a_lab_files_findings_are_at_their_lines(tmp_path: Path) -> None:
    found = lint.model_lint(project(tmp_path))
    at = lines_of(LAB)
    codes = [finding.split(" ")[:3] for finding in found[:-1]]
    assert codes == [
        [f"kvpage/labs/memo.py:{at['import os']}:", "ruff", "I001"],  # the import block, unsorted
        [f"kvpage/labs/memo.py:{at['import os']}:", "ruff", "F401"],  # os, unused
    ]
    assert all(finding.endswith(f"({lint.ADVICE})") for finding in found[:-1])
    first_blank_too_many = at["def compute( args ):"] - 1  # ruff keeps two blank lines: the third goes
    assert found[-1] == f"kvpage/labs/memo.py:{first_blank_too_many}: {lint.FORMAT}"


def test_findings_are_kept_until_a_model_file_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path)
    found = lint.model_lint(root)
    monkeypatch.setattr(lint, "ruff", lambda *_args: "")  # a prose edit's rebuild runs no ruff
    assert lint.model_lint(root) == found
    lab = root / "kvpage" / "labs" / "memo.py"
    lab.write_text("import os\n\nprint(os.sep)\n", encoding="utf-8")
    os.utime(lab, ns=(1, 1))
    assert lint.model_lint(root) == []


def test_no_ruff_no_findings_and_no_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lint.sys, "executable", str(tmp_path / "no-python"))
    assert lint.model_lint(project(tmp_path)) == []


def test_serve_reports_them_as_warnings_and_still_builds(tmp_path: Path) -> None:
    """The serve worker's build: a good book with a lab file ruff refuses is served, its findings warned."""
    root = project(tmp_path)
    options = fixture_options(WARNING_ONLY, tmp_path)
    options = type(options)(**{**vars(options), "root": root})
    report = rebuild_for_serve(options, SILENT)
    assert report.ok, report.errors
    assert report.warnings[1:] == lint.model_lint(root)
    assert report.warnings[0].startswith("content/broken.md:8: chapter 'harness' is not in this book")
