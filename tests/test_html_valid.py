"""Every built HTML file passes the Nu HTML Checker (npm vnu-jar, run with Java)."""

from __future__ import annotations

import shutil
import subprocess

from tests.conftest import ROOT, Built

VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"


def test_built_html_has_no_errors(built: Built) -> None:
    java = shutil.which("java")
    assert java, "Java is needed for the Nu HTML Checker; 'make test' installs it"
    assert VNU.exists(), f"{VNU} is missing; 'npm ci' installs it"
    pages = [*sorted(built.site.glob("*.html")), built.single]
    assert len(pages) >= 3
    result = subprocess.run(
        [java, "-jar", str(VNU), "--errors-only", "--format", "text", *map(str, pages)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
