"""The GitHub Pages workflow builds with the README's command and publishes what the tests check.

GitHub runs it, not this suite; so these tests hold it to the rest of the project:
the official actions only (pinned to a major version), the permissions Pages
needs, the Makefile's own build with flags that build.py accepts (the zip
published and linked), and the folder that build writes. The workflow is read as
YAML (PyYAML, which the generator already requires), not matched line by line.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import yaml

from sitegen.cli.arguments import parse
from tests.conftest import ROOT

WORKFLOW: dict[str, Any] = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = [step for job in WORKFLOW["jobs"].values() for step in job["steps"]]
"""Every step of every job, in order."""
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def test_it_uses_the_official_actions_pinned_to_a_major_version() -> None:
    assert sorted(step["uses"] for step in STEPS if "uses" in step) == [
        "actions/checkout@v4",
        "actions/deploy-pages@v4",
        "actions/setup-node@v4",
        "actions/setup-python@v5",
        "actions/upload-pages-artifact@v3",
    ]


def test_it_has_the_permissions_pages_needs_and_one_deployment_at_a_time() -> None:
    assert WORKFLOW["permissions"].items() >= {"pages": "write", "id-token": "write"}.items()
    assert WORKFLOW["concurrency"]["group"] == "pages"


def test_it_builds_with_the_makefile_and_publishes_the_zip_with_the_site() -> None:
    (command,) = [step["run"] for step in STEPS if step.get("run", "").startswith("make site")]
    words = shlex.split(command)
    assert words[:2] == ["make", "site"]
    (flags,) = [word.removeprefix("BUILD_FLAGS=") for word in words[2:] if word.startswith("BUILD_FLAGS=")]
    site_rule = re.search(r"^site: deps\n\t(.+)$", MAKEFILE, re.M)
    assert site_rule and site_rule.group(1).startswith("$(PY) build.py ") and "$(BUILD_FLAGS)" in site_rule.group(1)
    build_args = shlex.split(site_rule.group(1).removeprefix("$(PY) build.py ").replace("$(BUILD_FLAGS)", flags))
    args = parse(build_args, ROOT)
    assert (args.command, args.publish_zip) == ("build", True)
    (upload,) = [step for step in STEPS if step.get("uses") == "actions/upload-pages-artifact@v3"]
    assert ROOT / upload["with"]["path"] == args.out
