"""The GitHub Pages workflow builds with the README's command and publishes what the tests check.

GitHub runs it, not this suite; so these tests hold it to the rest of the project:
the official actions only (pinned to a major version), the permissions Pages
needs, the Makefile's own build with flags that build.py accepts (the zip
published and linked), and the folder that build writes.
"""

from __future__ import annotations

import re
import shlex

from sitegen.cli.arguments import parse
from tests.conftest import ROOT

WORKFLOW = (ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def test_it_uses_the_official_actions_pinned_to_a_major_version() -> None:
    uses = re.findall(r"^\s*(?:- )?uses: (\S+)$", WORKFLOW, re.M)
    assert sorted(uses) == [
        "actions/checkout@v4",
        "actions/deploy-pages@v4",
        "actions/setup-node@v4",
        "actions/setup-python@v5",
        "actions/upload-pages-artifact@v3",
    ]


def test_it_has_the_permissions_pages_needs_and_one_deployment_at_a_time() -> None:
    permissions = re.search(r"^permissions:\n((?:  .+\n)+)", WORKFLOW, re.M)
    assert permissions
    assert set(permissions.group(1).split("\n")) >= {"  pages: write", "  id-token: write"}
    assert re.search(r"^concurrency:\n  group: pages\n", WORKFLOW, re.M)


def test_it_builds_with_the_makefile_and_publishes_the_zip_with_the_site() -> None:
    (command,) = re.findall(r"^\s*run: (make site.*)$", WORKFLOW, re.M)
    words = shlex.split(command)
    assert words[:2] == ["make", "site"]
    (flags,) = [word.removeprefix("BUILD_FLAGS=") for word in words[2:] if word.startswith("BUILD_FLAGS=")]
    site_rule = re.search(r"^site: deps\n\t(.+)$", MAKEFILE, re.M)
    assert site_rule and site_rule.group(1).startswith("$(PY) build.py ") and "$(BUILD_FLAGS)" in site_rule.group(1)
    build_args = shlex.split(site_rule.group(1).removeprefix("$(PY) build.py ").replace("$(BUILD_FLAGS)", flags))
    args = parse(build_args, ROOT)
    assert (args.command, args.publish_zip) == ("build", True)
    upload = re.search(r"uses: actions/upload-pages-artifact@v3\n\s+with:\n\s+path: (\S+)\n", WORKFLOW)
    assert upload and ROOT / upload.group(1) == args.out
