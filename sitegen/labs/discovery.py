"""Which labs there are: every ``kvpage/labs/NAME.py``'s ``LAB``, imported once per process (after
the import has been timed in a child), those a book enables, and the modules a book leaves out.
Problems are returned as ``ContentError`` values (decision 0061).
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping
from types import MappingProxyType

from kvpage.catalog import find_labs
from kvpage.lab import Lab
from sitegen.errors import ContentError
from sitegen.labs.model_errors import import_failure
from sitegen.labs.model_imports import module_file
from sitegen.labs.model_process import MODEL_HOME, slow_import


def import_too_slow(timeout: float) -> ContentError | None:
    """The model's import, limited like its calls: where it was when ``timeout`` seconds ran out (a
    loop or a long computation at a module's top level), or None if it finished. Run in a child
    before the build imports the model itself, which has no limit (:func:`model_failure`). Once this
    process has imported the labs (:func:`all_labs`, kept for the process: serve restarts its build
    process when the model changes), there is no import left to limit, and no child is started."""
    if all_labs.cache_info().currsize:
        return None
    found = slow_import(timeout)
    if found is None:
        return None
    message = (
        f"importing the model did not finish in {timeout:g} s (build_timeout); it was running this line. "
        "Importing is limited like a lab's calls: compute what a lab needs when it is called"
    )
    return ContentError(*found, message)


def model_failure() -> ContentError | None:
    """The model's import failure at its line (a syntax error in a lab, say), or None if every lab imports.

    Everything else needs the labs, so the build stops at this one error.
    """
    try:
        all_labs()
    except Exception as error:  # whatever a model file raises as it is imported
        found = import_failure(error, MODEL_HOME)
        if found is None:
            raise
        return found
    return None


@functools.cache
def all_labs() -> Mapping[str, Lab]:
    """Every lab kvpage has (experimental ones too), by name.

    Looked up once per process: a change to the model restarts ``serve``'s build process.
    """
    return MappingProxyType(find_labs())


def enabled_labs(experimental: Iterable[str] = (), labs: Mapping[str, Lab] | None = None) -> Mapping[str, Lab]:
    """The labs a book may use: every lab that is not experimental, and those of ``experimental`` it enables."""
    allowed = set(experimental)
    every = all_labs() if labs is None else labs
    return {name: lab for name, lab in every.items() if not lab.experimental or name in allowed}


def other_labs(labs: Collection[str]) -> frozenset[str]:
    """The module files (``kvpage/labs/square.py``) of every lab kvpage has but ``labs``: what a book
    whose labs are ``labs`` leaves out of its wheel, its snapshot and its runtime's cache key
    (:func:`sitegen.labs.model_imports.model_tree`), so a reader downloads only the labs the book may show
    and an edit to another lab's module rebuilds no runtime of this book."""
    return frozenset(module_file(lab.module) for name, lab in all_labs().items() if name not in labs)
