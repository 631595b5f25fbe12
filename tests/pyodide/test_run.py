"""tests/pyodide/run.mjs: it runs the site's own wheel in Pyodide, refuses any other, and fails when a test fails.

``make pyodide-test`` trusts this runner with the question "does the model pass its tests in the
reader's interpreter?", so the runner itself is tested here, from CPython, on a small project of
two tests (one passes, one fails) run against a freshly built site.
"""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sitegen.runtime.npm import declared_version
from tests.conftest import ROOT, Built, page_configs

RUNNER = ROOT / "tests" / "pyodide" / "run.mjs"
WHEELS = ROOT / ".cache" / "pyodide-wheels"
PINS = json.loads((ROOT / "sitegen" / "runtime" / "pyodide-pins.json").read_text(encoding="utf-8"))

PROBE = """
import importlib
import json
import pkgutil

import kvpage
from kvpage import bridge
from kvpage.catalog import find_labs

# Every module of the wheel, those no lab imports too (the figures drawn at build time, the pictures'
# vocabulary), so that every file the wheel holds is one that ran here.
for module in pkgutil.walk_packages(kvpage.__path__, "kvpage."):
    importlib.import_module(module.name)


def test_the_bridge_answers() -> None:
    request = {"lab": "decode", "action": "start", "args": {"prompt": 16, "tokens": 16, "mode": "kv"}}
    assert json.loads(bridge.handle(json.dumps(request)))["result"]["text"]["recompute_total"] == "256\\u00a0cells"


def test_every_lab_is_found() -> None:
    assert "decode" in find_labs()


def test_this_one_fails() -> None:
    assert 2 + 2 == 5
"""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, "Node.js is needed to run Pyodide"
    assert WHEELS.is_dir(), f"{WHEELS} is missing: run 'make test-deps'"
    command = [node, str(RUNNER), "--wheels", str(WHEELS), *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def site_wheel(site: Path) -> tuple[str, bytes, dict[str, Any]]:
    lock = json.loads((site / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
    name = lock["packages"]["kvpage"]["file_name"]
    return name, (site / "pyodide" / name).read_bytes(), lock["packages"]["kvpage"]


@dataclass(frozen=True)
class Probe:
    result: subprocess.CompletedProcess[str]
    record: dict[str, Any]


@pytest.fixture(scope="module")
def probe(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Probe:
    """One run of the runner on the built site and a project whose tests/kvpage holds PROBE."""
    project = tmp_path_factory.mktemp("probe")
    (project / "tests" / "kvpage").mkdir(parents=True)
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    (project / "tests" / "__init__.py").write_text("", encoding="utf-8")
    (project / "tests" / "kvpage" / "__init__.py").write_text("", encoding="utf-8")
    (project / "tests" / "kvpage" / "test_probe.py").write_text(PROBE, encoding="utf-8")
    record = project / "record.json"
    result = run("--site", built.site, "--project", project, "--record", record)
    assert record.is_file(), f"the runner wrote no record:\n{result.stdout}\n{result.stderr}"
    return Probe(result, json.loads(record.read_text(encoding="utf-8")))


def test_a_failing_test_fails_the_run(probe: Probe) -> None:
    assert probe.result.returncode == 1, probe.result.stdout + probe.result.stderr
    assert probe.record["exit_code"] == 1
    assert "1 failed, 2 passed" in probe.result.stdout
    assert "FAILED tests/kvpage/test_probe.py::test_this_one_fails" in probe.result.stdout


def test_the_tests_ran_in_the_pinned_pyodide(probe: Probe) -> None:
    assert probe.record["platform"] == "emscripten"
    assert probe.record["pyodide"] == declared_version(ROOT, "pyodide")
    assert probe.record["python"].split()[0] == PINS["python"]
    assert f"Python {PINS['python']}, pytest-" in probe.result.stdout


def test_the_wheel_installed_is_the_sites_byte_for_byte(built: Built, probe: Probe) -> None:
    name, data, entry = site_wheel(built.site)
    assert probe.record["wheel"]["file"] == str(built.site / "pyodide" / name)
    assert probe.record["wheel"]["sha256"] == sha256(data) == entry["sha256"]
    # Installed the way the page installs it: by loadPackage, from the lock file's default channel.
    assert probe.record["installer"] == "pyodide.loadPackage"
    assert probe.record["source"] == "pyodide"


def test_every_module_the_tests_ran_is_the_wheels_file(built: Built, probe: Probe) -> None:
    _, data, _ = site_wheel(built.site)
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        members = {name: sha256(wheel.read(name)) for name in wheel.namelist() if name.endswith(".py")}
    purelib = probe.record["purelib"]
    ran = {}
    for module in probe.record["modules"].values():
        assert module["file"].startswith(purelib + "/"), f"{module['file']} is not the installed wheel"
        ran[posixpath.relpath(module["file"], purelib)] = module["sha256"]
    assert ran == members  # the probe imports every module of kvpage


def test_the_lock_the_runner_checks_is_the_one_the_page_loads_with(built: Built) -> None:
    # The page passes the lock embedded in its HTML to loadPyodide; the runner reads pyodide-lock.json.
    lock = json.loads(built.files["pyodide/pyodide-lock.json"])
    configs = [
        config for name, data in built.files.items() if name.endswith(".html") for config in page_configs(data.decode())
    ]
    assert configs
    for config in configs:
        assert config["python"]["lock"] == lock


def test_a_wheel_that_differs_from_the_lock_is_refused(built: Built, tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(built.site, site)
    name, data, entry = site_wheel(site)
    (site / "pyodide" / name).write_bytes(data + b"\0")
    result = run("--site", site)
    assert result.returncode == 2
    assert f"does not match {entry['sha256']}" in result.stderr
    assert "test session starts" not in result.stdout


def test_a_pytest_wheel_not_pinned_is_refused(built: Built, tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    shutil.copytree(WHEELS, wheels)
    pytest_wheel = next(wheels.glob("pytest-*.whl"))
    pytest_wheel.write_bytes(pytest_wheel.read_bytes() + b"\0")
    result = run("--site", built.site, "--wheels", wheels)
    assert result.returncode == 2
    assert f"{pytest_wheel}: sha256" in result.stderr
    assert "is not pinned" in result.stderr
