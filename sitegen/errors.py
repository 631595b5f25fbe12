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

    @property
    def where(self) -> str:
        """``path:line`` (``path:line:column``, or ``path`` for the file as a whole)."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return where + (f":{self.column}" if self.line and self.column else "")

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


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


def tallied(warnings: Iterable[ContentError]) -> list[str]:
    """Each distinct warning once, in file and line order, with how many times the build found it.

    A warning found at several places (one link to a missing chapter in every chapter, or twice on
    one line) is one line, at its first place, with the count and the other places:
    ``a.md:3: message (3 times; also at b.md:7)``. So the build prints as many lines as there are
    things to fix, and a new one is not buried under the repeats of an old one.
    """
    by_message: dict[str, list[ContentError]] = {}
    for warning in sorted(warnings):
        by_message.setdefault(warning.message, []).append(warning)
    lines: list[str] = []
    for first, *others in by_message.values():
        if not others:
            lines.append(str(first))
            continue
        places = sorted({other.where for other in others} - {first.where})
        also = f"; also at {', '.join(places)}" if places else ""
        lines.append(f"{first} ({1 + len(others)} times{also})")
    return lines
