"""The command line: ``build`` (the default) and ``serve``, every option explained, and ``kvpage-book``."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from sitegen.cli.arguments import make_parser, parse
from sitegen.cli.commands import options_from, serve_config
from sitegen.serve.watcher import change_kind
from tests.conftest import ROOT

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)]
    return dict(action.choices)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_no_command_means_build() -> None:
    args = parse(["--strict", "--single-file"], ROOT)
    assert (args.command, args.strict, args.single_file) == ("build", True, True)
    assert parse([], ROOT).command == "build"
    assert parse(["serve", "--port", "0"], ROOT).port == 0


def test_help_explains_every_option_of_every_command() -> None:
    result = run("build.py", "--help")
    assert result.returncode == 0, result.stderr
    shown = " ".join(result.stdout.split())
    for name in ("build", "serve"):
        command = commands(make_parser(ROOT))[name]
        for action in command._actions:
            assert action.help, f"{name} {action.option_strings} has no help"
            for option in action.option_strings:
                assert f" {option}" in shown, f"{name} {option} is not in build.py --help"
            assert " ".join(action.help.split()) in shown


KVPAGE_BOOK = Path(sys.executable).with_name("kvpage-book")
"""The generator's command, installed into the virtualenv by make (pyproject.toml's [project.scripts])."""


def test_kvpage_book_is_the_same_command_line() -> None:
    result = subprocess.run([KVPAGE_BOOK, "--help"], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: kvpage-book [-h] COMMAND")
    words = result.stdout.replace("kvpage-book", "build.py").split()
    assert words == run("build.py", "--help").stdout.split()


def test_kvpage_book_builds_a_book_from_anywhere(tmp_path: Path) -> None:
    """Run from another folder: the command finds the project it was installed from, not the current folder's."""
    out, dist = tmp_path / "site", tmp_path / "dist"
    command = [KVPAGE_BOOK, "build", "--content", str(BOOK), "--out", str(out), "--dist", str(dist)]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert {"index.html", "first.html", "second.html"} <= {path.name for path in out.iterdir()}
    assert (dist / "kvpage-site.zip").is_file()


def test_an_unknown_option_is_refused_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        parse(["--fast"], ROOT)
    assert exit_.value.code == 2
    assert "unrecognized arguments: --fast" in capsys.readouterr().err


def test_no_sweep_turns_the_builds_sweep_off_for_build_and_serve() -> None:
    assert options_from(parse(["build"], ROOT)).sweep is True
    assert options_from(parse(["build", "--no-sweep"], ROOT)).sweep is False
    assert options_from(parse(["serve", "--no-sweep"], ROOT)).sweep is False
    assert "--no-sweep" in serve_config(options_from(parse(["serve", "--no-sweep"], ROOT)), 8000).worker


def test_serve_help_says_a_model_edit_swaps_the_wheel_without_a_reload() -> None:
    """``serve --help`` said a model edit reloaded the page (issue 46); serve takes it as a "model" change,
    which the open page swaps into its running Python, and its help says so."""
    config = serve_config(options_from(parse(["serve", "--content", str(BOOK)], ROOT)), 0)
    assert config.model is not None
    assert change_kind([config.model / "costs.py"], config.model) == "model"
    shown = " ".join((commands(make_parser(ROOT))["serve"].description or "").split())
    assert "A change to the model alone does not reload the page" in shown
    assert "reloaded page runs the new Python" not in shown
