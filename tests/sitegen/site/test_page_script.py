"""The page's script is its ES modules bundled by esbuild into one classic script, Python's worker a
second bundle inside it, the editor a third, a script of its own loaded on the first Edit; a module
that is missing, stray or broken fails the build, at its line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sitegen.errors import BuildError, ContentError
from sitegen.site.page_script import (
    CONFIG_ID,
    ENTRIES,
    READER_ID,
    READER_NAME,
    bundled_scripts,
    contract,
    page_script,
    reader_path,
    worker_script,
)
from tests.conftest import ROOT

MODULES = ROOT / "site_template" / "static" / "kvpage"


def test_the_page_script_is_one_classic_script_with_every_module(tmp_path: Path) -> None:
    script = page_script(MODULES).decode("utf-8")
    assert script.splitlines()[2] == '"use strict";'
    (tmp_path / "kvpage.js").write_text(script, encoding="utf-8")
    subprocess.run(["node", "--check", str(tmp_path / "kvpage.js")], check=True)  # a script, not a module
    assert not re.search(r"^\s*(import|export)\b", script, re.MULTILINE)
    worker = {"image.js", "hooks.js", "worker.js", "python-worker.js", "unpacker.js"}
    page = {path.name for path in MODULES.glob("*.js")} - worker - {"reader.js"}
    for name in sorted(page):
        assert f"\n  // {name}\n" in script, f"{name} is not in the page's bundle"


def test_what_only_the_editor_needs_is_a_script_of_its_own(tmp_path: Path) -> None:
    """Nothing of the editor is downloaded or parsed before the labs are live: reader.js and reader.py
    are in the editor's script only, named after its content, which registers what the page calls."""
    scripts = bundled_scripts(MODULES)
    page, reader = scripts.page.decode("utf-8"), scripts.reader.decode("utf-8")
    python = (MODULES / "reader.py").read_text(encoding="utf-8")
    assert "\n  // reader.js\n" not in page
    assert "kvpage_reader" not in page and "kvpage_reader" not in worker_script(MODULES).text
    assert "\n  // reader.js\n" in reader
    assert literal(reader, "reader_default") == python
    assert "kvpageLabs.wireReader = " in reader
    assert READER_NAME.match(scripts.reader_path)
    assert reader_path(scripts.files()) == scripts.reader_path != reader_path({"static/reader.js"})
    assert literal(page, "READER_ID") == READER_ID
    (tmp_path / "reader.js").write_text(reader, encoding="utf-8")
    subprocess.run(["node", "--check", str(tmp_path / "reader.js")], check=True)  # a script: no import, no export


def literal(script: str, name: str) -> object:
    """The value of ``var NAME = …;`` in an esbuild bundle (a literal: a text's may span lines), as Node reads it."""
    found = re.search(rf"^\s*var {name} = (.*?);$", script, re.MULTILINE | re.DOTALL)
    assert found, f"no {name} in the bundle"
    done = subprocess.run(
        ["node", "-e", f"process.stdout.write(JSON.stringify({found.group(1)}))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_contract_and_the_worker_are_in_the_page_script() -> None:
    script = page_script(MODULES).decode("utf-8")
    assert literal(script, "define_KVPAGE_TREE_default") == json.loads(contract()["KVPAGE_TREE"])
    assert literal(script, "define_KVPAGE_TEXT_KINDS_default") == json.loads(contract()["KVPAGE_TEXT_KINDS"])
    assert literal(script, "CONFIG_ID") == CONFIG_ID
    assert literal(script, "WORKER_SCRIPT") == worker_script(MODULES).text


def test_the_worker_is_its_modules_and_swap_py_and_uses_nothing_of_the_page() -> None:
    """Its text runs alone in the worker: every name it uses is its own, the worker's or the platform's."""
    worker = worker_script(MODULES)
    assert worker.inputs == {
        "worker.js",
        "python-worker.js",
        "unpacker.js",
        "image.js",
        "hooks.js",
        "protocol.js",
        "settled.js",
        "swap.py",
    }
    assert literal(worker.text, "swap_default") == (MODULES / "swap.py").read_text(encoding="utf-8")
    for name in ("document", "window", "say(", "progress(", "config.", "TREE", "CONFIG_ID", "pythonWorker"):
        assert name not in worker.text, name


def test_a_stray_or_missing_or_broken_module_fails_the_build(tmp_path: Path) -> None:
    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    (folder / "extra.js").write_text("export const unused = 1;\n", encoding="utf-8")
    with pytest.raises(BuildError) as stray:
        page_script(folder)
    assert stray.value.errors == (f"{folder}: extra.js imported by none of {', '.join(ENTRIES)}",)
    (folder / "extra.js").unlink()
    (folder / "hooks.js").unlink()
    with pytest.raises(BuildError) as missing:
        page_script(folder)
    importer = folder / "python-worker.js"  # Python's side of the worker (WORKER_ENTRY imports it)
    lines = importer.read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(lines, 1) if text.endswith(' from "./hooks.js";'))
    column = lines[line - 1].index('"./hooks.js"') + 1
    where = ContentError(str(importer), line, 'Could not resolve "./hooks.js"', column)
    assert missing.value.errors == (where,)


def test_a_syntax_error_is_reported_where_it_is(tmp_path: Path) -> None:
    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    text = (folder / "links.js").read_text(encoding="utf-8")
    (folder / "links.js").write_text(f"{text}const broken = ;\n", encoding="utf-8")
    with pytest.raises(BuildError) as failed:
        page_script(folder)
    line = len(text.splitlines()) + 1
    assert [str(error) for error in failed.value.errors] == [f'{folder / "links.js"}:{line}:16: Unexpected ";"']


def test_the_bundle_is_the_same_every_time() -> None:
    assert page_script(MODULES) == page_script(MODULES)


def test_an_esbuild_run_past_its_time_limit_is_a_build_error_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sitegen.site import page_script as module

    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    monkeypatch.setattr(module, "TIME_LIMIT_S", 0.001)
    with pytest.raises(BuildError) as stopped:
        page_script(folder)
    (error,) = stopped.value.errors
    assert re.fullmatch(r"esbuild bundling \S+\.js did not finish in 0\.001 s and was stopped", str(error))
