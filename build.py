#!/usr/bin/env python3
"""``python build.py``: the book's command line from a checkout, as the design card has it.

The same as ``kvpage-book`` (installed by ``make``): both run :func:`sitegen.cli.entry.main`.
The build itself is :mod:`sitegen.pipeline`. Nothing imports this file: it is only run.
"""

from __future__ import annotations

import sys

from sitegen.cli.entry import main

if __name__ == "__main__":
    sys.exit(main())
