"""The Python side of a reader's Run (``site_template/static/kvpage/reader.py``), run in CPython.

The page's worker runs the same text in Pyodide (tests/e2e/test_reader.py drives it there), once
in each fresh Python (the page makes one for every Run); here each call runs in a Python process of
its own likewise, as the function installs the reader's model (and puts a finder on
``sys.meta_path``), which neither the next call nor this test process may inherit.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from kvpage.labs import square
from tests.reader_model import BOOK_COSTS, CAUSAL, COSTS, ROOT, SQUARE

FUTURE = "from __future__ import annotations\n"
JSONVALUE = "kvpage/jsonvalue.py"

READER = Path(__file__).resolve().parents[2] / "site_template" / "static" / "kvpage" / "reader.py"
DRIVER = """
import json, sys
sys.path.insert(0, sys.argv[2])
namespace = {}
reader = eval(compile(open(sys.argv[1], encoding="utf-8").read(), "reader.py", "exec"), namespace)
reader = namespace["kvpage_reader"]
sources, labs = json.load(sys.stdin)
print(reader(json.dumps(sources), json.dumps(labs)))
"""


def square_lab(tokens: int = 16) -> dict[str, Any]:
    request = {"lab": "square", "action": square.LAB.update, "args": {"tokens": tokens}}
    return {"request": json.dumps(request), "texts": ["cells", "tokens"], "parts": []}


@functools.cache
def wheel() -> Path:
    """The model as the page's Python imports it: ``kvpage/`` zipped, at a path like the worker's
    (``/lib/kvpage/kvpage-VERSION-py3-none-any.whl``), so its frames carry a wheel's path as there."""
    folder = Path(tempfile.mkdtemp(prefix="kvpage-reader-")) / "lib" / "kvpage"
    folder.mkdir(parents=True)
    made = folder / "kvpage-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(made, "w") as archive:
        for source in sorted((ROOT / "kvpage").rglob("*.py")):
            archive.write(source, source.relative_to(ROOT).as_posix())
    return made


def runs(*calls: tuple[dict[str, str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """reader.py's answers to ``calls`` (sources, labs), each in a fresh Python (``-I -S``: kvpage only
    from :func:`wheel`), as the page runs them."""
    answers = []
    for call in calls:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", DRIVER, str(READER), str(wheel())],
            input=json.dumps(call),
            capture_output=True,
            text=True,
            check=True,
        )
        (line,) = done.stdout.splitlines()
        answers.append(json.loads(line))
    return answers


def cells(answer: dict[str, Any]) -> str:
    return str(json.loads(answer["replies"][0])["result"]["text"]["cells"])


def test_run_answers_with_the_edited_model_and_the_book_comes_back() -> None:
    book, mine, back = runs(({}, [square_lab()]), ({COSTS: CAUSAL}, [square_lab()]), ({}, [square_lab()]))
    assert cells(book) == square.compute({"tokens": 16})["text"]["cells"]  # type: ignore[index]
    assert cells(mine) != cells(book)
    assert cells(back) == cells(book)


def test_a_syntax_error_answers_its_line_and_column() -> None:
    broken = BOOK_COSTS.replace("def prefill_cost(", "def prefill_cost(:")
    line = next(number for number, text in enumerate(broken.splitlines(), 1) if "prefill_cost(:" in text)
    (failed,) = runs(({COSTS: broken}, [square_lab()]))
    assert failed["ok"] is False
    assert (failed["path"], failed["line"], failed["text"]) == (COSTS, line, broken.splitlines()[line - 1])
    assert failed["error"].startswith(f"{COSTS}:{line}:{failed['col']}: SyntaxError")
    assert broken.splitlines()[line - 1][failed["col"] - 1] == ":"


def test_an_exception_shows_the_models_frames_only_named_as_the_disclosure_names_them() -> None:
    """The wheel's own files (square.py here) named from ``kvpage/`` as the disclosure does, never
    the wheel's path; no frame of the bridge's, reader.py's or the standard library's."""
    (failed,) = runs(({COSTS: BOOK_COSTS.replace(SQUARE, "return 1 // 0")}, [square_lab()]))
    assert "ZeroDivisionError" in failed["error"]
    files = [frame.split(",")[0] for frame in failed["frames"]]
    assert files[0] == "kvpage/labs/square.py" and set(files[1:]) == {COSTS}, files
    assert "return 1 // 0" in failed["frames"][-1]


@pytest.mark.parametrize(
    ("statement", "named"),
    [("import sys; sys.exit()", "SystemExit"), ("raise KeyboardInterrupt", "KeyboardInterrupt")],
)
def test_an_exit_or_an_interrupt_is_a_failure_with_the_models_frames(statement: str, named: str) -> None:
    """Not an exception (BaseException only): still an answer, as any failure, in a lab and at import
    (of jsonvalue.py, which the bridge imports)."""
    in_a_lab, at_import = runs(
        ({COSTS: BOOK_COSTS.replace(SQUARE, statement)}, [square_lab()]),
        ({JSONVALUE: (ROOT / JSONVALUE).read_text(encoding="utf-8").replace(FUTURE, f"{FUTURE}{statement}\n")}, []),
    )
    assert in_a_lab["ok"] is False and in_a_lab["error"] == f"lab 'square': the model failed: {named}"
    files = [frame.split(",")[0] for frame in in_a_lab["frames"]]
    assert files[0] == "kvpage/labs/square.py" and set(files[1:]) == {COSTS}, files
    assert at_import["ok"] is False and at_import["error"] == f"your model does not import: {named}"
    assert all(frame.startswith("kvpage/") and ".whl" not in frame for frame in at_import["frames"])


def test_a_patched_json_cannot_change_readers_answer() -> None:
    """The reader's model may replace json.dumps (the bridge answers with it): reader.py answers with
    its own, taken before the reader's code ran, and says what the model answered."""
    patched = BOOK_COSTS.replace(FUTURE, f"{FUTURE}import json\njson.dumps = lambda *args, **kwargs: '{{}}'\n")
    (answer,) = runs(({COSTS: patched}, [square_lab()]))
    assert answer == {"ok": False, "error": "lab 'square': the model answered '{}'"}


def test_a_view_that_lacks_an_output_or_is_not_json_says_so() -> None:
    lacking = {**square_lab(), "texts": ["cells", "tokens", "missing"]}
    lab = "kvpage/labs/square.py"
    view = '"cells": count(prefill_cost(tokens))'
    source = (ROOT / lab).read_text(encoding="utf-8")
    nan, a_set = (source.replace(view, f'"cells": {value}') for value in ("float('nan')", "{tokens}"))
    assert nan != source
    without, not_json, a_set_answer = runs(
        ({}, [lacking]), ({lab: nan}, [square_lab()]), ({lab: a_set}, [square_lab()])
    )
    assert without["ok"] is False and without["error"].endswith("the view lacks text 'missing'")  # no advice
    assert not_json["ok"] is False and "returned NaN" in not_json["error"]
    assert a_set_answer["ok"] is False and "not JSON serializable" in a_set_answer["error"]


def test_only_model_files_within_the_cap_are_taken() -> None:
    big, bridge = runs(({COSTS: "#" * 100_001}, []), ({"kvpage/bridge.py": "x = 1\n"}, []))
    assert big["ok"] is False and "at most 100,000" in big["error"]
    assert bridge["ok"] is False and "not a file of the model" in bridge["error"]
