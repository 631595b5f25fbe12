"""make check's dead-code step: vulture, and tests/vulture_whitelist.py, the names it cannot see used.

The list must not outlive its reasons: a name on it that vulture would not report anyway (it became
used in Python, or was deleted) is one a later dead function of the same name would hide behind. So
every listed name is one vulture reports without the list, and with it vulture reports nothing.
The command is the Makefile's own.
"""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

WHITELIST = "tests/vulture_whitelist.py"
REPORTED = re.compile(r"^\S+:\d+: unused \w+ '(\w+)' \(\d+% confidence\)$", re.M)


def makefile_vulture() -> list[str]:
    """make check's vulture command, as words, with the virtualenv's vulture."""
    (line,) = [line for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines() if "/bin/vulture " in line]
    words = shlex.split(line.strip())
    return [str(Path(sys.executable).with_name("vulture")), *words[1:]]


def vulture(words: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(words, cwd=ROOT, capture_output=True, text=True, check=False)


def test_with_the_list_vulture_reports_nothing_and_each_listed_name_is_one_it_would_report() -> None:
    command = makefile_vulture()
    assert WHITELIST in command
    done = vulture(command)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr
    without = vulture([word for word in command if word != WHITELIST])
    reported = set(REPORTED.findall(without.stdout))
    tree = ast.parse((ROOT / WHITELIST).read_text(encoding="utf-8"))
    listed = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert listed and listed - reported == set(), f"listed, yet used where vulture sees it: {listed - reported}"
