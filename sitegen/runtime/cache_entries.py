"""A cache folder's entries: written atomically, the newest few kept.

Both build caches (``sitegen/runtime/cache.py``, ``compiled_stdlib.py``) are folders of files named by the
hash of what they were made from. An entry is written to a temporary file and renamed, so a build that dies
midway leaves no half entry; an entry used or written is dated after every other, and the newest ``keep`` kept.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO


def write_entry(entry: Path, write: Callable[[IO[bytes]], object], keep: int) -> None:
    """Write ``entry`` atomically with ``write(handle)``, then drop all but the newest ``keep``."""
    entry.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=entry.parent, prefix=".entry-", delete=False) as handle:
        write(handle)
    os.replace(handle.name, entry)
    mark_newest(entry)
    entries = sorted(siblings(entry), key=lambda path: path.stat().st_mtime_ns, reverse=True)
    for old in entries[keep:]:
        old.unlink(missing_ok=True)


def mark_newest(entry: Path) -> None:
    """Date ``entry`` now, and after every other entry: two writes within one clock tick get the
    same time, and then which one is "newest" would be a coin toss."""
    others = [path.stat().st_mtime_ns for path in siblings(entry) if path != entry]
    stamp = max([time.time_ns(), *(other + 1 for other in others)])
    os.utime(entry, ns=(stamp, stamp))


def siblings(entry: Path) -> list[Path]:
    """The entries of ``entry``'s folder: its files of the same suffix (temporary files have none)."""
    return list(entry.parent.glob(f"*{entry.suffix}"))
