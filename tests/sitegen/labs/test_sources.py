"""The "Python" disclosure of every lab: the very source the page's wheel holds, highlighted at build time."""

from __future__ import annotations

import gzip
import html
import io
import re
import zipfile
from pathlib import Path

from kvpage.catalog import find_labs
from kvpage.labs.decode import LAB
from sitegen.labs.sources import OPENS_ON, lab_files, shown_modules
from tests.conftest import Built

FIGURE = re.compile(
    r'<figure class="python-file" data-file="([^"]+)"[^>]*>.*?<code class="language-python">(.*?)</code>', re.S
)
TAG = re.compile(r"<[^>]+>")


def shown_files(page: str) -> dict[str, str]:
    """Each file a page's disclosures show, by path, as the reader reads it (the highlighting's tags gone)."""
    found: dict[str, str] = {}
    for path, code in FIGURE.findall(page):
        text = html.unescape(TAG.sub("", code))
        assert found.setdefault(path, text) == text, f"{path} is shown two ways on one page"
    return found


def wheel_files(built: Built) -> dict[str, str]:
    """The ``.py`` files of the wheel the built page's Python imports kvpage from."""
    packed = built.files[built.packed(built.runtime["wheel"])]
    with zipfile.ZipFile(io.BytesIO(gzip.decompress(packed))) as wheel:
        return {name: wheel.read(name).decode("utf-8") for name in wheel.namelist() if name.endswith(".py")}


def test_every_disclosure_shows_the_wheels_own_source(built: Built) -> None:
    wheel = wheel_files(built)
    pages = [name for name in built.files if name.endswith(".html") and b"lab-python" in built.files[name]]
    assert pages, "no page of the book shows a lab's Python"
    for name in pages:
        shown = shown_files(built.files[name].decode("utf-8"))
        assert shown, f"{name}: a disclosure shows no file"
        for path, text in shown.items():
            assert text == wheel[path], f"{name}: {path} is not the wheel's"


def test_a_lab_shows_its_module_then_the_model_it_imports(tmp_path: Path) -> None:
    (tmp_path / "kvpage" / "labs").mkdir(parents=True)
    source = (
        "from kvpage.costs import prefill_cost\nfrom kvpage.lab import Lab\nfrom kvpage.labs.grid import grid_view\n"
        "from kvpage.jsonvalue import count\nfrom kvpage.tree import el\nimport math\n"
        "def later():\n    from kvpage.prefix import shared_prefix_length\n"
    )
    (tmp_path / "kvpage" / "labs" / "x.py").write_text(source)
    assert shown_modules("kvpage.labs.x", tmp_path) == ("kvpage.labs.x", "kvpage.costs", "kvpage.prefix")


def test_the_picture_vocabulary_is_left_out_as_the_labs_helpers_are(tmp_path: Path) -> None:
    """A lab drawing with kvpage.pictures (a package) shows its arithmetic, not the drawing."""
    (tmp_path / "kvpage" / "labs").mkdir(parents=True)
    source = (
        "from kvpage.pictures import bar_chart\nfrom kvpage.pictures.panel import axis\n"
        "import kvpage.pictures\nfrom kvpage.costs import prefill_cost\n"
    )
    (tmp_path / "kvpage" / "labs" / "x.py").write_text(source)
    assert shown_modules("kvpage.labs.x", tmp_path) == ("kvpage.labs.x", "kvpage.costs")


def test_the_decode_lab_shows_its_cost_functions() -> None:
    files = {file.path: file for file in lab_files(find_labs()["decode"])}
    assert next(iter(files)) == "kvpage/labs/decode.py"
    assert "def prefill_cost(" in files["kvpage/costs.py"].source
    assert '<span class="nf">prefill_cost</span>' in files["kvpage/costs.py"].html


def test_the_editor_opens_on_the_rule_a_reader_changes_first() -> None:
    """costs.py's disclosure marks the line of ``paid_cells`` (the model's one rule), which the page's
    editor opens on (static/kvpage/reader.js); no other file is marked."""
    marked = {file.path: file.opens_at for file in lab_files(LAB) if file.opens_at}
    assert set(marked) == set(OPENS_ON) == {"kvpage/costs.py"}
    lines = next(file.source for file in lab_files(LAB) if file.path == "kvpage/costs.py").splitlines()
    assert lines[marked["kvpage/costs.py"] - 1].startswith(f"def {OPENS_ON['kvpage/costs.py']}(")


def test_the_page_marks_the_line_the_editor_opens_on(built: Built) -> None:
    page = built.files["cache.html"].decode("utf-8")
    assert re.search(r'data-file="kvpage/costs.py" data-opens-at="(\d+)"', page), "no line for the editor to open on"
