"""The page's HTML and its script agree on every name between them (sitegen/site/page_contract.py).

The templates and the Markdown plugin print ``data-*`` attributes and the page's config; the
page's scripts (its modules in static/kvpage/, the labs' own scripts in static/labs/, search's
static/search.js) read them.
The HTML side is read with ``html.parser`` (the templates, and the pages the pipeline rendered,
with what the Markdown plugins print), the scripts as text; each must use exactly the names the contract lists: no
attribute printed and never read (a dead one, such as the old ``data-params``), none read and
never printed, and no key of the config or of a lab's schema that the script reads but the
build does not write.
"""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from pathlib import Path

from kvpage.lab import Button, Choice, Output, Slider, Text
from sitegen import pipeline
from sitegen.labs.discovery import all_labs
from sitegen.runtime.bundle import Loader
from sitegen.site.assemble import PageConfig
from sitegen.site.page_contract import ATTRIBUTES, ROLES
from tests.conftest import ROOT
from tests.pagetext import Elements

TEMPLATES = ROOT / "site_template"
STAGES = TEMPLATES / "static" / "kvpage"
LAB_SCRIPTS = TEMPLATES / "static" / "labs"
TREE_ATTRIBUTES = {"data-kind", "data-ends-prefix", "data-figure"}
"""Attributes of the model's drawings (kvpage/labs/, kvpage/figures.py) that the stylesheet or the tests
find them by: not the page's wiring."""


COMMENT = re.compile(r"(^|\s)//.*$", re.MULTILINE)
JSDOC = re.compile(r"/\*\*.*?\*/", re.DOTALL)
"""The JSDoc blocks that type the modules for tsc: comments too (``import("./python.js")``)."""
IMPORT = re.compile(r"^import\b[^;]*;", re.MULTILINE)
"""A module's imports: they name its files (``from "./python.js"``), never a key."""


def scripts() -> dict[Path, str]:
    """Every script of the page, comments and imports left out (they name files, such as sitegen/runtime/bundle.py)."""
    paths = [*STAGES.glob("*.js"), *LAB_SCRIPTS.glob("*.js"), TEMPLATES / "static" / "search.js"]
    return {path: COMMENT.sub("", IMPORT.sub("", JSDOC.sub("", path.read_text(encoding="utf-8")))) for path in paths}


class _PageAttributes(HTMLParser):
    """The data-* attribute names of a page's elements, a drawing's left out: what an ``svg``, a
    lab's part (``data-part``) or a figure the model drew (``data-figure``) holds is the model's
    tree (kvpage/tree.py checks its attributes), not the page's wiring. Skipped to the end tag that
    closes it, same-named tags inside counted."""

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.skipping: tuple[str, int] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping is not None:
            if tag == self.skipping[0]:
                self.skipping = (tag, self.skipping[1] + 1)
            return
        self.names |= {name for name, _ in attrs if name.startswith("data-")}
        if tag == "svg" or any(name in ("data-part", "data-figure") for name, _ in attrs):
            self.skipping = (tag, 1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping is None:
            self.names |= {name for name, _ in attrs if name.startswith("data-")}

    def handle_endtag(self, tag: str) -> None:
        if self.skipping is not None and tag == self.skipping[0]:
            depth = self.skipping[1] - 1
            self.skipping = None if depth == 0 else (tag, depth)


def data_attributes(html: str) -> set[str]:
    """The data-* attribute names of ``html``'s elements outside its drawings, read by ``html.parser``
    (a template's ``{{ … }}`` inside a value is text to it)."""
    parser = _PageAttributes()
    parser.feed(html)
    parser.close()
    return parser.names


def printed(rendered: pipeline.Rendered) -> set[str]:
    """Every data-* attribute the build writes: in every template (each branch, rendered or not) and
    in the book's pages as the pipeline rendered them (what the Markdown plugins print)."""
    templates = {name for path in TEMPLATES.rglob("*.html") for name in data_attributes(path.read_text("utf-8"))}
    pages = {
        name
        for path, data in rendered.site.files.items()
        if path.endswith(".html")
        for name in data_attributes(data.decode("utf-8"))
    }
    return templates | pages


def read_by_scripts() -> set[str]:
    """Every data-* attribute the scripts find elements by or read or set, dataset.camelCase included."""
    found: set[str] = set()
    for text in scripts().values():
        found |= set(re.findall(r"\[(data-[a-z-]+)", text))
        found |= {
            "data-" + re.sub(r"[A-Z]", lambda upper: "-" + upper.group(0).lower(), name)
            for name in re.findall(r"\bdataset\.([a-zA-Z]+)", text)
        }
    return found


def test_the_html_and_the_scripts_use_exactly_the_contracts_attributes(rendered: pipeline.Rendered) -> None:
    contract = set(ATTRIBUTES)
    set_by_script = {"data-python", "data-python-cache", "data-phase"}
    written = printed(rendered)
    assert written - TREE_ATTRIBUTES - set_by_script <= contract
    assert read_by_scripts() == contract
    # Printed by the build, or set by the script itself on elements the build printed:
    assert contract - written == set_by_script
    css = (TEMPLATES / "static" / "kvpage.css").read_text(encoding="utf-8")
    assert "data-python" in css  # what the script sets there, the stylesheet reads


def test_the_roles_are_the_contracts() -> None:
    used = {role for text in scripts().values() for role in re.findall(r"\[data-role=([a-z]+)\]", text)}
    written = {
        attrs["data-role"]
        for path in TEMPLATES.rglob("*.html")
        for _, attrs in Elements(path.read_text(encoding="utf-8")).elements
        if "data-role" in attrs
    }
    assert written == used == set(ROLES)


def keys_read(pattern: str) -> set[str]:
    return {key for text in scripts().values() for key in re.findall(pattern, text)}


def test_the_script_reads_only_keys_the_page_config_has() -> None:
    config_keys = {field.name for field in dataclasses.fields(PageConfig)}
    python_keys = {field.name for field in dataclasses.fields(Loader)}
    assert keys_read(r"\bconfig\.([a-z_]+)") == config_keys
    # The loader's config is "python" on the page and "runtime" in the worker.
    read = keys_read(r"\b(?:python|runtime)\.([a-z_]+)\b")
    assert read == python_keys, f"read but not written: {read - python_keys}; written, never read: {python_keys - read}"


def test_the_script_reads_only_keys_a_labs_schema_has() -> None:
    lab_keys = {key for lab in all_labs().values() for key in lab.schema()}
    control_keys = {
        key
        for control in (Slider("a", "A", 1, 2, 1), Choice("b", "B", (("x", "X"),), "x"), Text("c", "C", 9))
        for key in control.schema()
    }
    assert keys_read(r"\bschema\.([a-z_]+)") <= lab_keys
    assert keys_read(r"\bcontrol\.([a-z_]+)") <= control_keys
    assert keys_read(r"\bbutton\.([a-z_]+)") <= set(Button("a", "A").schema())
    assert keys_read(r"\boutput\.([a-z_]+)") <= set(Output("a").schema())
