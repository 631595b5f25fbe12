"""Whether the kvpage under test has a lab: in Pyodide it is a book's wheel, which may not.

A book's wheel holds only the labs the book may show (``sitegen/runtime/bundle.py``, ``build_wheel``), and
``make pyodide-test`` runs these tests against the published book's, which enables no experimental
lab. The tests of a lab it lacks are skipped there, saying so; in CPython (``kvpage/`` itself)
every lab is present and they all run. Only a lab's own module being absent skips: a lab whose
import fails for any other reason fails its tests, as it should.
"""

from __future__ import annotations

import importlib.util

import pytest

from kvpage.lab import module_of


def shipped(lab: str) -> bool:
    """Whether this kvpage has the module of the lab ``lab`` (``square``: ``kvpage.labs.square``)."""
    return importlib.util.find_spec(module_of(lab)) is not None


def absent(lab: str) -> str:
    """Why the tests of ``lab`` do not run here."""
    return (
        f"{module_of(lab)} is not in this kvpage: a book's wheel holds only the labs the book enables, "
        f"and this one does not enable {lab!r}"
    )


def skip_unless_shipped(lab: str) -> None:
    """Skip the calling test module unless this kvpage has the lab module ``lab``."""
    if not shipped(lab):
        pytest.skip(absent(lab), allow_module_level=True)
