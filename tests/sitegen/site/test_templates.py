"""Template failures are reported at the template file and line where they happen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitegen.labs.discovery import all_labs
from sitegen.labs.placements import LabUse, Placement
from sitegen.labs.stage import starting_view
from sitegen.markdown.pages import lab_widget
from sitegen.site.templates import TemplateFailed, make_templates
from tests.conftest import ROOT

FILES = {
    "base.html": "<html>\n{% block body %}{% endblock %}\n<footer>{{ footer }}</footer>\n</html>\n",
    "page.html": '{% extends "base.html" %}\n{% block body %}\n{% include "part.html" %}\n{% endblock %}\n',
    "part.html": "<p>\n{{ lab.missing }}\n</p>\n",
    "includes-missing.html": 'line one\n{% include "nowhere.html" %}\n',
    "syntax.html": "one\ntwo {% if %}\n",
    "maths.html": "\n\n{{ 1 // zero }}\n",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    templates = tmp_path / "site_template"
    templates.mkdir()
    for name, text in FILES.items():
        (templates / name).write_text(text, encoding="utf-8")
    return templates


def failure(folder: Path, name: str, **context: object) -> str:
    with pytest.raises(TemplateFailed) as failed:
        make_templates(folder).render(name, **context)
    return str(failed.value.error)


def test_the_innermost_template_is_named(folder: Path) -> None:
    assert (
        failure(folder, "page.html", lab={}, footer="f")
        == "site_template/part.html:2: 'dict object' has no attribute 'missing'"
    )
    assert failure(folder, "page.html", lab={"missing": 1}) == "site_template/base.html:3: 'footer' is undefined"


def test_a_missing_include_is_named_at_the_include(folder: Path) -> None:
    assert (
        failure(folder, "includes-missing.html")
        == "site_template/includes-missing.html:2: no template 'nowhere.html' in site_template/"
    )


def test_a_syntax_error_is_named_at_its_line(folder: Path) -> None:
    assert (
        failure(folder, "syntax.html")
        == "site_template/syntax.html:2: Expected an expression, got 'end of statement block'"
    )


def test_other_errors_keep_their_kind(folder: Path) -> None:
    assert (
        failure(folder, "maths.html", zero=0)
        == "site_template/maths.html:3: ZeroDivisionError: integer division or modulo by zero"
    )


def test_a_missing_template_is_named(folder: Path) -> None:
    assert failure(folder, "absent.html") == "site_template/absent.html: no template 'absent.html' in site_template/"


def test_rendering_is_strict_and_escapes(folder: Path) -> None:
    (folder / "ok.html").write_text("{{ text }}", encoding="utf-8")
    assert make_templates(folder).render("ok.html", text="<b>") == "&lt;b&gt;"


def test_an_error_inside_the_labs_macros_is_named_at_the_labs_own_line(tmp_path: Path) -> None:
    """A lab's template naming a control its lab lacks: the error is raised inside controls.html's
    macro, but the line to fix is the lab's own (it named controls.html:35 before), in plain words with the
    lab's controls (a raw ``KeyError: "…"`` before issue 46)."""
    templates = shutil.copytree(ROOT / "site_template", tmp_path / "site_template")
    (templates / "labs" / "square.html").write_text(
        '{% import "labs/controls.html" as ui %}\n<div>\n{{ ui.control(lab, "tokenz") }}\n</div>\n', encoding="utf-8"
    )
    placement = Placement(all_labs()["square"], {"tokens": 16}, "lab", "content/x.md", 3)
    use = starting_view(placement).uses[placement.key]
    assert failure(templates, "labs/square.html", lab=use) == (
        "site_template/labs/square.html:3: lab 'square' has no control 'tokenz'; its controls: tokens"
    )


def test_a_lab_without_a_template_of_its_own_gets_the_default_layout(tmp_path: Path) -> None:
    """A new lab needs its Python file alone (issue 46): with no ``labs/NAME.html`` its widget is ``ui.lab(lab)``,
    as square's own template (``{{ ui.lab(lab) }}``, the guide's example) prints it."""
    lab = all_labs()["square"]
    placement = Placement(lab, {"tokens": 5}, "lab-square", "content/x.md", 1)
    use = starting_view(placement).uses[placement.key]
    assert isinstance(use, LabUse)
    own = lab_widget(make_templates(ROOT / "site_template"), use, {"path": "content/x.md"}, hide_python={"square"})
    folder = shutil.copytree(ROOT / "site_template", tmp_path / "site_template")
    (folder / "labs" / "square.html").unlink()
    default = lab_widget(make_templates(folder), use, {"path": "content/x.md"}, hide_python={"square"})
    assert 'data-control="tokens"' in default
    assert default.split() == [word for word in own.split() if word]  # the same HTML, but for blank lines
