"""The model with a reader's edits, run in CPython: what a lab shows after "Run" in its Python disclosure.

Both the Chromium tests (tests/e2e/test_reader.py) and the Firefox and WebKit flows
(tests/browsers/flows.py) derive their expected numbers here, never type them: a copy of ``kvpage/``
with the edited files in place of the book's, imported in a Python process of its own (so the
test's own kvpage stays the book's), answers each request through ``kvpage.bridge.handle``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
COSTS = "kvpage/costs.py"
BOOK_COSTS = (ROOT / COSTS).read_text(encoding="utf-8")
SQUARE = "return [(query, range(cached if query < cached else 0, n)) for query in range(n)]"
"""The line of prefill_cells the exercise changes: each row's keys up to ``n``, the square."""
CAUSAL = BOOK_COSTS.replace(SQUARE, SQUARE.replace(", n)) for", ", query + 1)) for"))
"""costs.py with the exercise done: a causal prefill, each row's keys up to its own token."""
DECODE_ROW = "return [(t - 1, range(t))]"
"""The line of paid_cells that says what a decode step pays with the KV cache: one row."""
DOUBLED = BOOK_COSTS.replace(DECODE_ROW, "return [(t - 1, range(t))] * 2")
"""costs.py with the decode cost doubled: the KV cache's new row paid twice a step."""
COMPUTE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from kvpage import bridge
print(json.dumps([json.loads(bridge.handle(request)) for request in json.load(sys.stdin)]))
"""


def edited_views(edits: Mapping[str, str], requests: list[str]) -> list[dict[str, Any]]:
    """The views ``requests`` get from the model with ``edits`` (path → text), computed in CPython."""
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        shutil.copytree(ROOT / "kvpage", where / "kvpage", ignore=shutil.ignore_patterns("__pycache__"))
        for path, text in edits.items():
            (where / path).write_text(text, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-I", "-c", COMPUTE, str(where)],
            input=json.dumps(requests),
            capture_output=True,
            text=True,
            check=True,
            cwd=where,
        )
    replies = json.loads(done.stdout)
    assert all(reply["ok"] for reply in replies), replies
    return [reply["result"] for reply in replies]
