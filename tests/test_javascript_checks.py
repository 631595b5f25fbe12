"""A check on ``make check``'s JavaScript half (tsc and ESLint over the page's modules): each refuses
the mistake it is there for (a name nothing declares, a message field the
protocol does not have, a function over 60 lines).

The mutations are made to copies (tsc) or given on stdin under the file's own name (ESLint), so
the checks read them with the project's own configuration (``tsconfig.json``, ``eslint.config.mjs``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

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


MUTATIONS = [
    # The page sends a field the call message does not have (and not the one it has).
    (
        "python.js",
        'type: "call", id: this.next, request }',
        'type: "call", id: this.next, requst: request }',
        "'requst'",
    ),
    # The worker reads a field the call message does not have.
    ("python-worker.js", "async call({ id, request })", "async call({ id, requst: request })", "'requst'"),
    # The page reads a field a reply does not have.
    ("python.js", "message.reply, message.dead)", "message.replied, message.dead)", "'replied' does not exist"),
]
"""(module, text, its mistake, what tsc must say at the mistake's line)."""


def test_tsc_refuses_each_message_field_the_protocol_does_not_have_at_its_line(tmp_path: Path) -> None:
    """Every mutation in one copy and one tsc run (a run takes seconds): each must be reported at its
    own file and line, so no mutation passes on another's error. That the modules as they are pass
    tsc and ESLint is ``make check``'s, which ``make test`` runs before pytest."""
    folder = tmp_path / "kvpage"
    shutil.copytree(MODULES, folder)
    expected = []
    for name, old, new, error in MUTATIONS:
        text = (folder / name).read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{name}: {old!r} is not there once"
        line = text[: text.index(old)].count("\n") + 1
        (folder / name).write_text(text.replace(old, new), encoding="utf-8")
        expected.append((name, line, error))
    done = tsc(folder)
    assert done.returncode != 0
    reported = done.stdout.splitlines()
    for name, line, error in expected:
        assert any(f"kvpage/{name}({line}," in report and error in report for report in reported), (
            name,
            line,
            error,
            done.stdout,
        )


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
