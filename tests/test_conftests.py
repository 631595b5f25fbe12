"""Shared fixtures live in one module, listed in tests/conftest.py's ``pytest_plugins``; no suite
takes another suite's conftest names and hands them on (a re-export: pytest finds a fixture by where
it is imported, so a fixture imported twice is two fixtures of one name)."""

from __future__ import annotations

import ast

from tests import conftest
from tests.conftest import ROOT

TESTS = ROOT / "tests"


def conftest_imports(path: str) -> list[str]:
    """The ``tests.…conftest`` modules that the module at ``path`` imports names from."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith(".conftest")
    ]


def test_a_conftest_imports_no_other_suites_conftest() -> None:
    crossing = {}
    for found in sorted(TESTS.rglob("conftest.py")):
        path = found.relative_to(ROOT).as_posix()
        others = [module for module in conftest_imports(path) if module != "tests.conftest"]
        if others:
            crossing[path] = others
    assert crossing == {}, f"import shared fixtures from a module in pytest_plugins instead: {crossing}"


def test_the_shared_fixtures_are_a_plugin_of_the_whole_suite() -> None:
    plugins = getattr(conftest, "pytest_plugins", [])
    assert plugins, "tests/conftest.py lists no pytest_plugins"
    for plugin in plugins:
        assert (ROOT / (plugin.replace(".", "/") + ".py")).is_file(), plugin
