"""The docs' speed and size figures are generated, never typed: bench/figures.py and its output.

Every ``figures`` block of README.md and docs/performance.md must be exactly what
``bench/figures_blocks.py`` renders from the committed ``docs/figures.json``, and that data must
say which command measured it, on which machine, when, and at which load. A number typed into a
block, or into the data without its provenance, fails here. No timing is asserted (timing goals
live in bench/); the collectors are checked on sample output of the commands they run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import figures
import figures_blocks as blocks

DATA = ROOT / "docs" / "figures.json"
REQUIRED = {
    "README.md": set(),
    "docs/performance.md": {
        "speed",
        "labs",
        "labs-webkit",
        "sizes",
        "bytes",
        "lighthouse",
        "mainthread",
        "phone",
        "make-test",
        "search",
        "search-summary",
    },
}
"""The blocks each document must hold: every figure they state about the current build (the README
states none: its "How fast" links to docs/performance.md)."""


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return found


@pytest.mark.parametrize("document", blocks.DOCUMENTS)
def test_every_block_is_what_the_data_renders(document: str, data: dict[str, Any]) -> None:
    text = (ROOT / document).read_text(encoding="utf-8")
    found = blocks.blocks_in(text, document)
    assert {name for name, _, _ in found} >= REQUIRED[document]
    for name, start, end in found:
        assert text[start:end] == blocks.body(data, name), (
            f"{document}: block {name!r} is not what the data renders; run .venv/bin/python bench/figures.py --render"
        )


def test_every_measurement_says_where_and_when_it_was_made(data: dict[str, Any]) -> None:
    measured = data["measurements"]
    assert {"build", "serve", "labs"} <= set(measured)  # every default measurement was run
    for name, measurement in measured.items():
        assert name in figures.MEASUREMENTS, name
        run = measurement["run"]
        assert set(blocks.RUN_KEYS) <= set(run), name
        assert set(blocks.MACHINE_KEYS) <= set(run["machine"]), name
        assert run["command"].startswith(".venv/bin/python bench/figures.py"), name
        assert len(run["load_before"]) == len(run["load_after"]) == 3, name
        assert run["date"].endswith(" UTC"), name


def test_measured_blocks_name_their_command_machine_and_load(data: dict[str, Any]) -> None:
    for name, block in blocks.BLOCKS.items():
        measured = [data["measurements"][m]["run"] for m in block.measurements if m in data["measurements"]]
        text = blocks.body(data, name)
        for run in measured:
            assert f"Measured by `{run['command']}` on {blocks.machine_line(run['machine'])}:" in text, name
            assert f"{blocks.load(run['load_before'])} before, {blocks.load(run['load_after'])} after" in text
            assert run["date"] in text, name


def test_every_time_in_a_block_is_a_range_over_runs(data: dict[str, Any]) -> None:
    speed = blocks.body(data, "speed")
    rows = [line for line in speed.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) == 8
    for row in rows:
        assert " runs)" in row or "1 run)" in row or "not measured" in row, row


SAMPLE_RUNS = [
    {
        "page": "ours",
        "mode": "http",
        "live_ms": 600.04,
        "fcp_ms": 120.0,
        "failure": "",
        "interactions": {"slider": [{"latency": 2.0}, {"latency": 4.0}], "keystroke": [{"latency": 103, "work": 3}]},
        "requests": ["http://127.0.0.1:1/cache.html"],
    },
    {"page": "ours", "mode": "http", "live_ms": 700.0, "fcp_ms": 130.0, "interactions": {}},
    {"page": "stock", "mode": "file", "live_ms": None, "fcp_ms": 99.0, "failure": "The labs could not start"},
    {"page": "single", "mode": "file", "live_ms": 800.0, "fcp_ms": None, "browser": "WebKit"},
]
SAMPLE_TABLE = """\
|                       | ours http | stock http | ours file:// | stock file:// |
| --------------------- | --------- | ---------- | ------------ | ------------- |
| labs live (median)    | 650 ms    | 2,000 ms   | 700 ms       | never         |
| bytes loaded, raw     | 21.85 MB  | 13.44 MB   | 28.69 MB     | 13.43 MB      |
| bytes loaded, brotli q5 | 6.00 MB | 5.50 MB    | 7.50 MB      | 5.45 MB       |

runs per page and mode: 2
"""


def test_labs_summary_groups_runs_by_page_and_mode() -> None:
    summary = figures.labs_summary(SAMPLE_TABLE, SAMPLE_RUNS, count=2, samples=1)
    assert summary["browser"] == "Chromium, WebKit"
    assert summary["runs"] == 2 and summary["samples"] == 1
    ours = summary["pages"]["ours http"]
    assert ours["live_ms"] == [600.0, 700.0] and ours["fcp_ms"] == [120.0, 130.0]
    assert ours["interactions"] == {
        "keystroke latency": {"p50": 103.0, "p95": 103.0},
        "keystroke work": {"p50": 3.0, "p95": 3.0},
        "slider latency": {"p50": 2.0, "p95": 4.0},
    }
    assert summary["pages"]["stock file"]["live_ms"] == []
    assert summary["failures"] == ["stock file: The labs could not start"]
    assert summary["pages"]["single file"] == {"live_ms": [800.0], "fcp_ms": [], "interactions": {}}
    assert summary["bytes"] == {
        "bytes loaded, raw": {"ours http": "21.85 MB", "stock http": "13.44 MB", "ours file://": "28.69 MB"}
        | {"stock file://": "13.43 MB"},
        "bytes loaded, brotli q5": {"ours http": "6.00 MB", "stock http": "5.50 MB", "ours file://": "7.50 MB"}
        | {"stock file://": "5.45 MB"},
    }


def test_lighthouse_summary_gathers_each_page_and_preset_and_what_failed() -> None:
    def one(page: str, preset: str, performance: int, failure: str = "", attempts: int = 1) -> dict[str, Any]:
        failing = {"performance": [{"id": "total-blocking-time", "title": "TBT", "score": 0.1, "items": []}]}
        return {
            "page": page,
            "preset": preset,
            "scores": {"performance": performance},
            "metrics": {"total-blocking-time": 1881.38649},
            "failing": failing if not failure else {},
            "requests": 0 if failure else 25,
            "outside": [],
            "failure": failure,
            "attempts": attempts,
        }

    runs = [one("ours", "mobile", 73), one("ours", "mobile", 61, attempts=2), one("stock", "mobile", 0, "timeout")]
    summary = figures.lighthouse_summary(runs, 2)
    assert summary["pages"] == {
        "ours": {"mobile": {"scores": {"performance": [73, 61]}, "metrics": {"total-blocking-time": [1881.386] * 2}}}
    }
    assert summary["failing"] == {
        "ours": {"performance/total-blocking-time": {"title": "TBT", "presets": ["mobile"], "items": []}}
    }
    assert (summary["requests"], summary["outside"], summary["retried"]) == (50, 0, 1)
    assert summary["failures"] == ["stock mobile: timeout"]


def test_search_summary_keeps_percentiles_of_every_keystroke_and_each_runs_times() -> None:
    found = {
        "browser": "Chromium 1",
        "queries": ["a"],
        "books": {},
        "runs": [
            {"keystroke_ms": [1.0, 2.0, 30.0], "first_results_ms": 200.04, "load_ms": 16.0, "index_in_browser_ms": 150},
            {"keystroke_ms": [4.0], "first_results_ms": 190.0, "load_ms": 15.55, "index_in_browser_ms": 149.96},
        ],
    }
    summary = figures.search_summary(found)
    assert summary["keystroke_ms"] == {"count": 4, "p50": 4.0, "p95": 30.0, "max": 30.0}
    assert summary["first_results_ms"] == [200.0, 190.0]
    assert summary["load_ms"] == [16.0, 15.6]
    assert summary["index_in_browser_ms"] == [150.0, 150.0]


def test_a_table_without_byte_rows_gives_none() -> None:
    assert figures.bytes_rows("no table at all\n") == {}


def test_command_lines_are_shown_as_typed_in_the_project(tmp_path: Path) -> None:
    command = [figures.PYTHON, str(ROOT / "bench" / "run.py"), "--site", str(tmp_path / "site"), "--runs", "3"]
    assert figures.shell(command, tmp_path) == ".venv/bin/python bench/run.py --site $TMP/site --runs 3"


def test_only_accepts_a_block_or_a_measurement_and_make_test_needs_its_flag() -> None:
    with pytest.raises(SystemExit):
        figures.main(["--only", "nothing"])
    with pytest.raises(SystemExit):
        figures.main(["--only", "make-test"])  # too long to run without --with-make-test
