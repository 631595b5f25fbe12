"""Every built HTML file passes the Nu HTML Checker (npm vnu-jar, run with Java).

The pages of the two-chapter book are checked too: a chapter without labs, the
example lab's template, a table of contents with nested entries; and the
single file of the book whose chapters share headings (its ids are prefixed).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import build
from tests.conftest import ROOT, Built

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"
TWINS = ROOT / "tests" / "books" / "same-headings" / "content"

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def test_built_html_has_no_errors(built: Built, tmp_path: Path) -> None:
    java = shutil.which("java")
    assert java, "Java is needed for the Nu HTML Checker; 'make test' installs it"
    assert VNU.exists(), f"{VNU} is missing; 'npm ci' installs it"
    book = build.Options(content=BOOK, out=tmp_path / "site", dist=tmp_path / "dist", single_file=True)
    build.build(book)
    pages = [*sorted(built.site.glob("*.html")), built.single, *sorted(book.out.glob("*.html"))]
    pages.append(book.dist / build.SINGLE_FILE)
    twins = build.Options(content=TWINS, out=tmp_path / "twins", dist=tmp_path / "twins-dist", single_file=True)
    build.build(twins)
    pages.append(twins.dist / build.SINGLE_FILE)
    assert len(pages) >= 8
    result = subprocess.run(
        [java, "-jar", str(VNU), "--errors-only", "--format", "text", *map(str, pages)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
