"""The page config's and lab schema's TypeScript (``config.d.ts``) is the Python's, written by
``sitegen/site/page_types.py``: ``make check`` fails when it is not current, and tsc checks the page
against it, so a field one side has and the other does not read is refused (decision 0060)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from kvpage.labs.decode import LAB as DECODE
from sitegen.site.page_types import TARGET, declarations, main
from tests.test_javascript_checks import MODULES, tsc


def test_the_checked_in_declarations_are_what_the_python_writes() -> None:
    assert TARGET.read_text(encoding="utf-8") == declarations()
    assert main(["--check"]) == 0


def test_every_key_of_a_real_labs_schema_is_declared() -> None:
    text = declarations()
    lab = text.split("interface LabSchema {", 1)[1].split("}", 1)[0]
    assert [line.split(":")[0].strip() for line in lab.strip().splitlines()] == list(DECODE.schema())


def test_tsc_refuses_a_schema_field_the_python_does_not_write(tmp_path: Path) -> None:
    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    calls = folder / "calls.js"
    text = calls.read_text(encoding="utf-8")
    old = "this.schema.keeps_state.includes(name)"
    assert text.count(old) == 1
    calls.write_text(text.replace(old, "this.schema.keeps_states.includes(name)"), encoding="utf-8")
    done: subprocess.CompletedProcess[str] = tsc(folder)
    assert done.returncode != 0
    assert "'keeps_states' does not exist on type 'LabSchema'" in done.stdout
