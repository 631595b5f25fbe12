"""Firefox and WebKit suites: the built book three ways, a page that must fail the audit, the verdict.

Each suite starts one browser for the session and performs ``flows.py``'s steps for every way of
opening the book a reader has: served over http on 127.0.0.1 at a free port, the unzipped zip via
file://, and the single file via file://. The audit fails a page on any console error, uncaught
error, failed load, unhandled rejection, CSP violation, failed request or request leaving the site.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.browser_fixtures import DOCUMENTS, WAYS, Where, book_fixtures, serve, way_of
from tests.conftest import Built


@dataclass
class Outcome:
    """What a browser reported after performing a flow."""

    error: str | None
    problems: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def verdict(self) -> str:
        """Empty when the flow passed with a clean audit, else everything that went wrong."""
        lines = [f"flow failed: {self.error}"] if self.error else []
        if not self.requests:
            lines.append("the page made no requests at all: was it opened?")
        return "\n".join([*lines, *self.problems])


@pytest.fixture(params=WAYS)
def where(request: pytest.FixtureRequest, built: Built) -> Where:
    """The chapter served over http, opened from the unzipped zip, or the single-file book."""
    return way_of(request, built, "cache.html", "http_site", "unzipped_site")


runaway_http_site, runaway_unzipped_site = book_fixtures("runaway_built", "runaway_http_site", "runaway_unzipped_site")


@pytest.fixture(params=WAYS)
def runaway_where(request: pytest.FixtureRequest, runaway_built: Built) -> Where:
    """The runaway book's chapter (tests/books/runaway/) the three ways."""
    return way_of(request, runaway_built, "runaway.html", "runaway_http_site", "runaway_unzipped_site")


@pytest.fixture(params=DOCUMENTS)
def kitchen_sink_where(request: pytest.FixtureRequest, kitchen_sink: Built) -> Where:
    """The kitchen-sink chapter served over http, or the kitchen-sink book's single file."""
    return way_of(request, kitchen_sink, "kitchen-sink.html", "kitchen_sink_server", "kitchen_sink_unzipped")


CONTROL_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src 'self' {outside}">
<title>audit control</title></head>
<body><p>A page that does everything the audit must catch.</p>
<math><mfrac><mi>x</mi></mfrac></math>
<script>window.inlineRan = true;</script>
<img src="{outside}pixel.png" alt="">
<script src="control.js"></script>
</body></html>
"""

CONTROL_JS = """console.error("control: console.error");
Promise.reject(new Error("control: rejected"));
setTimeout(() => {
  document.documentElement.dataset.python = "ready";
  throw new Error("control: uncaught");
});
"""

CONTROL_CAUGHT = {
    "a CSP violation": "CSP violation: script-src",
    "a console error": "control: console.error",
    "an unhandled rejection": "control: rejected",
    "an uncaught error": "control: uncaught",
    "a request leaving the site": "request outside the site: ",
}
"""What the audit must report for the control page, each as a fragment of a problem line."""


@pytest.fixture(scope="session")
def control_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Where]:
    """A page of our own that breaks every rule: the audit must fail it (a positive control)."""
    outside_root = tmp_path_factory.mktemp("outside")
    (outside_root / "pixel.png").write_bytes(b"")
    for outside in serve(outside_root):
        root = tmp_path_factory.mktemp("control")
        (root / "index.html").write_text(CONTROL_HTML.format(outside=outside.base), encoding="utf-8")
        (root / "control.js").write_text(CONTROL_JS, encoding="utf-8")
        for server in serve(root):
            yield Where(server.base + "index.html", server.base)


def missed_by(outcome: Outcome) -> list[str]:
    """What the audit failed to report on the control page."""
    return [what for what, fragment in CONTROL_CAUGHT.items() if not any(fragment in p for p in outcome.problems)]
