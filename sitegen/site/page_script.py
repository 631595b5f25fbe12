"""The page's own script, ``static/kvpage.js``: its ES modules bundled by esbuild into one classic script.

The source is one ES module per stage in ``site_template/static/kvpage/``, each importing what it
uses by name, so that each concern reads on its own, ``make check`` type-checks (tsc) and lints
(ESLint) them, and the loader can be replaced without touching the rest (``bench/run.py``). The
page still loads one classic script with one request, from a server, from disk and inline in the
single file: esbuild (pinned in ``package.json``, like the other npm tools the build runs) bundles
``boot.js`` and its imports into one IIFE. Python's worker is a second entry, ``worker.js``: its
bundle is a classic script too, whose text the page runs as each worker's code (stage "spawn"),
after Pyodide's JavaScript in one Blob; it shares nothing with the page but ``protocol.js``, the
messages between them. What the Python owns (the tree vocabulary, the output kinds, the config's
id) and the worker's text reach the page through ``contract.js``, whose names esbuild defines here;
``swap.py`` reaches the worker as text (esbuild's text loader).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kvpage.lab import TEXT_KINDS, TEXT_LENGTH
from kvpage.tree import ATTRIBUTE_PATTERN, FORBIDDEN_ATTRIBUTES, HTML_TAGS, SVG_TAGS, VOID_TAGS
from sitegen.errors import BuildError, ContentError

SCRIPT = "static/kvpage.js"
"""Where the bundled script goes in the site (and what the pages load)."""
STAGE_DIR = "static/kvpage"
"""The modules, relative to the template folder; not copied into the site as they are."""
CONFIG_ID = "kvpage-config"
"""The id of the page's config, a ``<script type="application/json">`` (``sitegen.site.assemble.PageConfig``)."""
ENTRY = "boot.js"
"""The page's entry module: everything the page runs is imported from it."""
WORKER_ENTRY = "worker.js"
"""Python's worker's entry module, bundled on its own (it runs in the worker, never on the page)."""
SOURCES = ("*.js", "*.py")
"""What the folder holds for the bundles: each must be in one of them (``*.d.ts`` only types them)."""
PROJECT = Path(__file__).resolve().parents[2]
ESBUILD = PROJECT / "node_modules" / ".bin" / "esbuild"
"""The pinned esbuild, beside the build's code (a build tool, like Temml)."""
TIME_LIMIT_S = 60
ESBUILD_ERROR = re.compile(
    r"^✘ \[ERROR\] (?P<message>.+?)\n\n\s+(?P<file>[^\s:]+):(?P<line>\d+):(?P<column>\d+):$", re.MULTILINE
)
"""One of esbuild's errors (``--color=false``): its message, then where it is."""

HEADER = """\
// kvpage page runtime: the labs, drawn from Python's views; Python itself runs in a Web Worker.
// Bundled by sitegen/site/page_script.py (esbuild) from site_template/static/kvpage/{entries}: edit those.
"use strict";"""


@dataclass(frozen=True)
class Bundle:
    """One entry's classic script, and the source files it was made from (relative to the folder)."""

    text: str
    inputs: frozenset[str]


def contract() -> dict[str, str]:
    """The names ``contract.js`` reads, as JavaScript (JSON) expressions: the constants the page
    shares with the Python that defines them."""
    tree = {
        "svg": sorted(SVG_TAGS),
        "html": sorted(HTML_TAGS),
        "void": sorted(VOID_TAGS),
        "forbidden": sorted(FORBIDDEN_ATTRIBUTES),
        "attribute": ATTRIBUTE_PATTERN,
    }
    return {
        "KVPAGE_TREE": json.dumps(tree),
        "KVPAGE_TEXT_KINDS": json.dumps(list(TEXT_KINDS)),
        "KVPAGE_CONFIG_ID": json.dumps(CONFIG_ID),
        "KVPAGE_TEXT_LENGTH": json.dumps(TEXT_LENGTH),
    }


def bundle(folder: Path, entry: str, defines: dict[str, str], banner: str = "") -> Bundle:
    """``entry`` in ``folder`` and its imports as one IIFE; esbuild's errors as the build's."""
    if not ESBUILD.is_file():
        raise BuildError(
            [f"{ESBUILD.relative_to(PROJECT)} is missing: the build bundles {SCRIPT} with it; run make deps"]
        )
    with tempfile.TemporaryDirectory(prefix="kvpage-bundle-") as work:
        out, meta = Path(work) / "out.js", Path(work) / "meta.json"
        command = [
            str(ESBUILD),
            entry,
            "--bundle",
            "--format=iife",
            "--charset=utf8",  # "…" as it is written, not as \u2026
            "--loader:.py=text",
            "--log-level=error",
            "--color=false",
            f"--outfile={out}",
            f"--metafile={meta}",
            *(f"--define:{name}={value}" for name, value in defines.items()),
            *([f"--banner:js={banner}"] if banner else []),
        ]
        try:
            done = subprocess.run(
                command, cwd=folder, capture_output=True, text=True, timeout=TIME_LIMIT_S, check=False
            )
        except OSError as error:
            raise BuildError([f"{ESBUILD}: cannot run ({error})"]) from error
        if done.returncode != 0:
            raise BuildError(esbuild_errors(folder, entry, done.stderr))
        inputs = json.loads(meta.read_text(encoding="utf-8"))["inputs"]
        return Bundle(out.read_text(encoding="utf-8"), frozenset(inputs))


def shown(path: Path) -> str:
    """``path`` as an error names it: from the working directory when it is under it (as a template's is)."""
    here = Path.cwd()
    return path.relative_to(here).as_posix() if path.is_relative_to(here) else str(path)


def esbuild_errors(folder: Path, entry: str, stderr: str) -> list[ContentError | str]:
    """esbuild's errors as the build's, ``path:line:column: message``; its own words if it says other things."""
    found: list[ContentError | str] = [
        ContentError(shown(folder / error["file"]), int(error["line"]), error["message"], int(error["column"]) + 1)
        for error in ESBUILD_ERROR.finditer(stderr)
    ]
    return found or [f"{shown(folder / entry)}: esbuild could not bundle it: {stderr.strip()}"]


def worker_script(folder: Path) -> Bundle:
    """Python's worker: ``worker.js`` and its imports, the text each worker runs after Pyodide's."""
    return bundle(folder, WORKER_ENTRY, {})


def page_script(folder: Path) -> bytes:
    """The modules in ``folder`` (a template's ``static/kvpage``) bundled into ``kvpage.js``.

    A source file in ``folder`` that neither bundle imports fails the build: nothing there is dead."""
    worker = worker_script(folder)
    defines = {**contract(), "KVPAGE_WORKER_SCRIPT": json.dumps(worker.text)}
    page = bundle(folder, ENTRY, defines, HEADER.format(entries=f"{{{ENTRY},{WORKER_ENTRY}}}"))
    used = page.inputs | worker.inputs
    stray = sorted(
        path.name
        for pattern in SOURCES
        for path in folder.glob(pattern)
        if not path.name.endswith(".d.ts") and path.name not in used
    )
    if stray:
        raise BuildError([f"{shown(folder)}: {', '.join(stray)} imported by neither {ENTRY} nor {WORKER_ENTRY}"])
    return page.text.encode("utf-8")
