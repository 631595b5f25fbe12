"""``python -m sitegen``: the book's command line (:func:`sitegen.cli.entry.main`), as ``kvpage-book``."""

from __future__ import annotations

import sys

from sitegen.cli.entry import main

sys.exit(main(prog="kvpage-book"))
