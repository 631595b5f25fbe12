"""The Jinja2 environment: strict, autoescaped, and loaded from ``site_template/``."""

from __future__ import annotations

from pathlib import Path

import jinja2

from kvpage.labs import next_request


def make_templates(folder: Path) -> jinja2.Environment:
    """Templates from ``folder``; an undefined variable is an error, never blank output."""
    templates = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    templates.globals["max_request_chars"] = next_request.MAX_REQUEST_CHARS
    return templates
