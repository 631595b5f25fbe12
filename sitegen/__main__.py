"""``python -m sitegen``: the book's command line (:func:`sitegen.commands.main`), as ``kvpage-book``."""

from __future__ import annotations

import sys

from sitegen.commands import main

sys.exit(main(prog="kvpage-book"))
