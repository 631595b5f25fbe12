"""bench/rebuild.py reads the build's own step times from its progress lines.

No timing is asserted: the step lines are written by sitegen.cli.progress with made-up durations.
"""

from __future__ import annotations

import io
import sys

from sitegen.cli.progress import Progress
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import rebuild

TITLES = (
    "building the in-browser runtime (Pyodide checked, kvpage wheel built)",
    "zipping the site into kvpage-site.zip",
    "assembling the single-file book kvpage.html",
)
"""The long steps as build.py and sitegen.runtime.cache announce them."""


def test_the_steps_are_read_from_the_progress_lines() -> None:
    stream = io.StringIO()
    progress = Progress(stream)
    progress.note("warning: something else on stderr")
    for title in TITLES:
        with progress.step(title):
            pass
    assert set(rebuild.steps_of(stream.getvalue())) == {"runtime", "zip", "single"}
    assert all(value >= 0 for value in rebuild.steps_of(stream.getvalue()).values())


def test_exact_values_and_missing_steps() -> None:
    text = "runtime: reused from the cache\nzipping the site into kvpage-site.zip… 11.2 s\nbuilt 16 files\n"
    assert rebuild.steps_of(text) == {"zip": 11.2}


def test_the_titles_are_the_builds_own() -> None:
    sources = "".join(
        (ROOT / "sitegen" / name).read_text(encoding="utf-8") for name in ("pipeline.py", "runtime/cache.py")
    )
    for title in ("building the in-browser runtime (", "zipping the site into ", "assembling the single-file book "):
        assert title in sources
