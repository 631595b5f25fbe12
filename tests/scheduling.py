"""How ``make test`` spreads the tests over its workers (``pytest -n 3 --dist loadscope``).

xdist's loadscope hands out work units whole: each module's tests run on one worker, in order, so a
module's fixtures are made once. Two things made the suite's end wait on one worker while the
others had finished (docs/performance.md, "The test suite"):

- The Firefox and WebKit modules were one unit each: every flow of the book, three ways, one after
  the other (the WebKit one a third of a worker's whole run). Here a browser module's unit is one
  way of opening the book (``BROWSER_MODULES``, ``unit``): its http, file:// and single-file tests
  may run on three workers at once, each starting its own browser (a few seconds) where the tests
  themselves take minutes. Every test still runs, in the same browser, on the same pages.
- xdist started the units with the most tests first; the longest ones (two builds of the book from
  nothing, the serve tests' rebuilds, the browser suites) have few tests and so started last, each
  then the only work left. ``longest_first`` puts the units known to be long at the front (LPT:
  the longest first leaves the short ones to fill in at the end), then the rest by test count as
  xdist did; ``make test`` passes ``--no-loadscope-reorder`` so that xdist keeps this order.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

BROWSER_MODULES = ("tests/browsers/test_webkit.py", "tests/browsers/test_firefox.py")
"""Modules whose tests are spread by the way the book is opened, not as one unit."""
WAYS = ("single-file", "http", "file")
"""How a browser test's parameters name the way (``WAYS`` of ``tests/browser_fixtures.py``); "single-file" before
"file", which it ends with."""
LONGEST = (
    "tests/browsers/test_firefox.py::file",
    "tests/e2e/test_reader.py",
    "tests/e2e/test_accessibility.py",
    "tests/test_reproducible.py",
    "tests/e2e/test_serve.py",
    "tests/e2e/test_links.py",
    "tests/browsers/test_webkit.py::file",
    "tests/sitegen/test_invalid_content.py",
    "tests/e2e/test_turns_lab.py",
    "tests/e2e/test_hostile_input.py",
    "tests/e2e/test_lab_visuals.py",
    "tests/browsers/test_firefox.py::single-file",
    "tests/e2e/test_search.py",
    "tests/e2e/test_every_lab.py",
    "tests/sitegen/test_pipeline_fuzz.py",
    "tests/e2e/test_labs.py",
    "tests/e2e/test_worker.py",
)
"""The units that took longest, longest first, from the per-test durations of ``make test``'s pytest
run (``--junitxml``, summed per unit with :func:`unit`; a fresh clone's ``.ci/run`` on 2026-12-07, 18:42 UTC:
61 s down to 13 s). A unit not named here, or named but renamed, only loses its place at the front:
nothing is left out by this list."""


def unit(nodeid: str) -> str:
    """The work unit of the test ``nodeid``: its module, or for a browser module the module and the way."""
    module, _, name = nodeid.partition("::")
    if module in BROWSER_MODULES and "[" in name:
        params = name.split("[", 1)[1]
        for way in WAYS:
            if params.startswith(way):
                return f"{module}::{way}"
    return nodeid.rsplit("::", 1)[0]


class ByWay(LoadScopeScheduling):
    """loadscope, with the browser modules' units split by way (:func:`unit`).

    Through xdist's hook ``pytest_xdist_make_scheduler`` and ``_split_scope``, as xdist's own loadfile
    and loadgroup schedulers are made. Its public way, ``--dist loadgroup`` with an ``xdist_group``
    mark on each test, does not work with the pinned versions: xdist 3.8 puts the group in
    ``item._nodeid``, which pytest 9 no longer reads (``Node.nodeid`` is ``_id``), so every test
    became a unit of its own and a module's tests ran on every worker (tried for issue 47)."""

    def _split_scope(self, nodeid: str) -> str:
        return unit(nodeid)


def longest_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: the units of ``LONGEST`` first, in that order, then the rest by
    their number of tests, most first; a unit's tests stay together, in their order."""
    sizes: dict[str, int] = {}
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        sizes[unit(item.nodeid)] = sizes.get(unit(item.nodeid), 0) + 1
        first.setdefault(unit(item.nodeid), index)

    def rank(item: pytest.Item) -> tuple[int, int, int]:
        found = unit(item.nodeid)
        place = LONGEST.index(found) if found in LONGEST else len(LONGEST)
        return (place, 0 if found in LONGEST else -sizes[found], first[found])

    items.sort(key=rank)


def make_scheduler(config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
    """The scheduler for ``--dist loadscope`` (:class:`ByWay`); None leaves any other to xdist."""
    return ByWay(config, log) if config.getvalue("dist") == "loadscope" else None
