"""Content errors that point at the line an author has to fix."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class ContentError:
    """``path:line: message``, the way compilers and Zola report."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class BuildError(Exception):
    """The build stopped; every problem found so far is in ``errors``."""

    def __init__(self, errors: Iterable[ContentError | str]) -> None:
        self.errors = tuple(errors)
        super().__init__("\n".join(str(error) for error in self.errors))
