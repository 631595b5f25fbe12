"""The page's own script, ``static/kvpage.js``: its stages joined, in the order they run.

The source is one file per stage in ``site_template/static/kvpage/`` (see ``STAGES``), so that
each concern reads on its own and the lab code can be replaced without touching the loader. The
page still makes one request for it: the build joins the stages into one IIFE, where they share
one scope. Stage "image" uses nothing from the others, so the tests run it alone under Node.
"""

from __future__ import annotations

from pathlib import Path

from sitegen.errors import BuildError

SCRIPT = "static/kvpage.js"
"""Where the joined script goes in the site (and what the pages load)."""
STAGE_DIR = "static/kvpage"
"""The stage sources, relative to the template folder; not copied into the site as they are."""
STAGES = ("assets", "image", "hooks", "boot", "labs")
"""In order: bytes of each binary; snapshot container → memory image; Pyodide's requests answered
from memory; start Python and report progress; drive the labs. Everything from the start of
"assets" to the end-of-loader mark in "boot" is the loader that ``bench/run.py`` swaps."""

HEADER = """\
// kvpage page runtime: start Pyodide from the site's own files, then drive the labs.
// Built by sitegen/page_script.py from site_template/static/kvpage/{stages}: edit those.
"use strict";

(() => {{
"""


def page_script(folder: Path) -> bytes:
    """The stages in ``folder`` (a template's ``static/kvpage``) joined into ``kvpage.js``."""
    missing = [
        f"{folder / name}.js: missing (a stage of {SCRIPT})" for name in STAGES if not (folder / f"{name}.js").is_file()
    ]
    extra = sorted(path.name for path in folder.glob("*.js") if path.stem not in STAGES)
    if extra:
        missing.append(f"{folder}: {', '.join(extra)} not a stage of {SCRIPT}; add it to STAGES in {__name__}")
    if missing:
        raise BuildError(missing)
    parts = [HEADER.format(stages="{" + ",".join(STAGES) + "}.js")]
    for name in STAGES:
        text = (folder / f"{name}.js").read_text(encoding="utf-8")
        parts.append(f"\n// ==== stage {name} (kvpage/{name}.js) ====\n{text.rstrip()}\n")
    parts.append("})();\n")
    return "".join(parts).encode("utf-8")
