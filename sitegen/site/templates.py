"""The Jinja2 templates: strict, autoescaped, and loaded from ``site_template/``.

A template that fails (an undefined variable under ``StrictUndefined``, a missing include, a syntax error)
is reported like a content error, at the template file and line where it happened: the innermost frame
of Jinja's traceback that belongs to a template file, not the page that started it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import jinja2

from kvpage.lab import NotInLab
from sitegen.errors import ContentError
from sitegen.memo import folder_digest

MACROS = "labs/controls.html"
"""The labs' shared macros (``Templates.macros``)."""
DEFAULT_LAB = "labs/_default.html"
"""The template of a lab without one of its own (``labs/NAME.html``): ``ui.lab(lab)``, every part of the lab's
declaration in order, so a new lab needs its Python file alone (issue 46). No lab is named with ``_``."""
RENDER_ERRORS = (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, LookupError)
"""What a template's own expressions can raise; anything else is a bug in the build."""


class TemplateFailed(Exception):
    """A template could not render; ``error`` says where and why."""

    def __init__(self, error: ContentError) -> None:
        self.error = error
        super().__init__(str(error))


@dataclass(frozen=True)
class Templates:
    """The Jinja2 environment and the folder it reads, for messages that name files."""

    folder: Path
    environment: jinja2.Environment
    macros: frozenset[str] = frozenset()
    """Templates of macros every lab calls (``site_template/labs/controls.html``): an error inside one
    (``ui.control(lab, "tokenz")``, a control the lab lacks) is the caller's, so it is reported at the
    line that called the macro, in the lab's own template, not at the macro's line."""
    key: str = ""
    """The digest of every file under ``folder`` (``sitegen.memo.folder_digest``): in serve's keys."""

    def render(self, name: str | Sequence[str], **context: object) -> str:
        """Render template ``name`` (or the first of several that exists); raise TemplateFailed naming the
        failing template line."""
        try:
            return self.environment.get_or_select_template(name if isinstance(name, str) else list(name)).render(
                **context
            )
        except RENDER_ERRORS as error:
            raise TemplateFailed(self.problem(name if isinstance(name, str) else name[0], error)) from None

    def file_name(self, filename: str) -> str:
        """``site_template/labs/decode.html``: a template file as messages show it."""
        return (self.folder.name / Path(filename).resolve().relative_to(self.folder)).as_posix()

    def problem(self, name: str, error: Exception) -> ContentError:
        """Where ``error`` happened (file and line) and what it says."""
        if isinstance(error, jinja2.TemplateSyntaxError) and error.filename:
            return ContentError(self.file_name(error.filename), error.lineno, error.message or "syntax error")
        path, line = f"{self.folder.name}/{name}", 0
        inside = [
            (self.file_name(filename), lineno)
            for filename, lineno in frames(error.__traceback__)
            if Path(filename).resolve().is_relative_to(self.folder)
        ]
        callers = [(shown, lineno) for shown, lineno in inside if shown not in self.macros]
        if callers or inside:
            path, line = (callers or inside)[-1]
        if isinstance(error, jinja2.TemplateNotFound):
            message = f"no template {error.name!r} in {self.folder.name}/"
        elif isinstance(error, jinja2.UndefinedError | NotInLab):
            message = str(error)
        else:
            message = f"{type(error).__name__}: {error}"
        return ContentError(path, line, message)


def frames(trace: TracebackType | None) -> list[tuple[str, int]]:
    """(file, line) of every frame of a traceback, outermost first."""
    found: list[tuple[str, int]] = []
    while trace is not None:
        found.append((trace.tb_frame.f_code.co_filename, trace.tb_lineno))
        trace = trace.tb_next
    return found


def make_templates(folder: Path, key: str | None = None) -> Templates:
    """Templates from ``folder``; an undefined variable is an error, never blank output. ``key``: the
    digest of its files (``sitegen.memo.folder_digest``), if known already."""
    folder = folder.resolve()
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    key = folder_digest(folder) if key is None else key
    return Templates(folder, environment, frozenset({f"{folder.name}/{MACROS}"}), key)
