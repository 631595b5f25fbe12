"""What ``serve``'s warm worker keeps between its builds: each pure step's last result, by its inputs.

A step is given all it reads as its key; a later build whose key is equal gets the kept result, so a
rebuild is the full build's code with work skipped, never a second path to keep in step (decision 0064).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class Memo:
    """The last result of each step (``slot``: a chapter's render, a page, a formula), with its key.

    Keys are compared with ``==``, never hashed, so no two inputs share a result by a collision; one
    result is kept a slot, so a book's memo holds one build's worth. A kept result is shared between
    builds, so a step's result must never be changed by whoever reads it.
    """

    def __init__(self, active: bool = True) -> None:
        self.active = active
        self.kept: dict[Hashable, tuple[Any, Any]] = {}
        self.used: set[Hashable] = set()

    def get(self, slot: Hashable, key: object, compute: Callable[[], T]) -> T:
        """The result kept at ``slot`` if its key equals ``key``; else ``compute()``, then kept."""
        if not self.active:
            return compute()
        self.used.add(slot)
        found = self.kept.get(slot)
        if found is not None and found[0] == key:
            result: T = found[1]
            return result
        value = compute()
        self.kept[slot] = (key, value)
        return value

    def has(self, slot: Hashable, key: object) -> bool:
        found = self.kept.get(slot) if self.active else None
        return found is not None and found[0] == key

    def forget_unused(self) -> None:
        """Drop what the last build did not ask for (a chapter removed, a formula edited away)."""
        self.kept = {slot: entry for slot, entry in self.kept.items() if slot in self.used}
        self.used = set()


NO_MEMO = Memo(active=False)
"""The published build's: every step computed, nothing kept."""


def digest(parts: Iterable[str | bytes]) -> str:
    """One sha256 of ``parts`` in order, each length-prefixed so no two lists of parts run together."""
    hashed = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        hashed.update(len(data).to_bytes(8, "little"))
        hashed.update(data)
    return hashed.hexdigest()


def folder_digest(folder: Path) -> str:
    """Every file under ``folder`` (names and bytes): a template or static file edited, added or removed
    changes it."""
    files = sorted(path for path in folder.rglob("*") if path.is_file()) if folder.is_dir() else []
    return digest(part for path in files for part in (path.relative_to(folder).as_posix(), path.read_bytes()))
