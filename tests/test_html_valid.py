"""Every built HTML file passes the Nu HTML Checker (npm vnu-jar, run with Java).

The pages of the two-chapter book are checked too: a chapter without labs, the
example lab's template, a table of contents with nested entries; the kitchen-sink
book's, which holds every construct of the Markdown (tables, code, figures,
MathML, footnotes, task lists); and the single files of the fixture books (the
one whose chapters share headings has its ids prefixed, the kitchen sink's has
its images as data: URIs).

A single file is ~10 MB, nearly all of it the runtime's packed binaries as inline
scripts (``sitegen/runtime/bundle.py``), and the checker takes seconds to read each. Such a
script is one call with a name and base64 text: nothing in it can be markup. The real
book's single file is checked whole, and the fixture books' (whose snapshots hold
their experimental labs too, so their bytes differ), once each packed script is shown
to be exactly that form, are checked with those bodies emptied.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from sitegen import pipeline
from sitegen.runtime.bundle import PACKED as PACKED_SUFFIX
from tests.conftest import ROOT, Built

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"
TWINS = ROOT / "tests" / "books" / "same-headings" / "content"

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"

CSS_NEWER = (
    r".*CSS: “(math-shift|math-depth|math-style|field-sizing|paint-order)”: Property “[a-z-]+” doesn't exist.*"
    r"|.*CSS: “display”: “math” is not a “display” value.*"
)
"""The messages filtered out: the checker's CSS grammar predates MathML Core's CSS (the properties
``math-shift``, ``math-depth``, ``math-style`` and ``display: block math``), which Temml's stylesheet
uses and the single file's inline stylesheet therefore holds (sitegen/markdown/mathml.py); nor does it know
CSS Basic User Interface 4's ``field-sizing`` (Chromium 123 on), which the print stylesheet uses so a
text area prints its whole text, nor SVG 2's ``paint-order`` (the labels' halo over the charts'
lines) (site_template/static/kvpage.css). Every other
message about CSS, and every one about HTML, still fails the test."""

PACKED = re.compile(r"(?<=<script>)\(globalThis\.kvpageAssets\?\?=new Map\(\)\)\.set\([^<]*(?=</script>)")
"""The body of a packed binary's inline script (``sitegen.runtime.bundle.asset_script``)."""


def packed_scripts(page: Path) -> list[str]:
    return PACKED.findall(page.read_text(encoding="utf-8"))


INERT = re.compile(
    r"\(globalThis\.kvpageAssets\?\?=new Map\(\)\)\.set\("
    r'"[\w.-]+",\{type:"application/(?:gzip|zstd)",base64:"[A-Za-z0-9+/]*={0,2}"\}\);\n'
)
"""A packed binary's script exactly: a name and base64 text, which no HTML checker can object to."""


def with_packed_scripts_emptied(page: Path, out: Path) -> Path:
    """A copy of ``page`` whose packed-binary scripts are empty, once each is shown to be of the inert form."""
    text = page.read_text(encoding="utf-8")
    scripts = PACKED.findall(text)
    assert scripts, f"{page}: no packed binaries found; has sitegen.runtime.bundle.asset_script changed?"
    differing = [script[:80] for script in scripts if not INERT.fullmatch(script)]
    assert not differing, f"{page}: these runtime scripts are not a name and base64 text: {differing}"
    out.write_text(PACKED.sub("", text), encoding="utf-8")
    return out


def test_built_html_has_no_errors(built: Built, kitchen_sink: Built, tmp_path: Path) -> None:
    java = shutil.which("java")
    assert java, "Java is needed for the Nu HTML Checker; 'make test' installs it"
    assert VNU.exists(), f"{VNU} is missing; 'npm ci' installs it"
    book = pipeline.Options(content=BOOK, out=tmp_path / "site", dist=tmp_path / "dist", single_file=True)
    pipeline.build(book)
    twins = pipeline.Options(content=TWINS, out=tmp_path / "twins", dist=tmp_path / "twins-dist", single_file=True)
    pipeline.build(twins)
    # Every packed binary the served site has (Pyodide's JavaScript, the wasm, the snapshot, the
    # wheel) is inline in the single file, and each is checked whole:
    served = [name for name in built.files if name.endswith(f"{PACKED_SUFFIX}.js")]
    assert len(packed_scripts(built.single)) == len(served)
    pages = [*sorted(built.site.glob("*.html")), built.single, *sorted(book.out.glob("*.html"))]
    pages += sorted(kitchen_sink.site.glob("*.html"))
    singles = {"two-chapters": book.dist / pipeline.SINGLE_FILE, "same-headings": twins.dist / pipeline.SINGLE_FILE}
    for name, single in {**singles, "kitchen-sink": kitchen_sink.single}.items():
        pages.append(with_packed_scripts_emptied(single, tmp_path / f"{name}.html"))
    assert len(pages) >= 11
    result = subprocess.run(
        [java, "-jar", str(VNU), "--errors-only", "--filterpattern", CSS_NEWER, "--format", "text", *map(str, pages)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
