"""The Python side of a reader's Run (``site_template/static/kvpage/reader.py``), run in CPython.

The page's worker runs the same text in Pyodide (tests/e2e/test_reader.py drives it there); here
each case runs in a Python process of its own, as the function keeps the model it installed for
the next call (and puts a finder on ``sys.meta_path``), which this test process must not inherit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from kvpage.labs import square
from tests.reader_model import BOOK_COSTS, CAUSAL, COSTS, ROOT, SQUARE

READER = Path(__file__).resolve().parents[2] / "site_template" / "static" / "kvpage" / "reader.py"
DRIVER = """
import json, sys
namespace = {}
reader = eval(compile(open(sys.argv[1], encoding="utf-8").read(), "reader.py", "exec"), namespace)
reader = namespace["kvpage_reader"]
for sources, labs in json.load(sys.stdin):
    print(reader(json.dumps(sources), json.dumps(labs)))
"""


def square_lab(tokens: int = 16) -> dict[str, Any]:
    request = {"lab": "square", "action": square.LAB.update, "args": {"tokens": tokens}}
    return {"request": json.dumps(request), "texts": ["cells", "tokens"], "parts": []}


def runs(*calls: tuple[dict[str, str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """reader.py's answers to ``calls`` (sources, labs), one after another in one fresh Python."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(READER)],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def cells(answer: dict[str, Any]) -> str:
    return str(json.loads(answer["replies"][0])["result"]["text"]["cells"])


def test_run_answers_with_the_edited_model_and_the_book_comes_back() -> None:
    book, mine, back = runs(({}, [square_lab()]), ({COSTS: CAUSAL}, [square_lab()]), ({}, [square_lab()]))
    assert cells(book) == square.compute({"tokens": 16})["text"]["cells"]  # type: ignore[index]
    assert cells(mine) != cells(book)
    assert cells(back) == cells(book)


def test_a_syntax_error_answers_its_line_and_column_and_the_last_good_model_stays() -> None:
    broken = BOOK_COSTS.replace("def prefill_cost(", "def prefill_cost(:")
    line = next(number for number, text in enumerate(broken.splitlines(), 1) if "prefill_cost(:" in text)
    _, failed, after = runs(
        ({COSTS: CAUSAL}, [square_lab()]), ({COSTS: broken}, [square_lab()]), ({COSTS: CAUSAL}, [square_lab()])
    )
    assert failed["ok"] is False
    assert (failed["path"], failed["line"], failed["text"]) == (COSTS, line, broken.splitlines()[line - 1])
    assert failed["error"].startswith(f"{COSTS}:{line}:{failed['col']}: SyntaxError")
    assert broken.splitlines()[line - 1][failed["col"] - 1] == ":"
    assert after["ok"] is True


def test_an_exception_shows_the_models_frames_only_and_the_last_good_model_answers() -> None:
    raising = BOOK_COSTS.replace(SQUARE, "return 1 // 0")
    mine, failed, still = runs(
        ({COSTS: CAUSAL}, [square_lab()]), ({COSTS: raising}, [square_lab()]), ({COSTS: CAUSAL}, [])
    )
    assert "ZeroDivisionError" in failed["error"]
    assert failed["frames"] and all(frame.startswith("kvpage/") for frame in failed["frames"])
    assert not any("bridge.py" in frame for frame in failed["frames"])
    assert f"{COSTS}, line" in failed["frames"][-1] and "return 1 // 0" in failed["frames"][-1]
    assert still["ok"] is True and mine["ok"] is True


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
