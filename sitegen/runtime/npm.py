"""What the project's ``package.json`` declares: the one place each npm package's version is written.

The build takes files from three npm packages (Pyodide, MiniSearch, Temml). Each version is written once,
in ``package.json`` (``package-lock.json`` records its integrity); the build's pin files (``sitegen/*-pins.json``)
hold only the sha256 of each file it takes, and the installed package must be the declared version.
"""

from __future__ import annotations

import json
from pathlib import Path

from sitegen.errors import BuildError


def declared_version(project: Path, package: str) -> str:
    """The exact version ``package.json`` in ``project`` declares for ``package``."""
    manifest = project / "package.json"
    try:
        declared = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BuildError([f"{manifest}: cannot be read ({error})"]) from error
    for group in ("dependencies", "devDependencies"):
        version = declared.get(group, {}).get(package)
        if isinstance(version, str):
            return version
    raise BuildError([f"{manifest}: declares no version of {package!r}"])
