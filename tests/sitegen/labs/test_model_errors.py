"""A model file that does not import is one ``path:line[:column]`` error, with its source line."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitegen.labs.model_errors import import_failure


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    """A project folder whose kvpage/ holds the module, imported as ``broken_lab`` (it cannot clash)."""
    (tmp_path / "kvpage").mkdir()
    sys.path.insert(0, str(tmp_path / "kvpage"))
    yield tmp_path
    sys.path.remove(str(tmp_path / "kvpage"))
    sys.modules.pop("broken_lab", None)


def failure(home: Path, source: str) -> str:
    (home / "kvpage" / "broken_lab.py").write_text(source, encoding="utf-8")
    importlib.invalidate_caches()
    with pytest.raises(Exception) as raised:
        importlib.import_module("broken_lab")
    found = import_failure(raised.value, home)
    assert found is not None
    return str(found)


def test_a_syntax_error_is_its_line_and_column_with_a_caret(home: Path) -> None:
    assert failure(home, "x = 1\ndef f(:\n    pass\n") == (
        "kvpage/broken_lab.py:2:7: SyntaxError: invalid syntax\n    def f(:\n          ^"
    )


def test_an_import_that_fails_is_the_line_that_imports(home: Path) -> None:
    assert failure(home, '"""Doc."""\n\nimport no_such_module_here\n') == (
        "kvpage/broken_lab.py:3:1: ModuleNotFoundError: No module named 'no_such_module_here'\n"
        "    import no_such_module_here\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^"
    )


def test_an_error_outside_the_model_is_not_dressed_up(home: Path) -> None:
    assert import_failure(ValueError("a bug of the build"), home) is None
