"""Content errors that point at the line an author has to fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class ContentError:
    """``path:line: message``, the way compilers and Zola report.

    ``line`` is 1-based; 0 means the file as a whole (one that is missing, say),
    shown as ``path: message``. ``column``, when known (a syntax error in the model), is
    1-based too: ``path:line:column: message``. Errors sort by path, then line, then message.
    """

    path: str
    line: int
    message: str
    column: int = 0

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        where += f":{self.column}" if self.line and self.column else ""
        return f"{where}: {self.message}"


class BuildError(Exception):
    """The build stopped; every problem found is in ``errors``.

    ``warnings`` are what the run found besides, so that a failed build still
    shows them (a successful one prints them itself).
    """

    def __init__(self, errors: Iterable[ContentError | str], warnings: Iterable[ContentError] = ()) -> None:
        self.errors = tuple(errors)
        self.warnings = tuple(warnings)
        super().__init__("\n".join(str(error) for error in self.errors))


def sorted_unique(errors: Iterable[ContentError]) -> list[ContentError]:
    """Each error once, in file and line order (a template bug repeats for every page)."""
    return sorted(set(errors))
