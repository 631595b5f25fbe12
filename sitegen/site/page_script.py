"""The page's own script, ``static/kvpage.js``: its ES modules bundled by esbuild into one classic script.

One ES module per stage reads on its own and is type-checked and linted, yet the page loads one
classic script with one request, from a server, from disk and inline (decision 0032). The entries
(the page's, Python's worker's, the editor's) and why each: :func:`bundled_scripts`.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kvpage.lab import TEXT_KINDS, TEXT_LENGTH
from kvpage.tree import ATTRIBUTE_PATTERN, FORBIDDEN_ATTRIBUTES, HTML_TAGS, SVG_TAGS, VOID_TAGS
from sitegen.errors import BuildError, ContentError
from sitegen.limited_run import run_limited
from sitegen.runtime.names import content_name

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
READER_ENTRY = "reader.js"
"""The editor's entry module, bundled on its own and loaded on the first Edit."""
READER_SCRIPT = "static/reader.js"
"""Where the editor's script goes in the site, before its content's hash is put in its name."""
READER_NAME = re.compile(r"^static/reader\.[0-9a-f]+\.js$")
"""The editor's script's path in the site (``content_name`` of ``READER_SCRIPT``)."""
READER_ID = "kvpage-reader"
"""The id of the single file's data block that holds the editor's script."""
ENTRIES = (ENTRY, WORKER_ENTRY, READER_ENTRY)
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

READER_HEADER = """\
// kvpage's editor of a lab's Python, loaded on the first Edit (the page's script runs it).
// Bundled by sitegen/site/page_script.py (esbuild) from site_template/static/kvpage/{entry}: edit that.
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
        "KVPAGE_READER_ID": json.dumps(READER_ID),
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
            "--tsconfig-raw={}",  # the bundle never depends on tsconfig.json: that file is tsc's, for make check
            "--log-level=error",
            "--color=false",
            f"--outfile={out}",
            f"--metafile={meta}",
            *(f"--define:{name}={value}" for name, value in defines.items()),
            *([f"--banner:js={banner}"] if banner else []),
        ]
        done = run_limited(
            command,
            TIME_LIMIT_S,
            f"esbuild bundling {entry}",
            "the build bundles the page's script with it: run make deps",
            cwd=folder,
        )
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


@dataclass(frozen=True)
class PageScripts:
    """The page's two scripts: its own, loaded with the page, and the editor's, loaded on the first Edit."""

    page: bytes
    reader: bytes

    @property
    def reader_path(self) -> str:
        """The editor's script's path in the site, named after its content."""
        return content_name(READER_SCRIPT, self.reader)

    def files(self) -> dict[str, bytes]:
        """Both, by their paths in the site."""
        return {SCRIPT: self.page, self.reader_path: self.reader}


def reader_path(files: Iterable[str]) -> str:
    """The editor's script among a site's ``files`` (its paths), or ``""`` if the template has none."""
    return next((name for name in files if READER_NAME.match(name)), "")


def bundled_scripts(folder: Path) -> PageScripts:
    """The modules in ``folder`` (a template's ``static/kvpage``) bundled into ``kvpage.js`` and the editor's script.

    A source file in ``folder`` that no bundle imports fails the build: nothing there is dead.

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

    What only the editor of a lab's "Python" disclosure needs (``reader.js``, and ``reader.py``, the
    Python side of a reader's Run, which it sends to the worker as text) is a third entry, its own
    classic script, ``static/reader.HASH.js`` (named after its content like the runtime's files,
    ``sitegen/runtime/names.py``): the page loads it the first time a reader presses Edit (stage
    "disclosure", ``disclosure.js``), so nothing of it is downloaded or parsed before the labs are
    live. The page's config names it (``reader``); the single file holds its text in a
    ``<script type="text/plain">`` data block (``READER_ID``), which the page runs as an inline script
    allowed by its hash in the policy, like the file's other scripts (``sitegen/site/assemble.py``).
    """
    worker = worker_script(folder)
    defines = {**contract(), "KVPAGE_WORKER_SCRIPT": json.dumps(worker.text)}
    page = bundle(folder, ENTRY, defines, HEADER.format(entries=f"{{{ENTRY},{WORKER_ENTRY}}}"))
    reader = bundle(folder, READER_ENTRY, contract(), READER_HEADER.format(entry=READER_ENTRY))
    used = page.inputs | worker.inputs | reader.inputs
    stray = sorted(
        path.name
        for pattern in SOURCES
        for path in folder.glob(pattern)
        if not path.name.endswith(".d.ts") and path.name not in used
    )
    if stray:
        raise BuildError([f"{shown(folder)}: {', '.join(stray)} imported by none of {', '.join(ENTRIES)}"])
    return PageScripts(page.text.encode("utf-8"), reader.text.encode("utf-8"))


def page_script(folder: Path) -> bytes:
    """The page's own script, ``kvpage.js`` (:func:`bundled_scripts`)."""
    return bundled_scripts(folder).page
