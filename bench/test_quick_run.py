"""The bench harness still runs: one quick pass over the built site and the stock page it builds.

No timing is asserted here (timing goals live in bench/, see docs/performance.md); this only
keeps the harness from rotting: it must open both pages both ways and print its table. It is
``make bench``'s (``pytest bench``, on the site it builds first), not ``make test``'s: it builds
stock Pyodide's page and times a cold load of each page, both ways, a minute of a core's work that
checks nothing a reader sees (the e2e tests do) and only the bench uses (issue 47).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "site"
"""The site ``make bench`` builds first (``make test-site``)."""


def test_quick_run_prints_the_table(tmp_path: Path) -> None:
    if not (SITE / "cache.html").exists():
        pytest.fail("no site/ to time: run make bench (it builds the site first)")
    command = [sys.executable, str(ROOT / "bench" / "run.py"), "--quick", "--site", str(SITE)]
    result = subprocess.run([*command, "--work", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1] for line in result.stdout.splitlines() if "|" in line}
    ours_http, stock_http, ours_file, stock_file = (cell.strip() for cell in rows["labs live (median)"][:4])
    assert re.fullmatch(r"[\d,]+ ms", ours_http) and re.fullmatch(r"[\d,]+ ms", ours_file), rows
    assert re.fullmatch(r"[\d,]+ ms", stock_http), rows
    assert stock_file == "never"  # stock Pyodide cannot start from file://, and the table says so
    assert "stock file: The labs could not start" in result.stdout
    for row in ("first contentful paint (median)", "bytes loaded, brotli q5"):
        assert row in rows
    # Every interaction was timed on our page both ways (a renamed button or label would leave "—").
    for row in ("slider key p95", "request keystroke p95", "Forward click p95"):
        ours = [rows[row][0].strip(), rows[row][2].strip()]
        assert all(re.fullmatch(r"[\d,]+\.\d ms", cell) for cell in ours), (row, rows[row])
    received = [cell.strip() for cell in rows["bytes received until labs live (text gzipped)"][:4]]
    assert all(re.fullmatch(r"\d+\.\d\d MB", cell) for cell in received[:2]), received  # measured over http
    assert received[2:] == ["—", "—"]  # from disk nothing is received
    # Counted with what workers fetch: stock Pyodide's worker fetches its wasm as it is (not gzipped by
    # such a host), ours the packed binaries, before either's labs are live.
    ours_bytes, stock_bytes = (float(cell.removesuffix(" MB")) * 1e6 for cell in received[:2])
    packed = sum(path.stat().st_size for path in (SITE / "pyodide").glob("*.bin"))
    assert ours_bytes >= packed * 0.99, (received, packed)  # the table rounds to 10 kB
    assert stock_bytes >= (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").stat().st_size, received
