"""The page's HTML and its script agree on every name between them (sitegen/site/page_contract.py).

The templates and the Markdown plugin print ``data-*`` attributes and the page's config; the
page's scripts (its modules in static/kvpage/, the labs' own scripts in static/labs/, search's
static/search.js) read them.
Both sides are read here as text, and each must use exactly the names the contract lists: no
attribute printed and never read (a dead one, such as the old ``data-params``), none read and
never printed, and no key of the config or of a lab's schema that the script reads but the
build does not write.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from kvpage.lab import Button, Choice, Output, Slider, Text
from sitegen.labs.placements import all_labs
from sitegen.runtime.bundle import Loader
from sitegen.site.assemble import PageConfig
from sitegen.site.page_contract import ATTRIBUTES, ROLES
from tests.conftest import ROOT

TEMPLATES = ROOT / "site_template"
STAGES = TEMPLATES / "static" / "kvpage"
LAB_SCRIPTS = TEMPLATES / "static" / "labs"
PLUGIN = ROOT / "sitegen" / "markdown" / "plugins" / "lab_blocks.py"
TREE_ATTRIBUTES = {"data-kind", "data-ends-prefix"}
"""Attributes inside a lab's drawings (kvpage/labs/) that the stylesheet styles: not the page's wiring."""


COMMENT = re.compile(r"(^|\s)//.*$", re.MULTILINE)
JSDOC = re.compile(r"/\*\*.*?\*/", re.DOTALL)
"""The JSDoc blocks that type the modules for tsc: comments too (``import("./python.js")``)."""
IMPORT = re.compile(r"^import\b[^;]*;", re.MULTILINE)
"""A module's imports: they name its files (``from "./python.js"``), never a key."""


def scripts() -> dict[Path, str]:
    """Every script of the page, comments and imports left out (they name files, such as sitegen/runtime/bundle.py)."""
    paths = [*STAGES.glob("*.js"), *LAB_SCRIPTS.glob("*.js"), TEMPLATES / "static" / "search.js"]
    return {path: COMMENT.sub("", IMPORT.sub("", JSDOC.sub("", path.read_text(encoding="utf-8")))) for path in paths}


def printed() -> set[str]:
    """Every data-* attribute the templates and the plugin write."""
    sources = [path.read_text(encoding="utf-8") for path in TEMPLATES.rglob("*.html")]
    sources.append(PLUGIN.read_text(encoding="utf-8"))
    return {name for text in sources for name in re.findall(r"\b(data-[a-z-]+)=", text)}


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


def test_the_html_and_the_scripts_use_exactly_the_contracts_attributes() -> None:
    contract = set(ATTRIBUTES)
    set_by_script = {"data-python", "data-python-cache", "data-phase"}
    assert printed() - TREE_ATTRIBUTES - set_by_script <= contract
    assert read_by_scripts() == contract
    # Printed by the build, or set by the script itself on elements the build printed:
    assert contract - printed() == set_by_script
    css = (TEMPLATES / "static" / "kvpage.css").read_text(encoding="utf-8")
    assert "data-python" in css  # what the script sets there, the stylesheet reads


def test_the_roles_are_the_contracts() -> None:
    used = {role for text in scripts().values() for role in re.findall(r"\[data-role=([a-z]+)\]", text)}
    written = {
        role
        for path in TEMPLATES.rglob("*.html")
        for role in re.findall(r'data-role="([a-z]+)"', path.read_text(encoding="utf-8"))
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
