"""A failing model's frames, as reader.py names them: the disclosure's paths, whatever the model was imported from.

In the page, the modules a reader did not edit are imported from the installed wheel, whose files
Pyodide names ``…/kvpage/kvpage-0.1.0-py3-none-any.whl/kvpage/labs/decode.py``; the disclosure names
that file ``kvpage/labs/decode.py``, and so must the error. Here the same: reader.py in a CPython
of its own (no site-packages, ``-S``) that imports kvpage from a wheel-named zip in a folder
called ``kvpage``, with the reader's costs.py raising in the rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.reader_model import BOOK_COSTS, COSTS, DECODE_ROW, ROOT
from tests.sitegen.test_reader import DRIVER, READER

FAILING = BOOK_COSTS.replace(DECODE_ROW, "raise ValueError('a rule that fails')")


def test_frames_from_the_wheel_are_named_as_the_disclosure_names_the_files(tmp_path: Path) -> None:
    wheel = tmp_path / "kvpage" / "kvpage-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir()
    with zipfile.ZipFile(wheel, "w") as packed:
        for file in sorted((ROOT / "kvpage").rglob("*.py")):
            packed.write(file, file.relative_to(ROOT).as_posix())
    request = {
        "lab": "decode",
        "action": "resume",
        "args": {"prompt": 16, "tokens": 16, "mode": "kv", "state": {"steps": 2}},
    }
    labs = [{"request": json.dumps(request), "texts": [], "parts": []}]
    done = subprocess.run(
        [sys.executable, "-S", "-c", f"import sys; sys.path.insert(0, {str(wheel)!r})\n{DRIVER}", str(READER)],
        input=json.dumps([[{COSTS: FAILING}, labs]]),
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    (answer,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert answer["ok"] is False and "a rule that fails" in answer["error"]
    paths = [frame.split(", line ")[0] for frame in answer["frames"]]
    assert paths[0] == "kvpage/labs/decode.py" and paths[-1] == COSTS, paths
    assert all((ROOT / path).is_file() for path in paths), paths  # each a file of the model, as the disclosure names it
