"""sitegen/ is laid out as the pipeline reads, and tests/sitegen/ mirrors it (issue 38).

A newcomer finds a stage's code by its package: ``sitegen/`` holds only the pipeline, the errors
every stage uses and the entry points; each package's ``__init__`` says what it takes and
returns, and nothing else (import from the module, never a re-export). A module's name is said
once in the tree and never repeats its package's (``serve/builder.py``, not ``serve_builder.py``),
and a module's tests are ``tests/sitegen/<package>/test_<module>.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

SITEGEN = ROOT / "sitegen"
TESTS = ROOT / "tests" / "sitegen"
AT_THE_ROOT = {"__init__.py", "__main__.py", "pipeline.py", "errors.py", "limited_run.py", "memo.py"}
"""The pipeline's ``build()``, the errors every stage uses (and ``run_limited``, the tool run three
stages stop with), what serve's worker keeps between builds for every stage (``memo``), and the package's
own entry points."""
NO_MODULE = {
    "test_invalid_content.py": "broken books through the whole pipeline (tests/invalid/)",
    "test_pipeline_fuzz.py": "the whole pipeline fuzzed (sitegen/pipeline.py)",
    "test_links_stage.py": "the page's links.js under Node (site_template/static/kvpage/links.js)",
    "test_calls_stage.py": "the page's call queue under Node (site_template/static/kvpage/calls.js)",
    "test_reader.py": "the page's reader.py in CPython (site_template/static/kvpage/reader.py)",
    "test_layout.py": "this: the layout of sitegen/ as a whole",
}
"""Tests at the top of tests/sitegen/ that are of no single module, and what each is of instead."""


def modules() -> list[Path]:
    return sorted(path for path in SITEGEN.rglob("*.py") if path.name != "__init__.py")


def packages() -> list[Path]:
    return sorted(path.parent for path in SITEGEN.rglob("__init__.py") if path.parent != SITEGEN)


def test_no_module_name_twice_and_none_repeats_a_package_name() -> None:
    names = [path.name for path in modules()]
    assert sorted({name for name in names if names.count(name) > 1}) == []
    prefixed = [
        path.relative_to(ROOT).as_posix()
        for path in modules()
        for package in packages()
        if path.stem.startswith(f"{package.name}_")
    ]
    assert prefixed == []


def test_every_package_says_what_it_takes_and_returns_and_nothing_else() -> None:
    for package in packages():
        init = package / "__init__.py"
        body = ast.parse(init.read_text(encoding="utf-8")).body
        where = init.relative_to(ROOT).as_posix()
        assert len(body) == 1, f"{where}: a docstring only (import from the modules, no re-exports)"
        docstring = ast.get_docstring(ast.Module(body=body, type_ignores=[]))
        assert docstring is not None and "→" in docstring, f"{where}: say what it takes → what it returns"


def test_the_root_holds_only_the_pipeline_and_the_tests_mirror_the_modules() -> None:
    assert sorted(path.name for path in SITEGEN.glob("*.py")) == sorted(AT_THE_ROOT)
    assert [path for path in SITEGEN.iterdir() if path.is_file() and path.suffix != ".py"] == []
    for test in sorted(TESTS.rglob("test_*.py")):
        if test.parent == TESTS and test.name in NO_MODULE:
            continue
        module = SITEGEN / test.parent.relative_to(TESTS) / test.name.removeprefix("test_")
        assert module.is_file(), f"{test.relative_to(ROOT).as_posix()}: no {module.relative_to(ROOT).as_posix()}"
