"""A check on ``make check``'s JavaScript half: tsc and ESLint pass the page's modules as they are,
and each refuses the mistake it is there for (a name nothing declares, a message field the
protocol does not have, a function over 60 lines).

The mutations are made to copies (tsc) or given on stdin under the file's own name (ESLint), so
the checks read them with the project's own configuration (``tsconfig.json``, ``eslint.config.mjs``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

MODULES = ROOT / "site_template" / "static" / "kvpage"
TSC = ROOT / "node_modules" / ".bin" / "tsc"
ESLINT = ROOT / "node_modules" / ".bin" / "eslint"


def tsc(folder: Path) -> subprocess.CompletedProcess[str]:
    """tsc over the modules in ``folder``, with the project's compiler options."""
    config = folder.parent / "tsconfig.json"
    config.write_text(
        json.dumps(
            {"extends": str(ROOT / "tsconfig.json"), "include": [f"{folder.name}/*.js", f"{folder.name}/*.d.ts"]}
        ),
        encoding="utf-8",
    )
    return subprocess.run([str(TSC), "-p", str(config)], capture_output=True, text=True, check=False)


def eslint(name: str, text: str) -> list[tuple[str, str]]:
    """ESLint over ``text`` as if it were the module ``name`` of the page: (rule, message) of each problem."""
    path = MODULES.relative_to(ROOT) / name
    done = subprocess.run(
        [str(ESLINT), "--format", "json", "--stdin", "--stdin-filename", str(path)],
        input=text,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return [(problem["ruleId"], problem["message"]) for file in json.loads(done.stdout) for problem in file["messages"]]


def mutated(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the modules with ``old`` replaced by ``new`` (once) in ``name``."""
    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    text = (folder / name).read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{name}: {old!r} is not there once"
    (folder / name).write_text(text.replace(old, new), encoding="utf-8")
    return folder


def test_the_modules_pass_both_checks(tmp_path: Path) -> None:
    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    done = tsc(folder)
    assert done.returncode == 0, done.stdout
    for path in sorted(MODULES.glob("*.js")):
        assert eslint(path.name, path.read_text(encoding="utf-8")) == [], path.name


@pytest.mark.parametrize(
    ("name", "old", "new", "error"),
    [
        # The page sends a field the call message does not have (and not the one it has).
        (
            "python.js",
            'type: "call", id: this.next, request }',
            'type: "call", id: this.next, requst: request }',
            "'requst' does not exist",
        ),
        # The worker reads a field the call message does not have.
        ("worker.js", "async call({ id, request })", "async call({ id, requst: request })", "'requst' does not exist"),
        # The page reads a field a reply does not have.
        ("python.js", "message.reply)", "message.replied)", "'replied' does not exist"),
    ],
)
def test_tsc_refuses_a_message_field_the_protocol_does_not_have(
    tmp_path: Path, name: str, old: str, new: str, error: str
) -> None:
    done = tsc(mutated(tmp_path, name, old, new))
    assert done.returncode != 0
    assert error in done.stdout


def test_eslint_refuses_an_undeclared_name_a_shadowed_one_and_a_long_function() -> None:
    text = (MODULES / "progress.js").read_text(encoding="utf-8")
    undeclared = eslint("progress.js", text.replace("if (settled) return;", "if (setled) return;"))
    assert ("no-undef", "'setled' is not defined.") in undeclared
    shadowed = eslint("progress.js", text.replace("export function say(text) {", "export function say(settled) {"))
    assert any(
        rule == "no-shadow" and message.startswith("'settled' is already declared") for rule, message in shadowed
    )
    body = "".join(f"  say({n});\n" for n in range(60))
    long = eslint("progress.js", f"{text}\nexport function long() {{\n{body}}}\n")
    assert long == [("max-lines-per-function", "Function 'long' has too many lines (62). Maximum allowed is 60.")]
