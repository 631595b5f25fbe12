"""The model's imports, read from its source: standard library kept, anything else refused at its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitegen import pipeline
from sitegen.labs.model_imports import Import, imports_of, model_imports, model_tree
from tests.conftest import ROOT
from tests.project_copy import project_copy


def test_imports_inside_functions_and_from_imports_are_found() -> None:
    source = "import json\nfrom a.b import c\n\ndef f():\n    import statistics, os.path\n    from . import x\n"
    assert imports_of(source, "m.py") == [
        Import("a.b", "m.py", 2),
        Import("json", "m.py", 1),
        Import("os.path", "m.py", 5),
        Import("statistics", "m.py", 5),
    ]


def write(project: Path, name: str, source: str) -> None:
    path = project / "kvpage" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")


def test_third_party_imports_fail_at_their_line_wherever_they_are_in_the_model(tmp_path: Path) -> None:
    """Every module of kvpage/ is in the browser's wheel (the command line is sitegen's): none is exempt."""
    write(tmp_path, "labs/odd.py", '"""x"""\n\n\ndef f():\n    import numpy\n    import statistics\n')
    write(tmp_path, "__main__.py", "import jinja2\n")
    write(tmp_path, "ok.py", "from __future__ import annotations\nfrom kvpage.lab import Lab\n")
    found, errors = model_imports(tmp_path)
    assert found == [Import("statistics", "kvpage/labs/odd.py", 6)]
    assert [str(error) for error in errors] == [
        "kvpage/__main__.py:1: imports 'jinja2', which is not in the standard library: "
        "the page's Python has only the standard library and kvpage",
        "kvpage/labs/odd.py:5: imports 'numpy', which is not in the standard library: "
        "the page's Python has only the standard library and kvpage",
    ]


def test_a_file_that_does_not_parse_is_reported_at_its_line(tmp_path: Path) -> None:
    write(tmp_path, "labs/bad.py", "x = 1\ndef (:\n")
    assert [str(error) for error in model_imports(tmp_path)[1]] == ["kvpage/labs/bad.py:2: invalid syntax"]


def test_the_real_model_imports_only_the_standard_library() -> None:
    found, errors = model_imports(ROOT)
    assert errors == []
    assert "statistics" in {item.module for item in found}, "turns.py imports it inside a function"


def test_a_link_out_of_the_model_fails_the_build_and_stays_out_of_its_files(tmp_path: Path) -> None:
    """Issue 43: ``kvpage/evil.py`` → ``/outside/evil.py`` went into the wheel and the Python disclosure."""
    project = project_copy(ROOT, tmp_path / "project")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "evil.py").write_text("SECRET = 1\n")
    (project / "kvpage" / "evil.py").symlink_to(outside / "evil.py")
    assert project / "kvpage" / "evil.py" not in model_tree(project)
    options = pipeline.Options(
        root=project, content=project / "content", templates=project / "site_template", out=tmp_path / "site"
    )
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.render(options)
    assert [(error.where, error.message.split(":")[0]) for error in failure.value.errors] == [
        ("kvpage/evil.py", "a symbolic link out of kvpage/")
    ]
