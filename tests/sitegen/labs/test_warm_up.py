"""Lab failures in the page's Python, reported where the author can act: the lab's LAB line, the import's line.

The last test builds a copy of the project with two broken labs and runs the
real build (Pyodide under Node): the errors it prints are the ones an author sees.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kvpage.labs import decode
from sitegen.labs.model_imports import Import
from sitegen.labs.model_lines import declared_at
from sitegen.labs.warm_up import missing_errors, warm_up_errors
from sitegen.runtime.npm import declared_version
from tests.conftest import ROOT
from tests.project_copy import project_copy
from tests.sitegen.labs.test_model_lines import TRACEBACK


def test_a_failed_warm_up_names_the_lab_action_args_error_and_line() -> None:
    failure = {"lab": "decode", "action": "step", "args": {"state": {}}, "error": "boom", "traceback": TRACEBACK}
    (message,) = warm_up_errors([failure], {"decode": decode.LAB}, ROOT)
    where = ":".join(map(str, declared_at(ROOT, decode.LAB)))
    assert str(message) == (
        f"{where}: lab 'decode' action 'step' failed in the page's Python "
        '(build-time warm-up, args {"state": {}}): boom (raised at kvpage/labs/odd.py:12)'
    )


def test_a_missing_module_is_reported_at_every_line_that_imports_it() -> None:
    sites = [Import("tkinter", "kvpage/a.py", 3), Import("json", "kvpage/a.py", 1), Import("tkinter", "kvpage/b.py", 9)]
    missing = [{"module": "tkinter", "error": "ModuleNotFoundError: No module named 'tkinter'"}]
    assert [str(error) for error in missing_errors(missing, sites, "1.2.3")] == [
        f"kvpage/{name}: imports 'tkinter', which the page's Python (Pyodide 1.2.3) does not have: "
        "ModuleNotFoundError: No module named 'tkinter'"
        for name in ("a.py:3", "b.py:9")
    ]


PYODIDE = declared_version(ROOT, "pyodide")
"""The Pyodide the page runs, as package.json declares it."""

BROKEN_LAB = '''"""A lab whose step fails only in the page's Python (in CPython, at the labs stage, it passes)."""

from kvpage.jsonvalue import JSONObject
from kvpage.lab import Lab, Output


def compute(args: JSONObject) -> JSONObject:
    return {"text": {"n": "1"}}


def step(args: JSONObject) -> JSONObject:
    return {"text": {"n": str(len(args) // (__import__("sys").platform != "emscripten"))}}


LAB = Lab(name="brittle", actions={"compute": compute, "step": step}, update="compute", outputs=(Output("n"),))
'''

MISSING_IMPORT = '''"""Imports a standard-library module that Pyodide does not ship."""


def draw() -> None:
    import tkinter

    del tkinter
'''


def test_the_build_fails_at_the_labs_line_when_its_action_fails_in_the_pages_python(tmp_path: Path) -> None:
    project = project_copy(ROOT, tmp_path / "project")
    (project / "kvpage/labs/brittle.py").write_text(BROKEN_LAB, encoding="utf-8")
    (project / "kvpage/labs/sketch.py").write_text(MISSING_IMPORT, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "build.py", "--quiet"], cwd=project, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1, result.stdout + result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [
        f"error: kvpage/labs/sketch.py:5: imports 'tkinter', which the page's Python (Pyodide {PYODIDE}) "
        "does not have: ModuleNotFoundError: No module named 'tkinter'",
        "error: kvpage/labs/brittle.py:15: lab 'brittle' action 'step' failed in the page's Python "
        "(build-time warm-up, args {}): the model failed: ZeroDivisionError: division by zero "
        "(raised at kvpage/labs/brittle.py:12)",
    ]
    assert not (project / "site").exists()
