#!/usr/bin/env python3
"""Debian's Chromium, with its repeated feature switches merged: what the e2e tests launch.

Chromium keeps only the last ``--disable-features`` (and ``--enable-features``) it is given.
Playwright passes its own list first (features that would reach the network or change paint
timing under test), and the tests add theirs after it (``tests/e2e/conftest.py``); passed as
they are, ours would silently replace Playwright's. This merges every occurrence into one switch,
in order, and then becomes ``/usr/bin/chromium`` (``exec``: Playwright talks to Chromium itself).
"""

from __future__ import annotations

import os
import sys

CHROMIUM = "/usr/bin/chromium"
FEATURE_SWITCHES = ("--enable-features=", "--disable-features=")


def merged(args: list[str]) -> list[str]:
    """``args`` with each feature switch once, where it first appeared, naming every feature any
    occurrence named (first mention first)."""
    names: dict[str, list[str]] = {}
    kept: list[str] = []
    for arg in args:
        switch = next((prefix for prefix in FEATURE_SWITCHES if arg.startswith(prefix)), None)
        if switch is None:
            kept.append(arg)
            continue
        if switch not in names:
            names[switch] = []
            kept.append(switch)
        names[switch] += [name for name in arg.removeprefix(switch).split(",") if name and name not in names[switch]]
    return [arg + ",".join(names[arg]) if arg in names else arg for arg in kept]


if __name__ == "__main__":
    os.execv(CHROMIUM, [CHROMIUM, *merged(sys.argv[1:])])
