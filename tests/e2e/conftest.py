"""Browser fixtures: Debian's Chromium, the built site over http and from disk, a network audit.

Every page handed to a test is audited: each request is recorded, and the test
fails on a request that leaves the site, a request that fails, a console error
or an uncaught page error. A site that works only because it reached the
network, or that logs errors while showing the right numbers, does not pass.
"""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, Request, expect

from tests.browser_fixtures import WAYS, QuietHandler, Server, Where, opened_way, serve, way_of
from tests.conftest import ADDED_BOOK, CONTENT_BOOK, BookUnderTest, Built, unzipped

CHROMIUM = Path("/usr/bin/chromium")
LAUNCHER = Path(__file__).with_name("chromium.py")
"""Runs CHROMIUM with Playwright's ``--disable-features`` and ours merged (Chromium keeps only the last)."""
NO_OMNIBOX_POPUP = "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup"
"""Chromium 156 builds the address bar's popup as a web page of its own (a renderer process) for
every new window, and each test's browser context is one: about 1 CPU-second a test, spent while
the page under test loads, on a popup a headless browser never shows. Nothing of the page changes."""
BASELINE_WASM = "--js-flags=--liftoff-only"
"""Chromium runs the page's WebAssembly (Python) with V8's baseline compiler only, Liftoff, and never
compiles hot functions a second time with TurboFan. A test uses its page for seconds: the optimizing
compiles, on background threads, were CPU that a test on a 2-core machine takes from the other
tests and never earns back (a trace of 16 Steps and a Generate: 870 ms of TurboFan against 239 ms
of Python's worker). ``make test``'s pytest run took about 9 % less CPU with it (docs/performance.md,
"The test suite"). What the page computes is the same by WebAssembly's definition; how fast a
reader's browser runs it is ``bench/``'s question, and the bench launches Chromium as it comes."""
EXPECT_MS = 20_000
"""How long any ``expect`` waits (Playwright's default is 5 s). A whole Generate run animates for
about 2.5 s on a quiet machine (decode.js: at most 2.4 s of ticks, plus each tick's Python call and
drawing); with three test workers on two cores it can take longer than 5 s. A deadline, not a
pause: a passing wait returns as soon as the page shows what it waits for."""
expect.set_options(timeout=EXPECT_MS)
PYTHON_READY_MS = 60_000
"""Generous: the labs go live in under a second here (docs/performance.md), but CI machines can be slow."""


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Debian's Chromium where it exists (browsers cannot be downloaded here), through LAUNCHER."""
    args = dict(browser_type_launch_args)
    if CHROMIUM.exists():
        args["executable_path"] = str(LAUNCHER)
        args["args"] = [
            "--no-sandbox",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            NO_OMNIBOX_POPUP,
            BASELINE_WASM,
        ]
    return args


SUBPATH = "/REPO/"
"""Where GitHub Pages puts a project's site: https://USER.github.io/REPO/."""


class _SubpathHandler(QuietHandler):
    """The site under SUBPATH only, as GitHub Pages serves it: anything outside is a 404."""

    def translate_path(self, path: str) -> str:
        if not path.startswith(SUBPATH):
            return str(Path(self.directory) / ".outside-the-site")
        return super().translate_path("/" + path.removeprefix(SUBPATH))


@pytest.fixture(scope="session")
def subpath_site(built: Built) -> Iterator[Server]:
    """The built site served under SUBPATH, on 127.0.0.1 at a free port."""
    yield from serve(built.site, _SubpathHandler, SUBPATH)


WAYS_AND_SUBPATH = [*WAYS, "http-subpath"]
"""The chapter's own flows also run under a sub-path, as GitHub Pages serves a project:
``@pytest.mark.parametrize("site_url", WAYS_AND_SUBPATH, indirect=True)``. The other tests
do not repeat every case there: what a sub-path can break is a URL, not a lab's drawing."""


STYLED_BY_CSS_ONLY = ["single-file"]
"""The one way the tests of what only the stylesheet decides (a mark's colours, a lab's layout at
360 px, what print shows) open the chapter: ``@pytest.mark.parametrize("site_url",
STYLED_BY_CSS_ONLY, indirect=True)``. Both documents (``DOCUMENTS``) carry the same rules
(``kvpage.css`` and the chapter's own, linked by the chapter page and inline in the single file),
and no script reads the colour scheme, the width or the medium; the single file is kept because it
is the one whose styles arrive otherwise (inline, by hash under its CSP) and whose ids are
prefixed. Whether the whole chapter, around its labs, fits 360 px is checked on both documents
(test_reader's open editor)."""


@pytest.fixture(params=WAYS)
def site_url(request: pytest.FixtureRequest, book_under_test: BookUnderTest) -> Where:
    """The chapter served over http (at the root, or under a sub-path as on GitHub Pages),
    opened from the unzipped zip, or the single-file book: of content/, or of the book a test
    parametrized by book (:func:`in_books`) is given."""
    book = book_under_test
    if request.param == "http-subpath":
        assert book.name == CONTENT_BOOK, "the sub-path is content/'s alone: what it can break is a URL, not a chapter"
        subpath = lambda: request.getfixturevalue("subpath_site")  # noqa: E731 - read only if asked for
        return opened_way("http", book.built, "cache.html", subpath, lambda: request.getfixturevalue(book.folder))
    return way_of(request, book.built, "cache.html", book.http, book.folder)


def in_books(ways: list[str], added: list[str]) -> pytest.MarkDecorator:
    """Parametrize a test by book and way: content/ opened each of ``ways`` (the test ids as they
    were, ``[chromium-http]``), the added-chapter book (tests/conftest.py's BOOKS) each of
    ``added`` (``[chromium-added-chapter-single-file]``): the ways where a chapter more can change
    what the test sees (the single file holds every chapter in one page, with its ids prefixed)."""
    cases = [pytest.param(CONTENT_BOOK, way, id=way) for way in ways]
    cases += [pytest.param(ADDED_BOOK, way, id=f"{ADDED_BOOK}-{way}") for way in added]
    return pytest.mark.parametrize(("book_under_test", "site_url"), cases, indirect=True)


@contextlib.contextmanager
def opened_book(way: str, book: Built, page_name: str, page: Page, tmp_path: Path) -> Iterator[tuple[Page, str]]:
    """``page_name`` of a built ``book`` one of the WAYS (served, from its unzipped zip, its single
    file), with the audit attached: the page and the URL to open."""
    servers: Generator[Server] | None = None

    def served() -> Server:
        nonlocal servers
        servers = serve(book.site)
        return next(servers)

    where = opened_way(way, book, page_name, served, lambda: unzipped(book.zip, tmp_path))
    try:
        with audit_page(page, where.origin):
            yield page, where.chapter
    finally:
        if servers is not None:
            servers.close()  # shuts the server down, whether or not the audit passed


def painted(page: Page) -> None:
    """Wait until the page is on screen. Chromium drops key presses a page gets before its first
    paint (a reader cannot press a key on a page not yet shown), so a key pressed right after a
    navigation must wait for it; the page itself stays as it was.
    """
    # A promise, not wait_for_function's polling (which evaluates a string: the pages' CSP forbids it).
    page.evaluate(
        """() => new Promise((resolve) => {
          new PerformanceObserver(() => resolve(true)).observe({ type: "paint", buffered: true });
        })"""
    )


@dataclass
class Audit:
    """What a page asked for and complained about."""

    origin: str
    requests: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def on_request(self, request: Request) -> None:
        url = request.url
        self.requests.append(url)
        if not (url.startswith(self.origin) or url.startswith(("data:", "blob:"))):
            self.problems.append(f"request outside the site: {url}")

    def on_failed(self, request: Request) -> None:
        # A worker's script (a Blob the page made) still loading when the page is left, or when the
        # pool ends that worker, is aborted: nothing was missing (seen once: a spare started just
        # before a test navigated to about:blank). Every other failure is one.
        if request.url.startswith("blob:") and request.failure == "net::ERR_ABORTED":
            return
        self.problems.append(f"request failed: {request.url} ({request.failure})")

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.problems.append(f"console error: {message.text}")


RECORD_CSP_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI}`);
});
"""


MOTION = "motion"
"""The mark of a test about Generate's animation (a run in motion, Pause): only its page animates."""


@pytest.fixture
def audited(page: Page, site_url: Where, request: pytest.FixtureRequest) -> Iterator[tuple[Page, str]]:
    """``page`` with the network and CSP audit attached, and the chapter's URL. The page prefers
    reduced motion, so a Generate ends its run in one answer (the state a run in motion ends in:
    test_lab_visuals.py's ``test_reduced_motion_ends_in_the_same_state``) instead of animating for
    seconds, a Python call and a drawing each step; a test marked ``motion`` gets the animation."""
    if request.node.get_closest_marker(MOTION) is None:
        page.emulate_media(reduced_motion="reduce")
    with audit_page(page, site_url.origin) as audit:
        request.node.stash[AUDIT] = audit
        yield page, site_url.chapter


AUDIT = pytest.StashKey[Audit]()
"""Where ``audited`` keeps its page's audit on the test's node, for :func:`page_audit`."""


@pytest.fixture
def page_audit(audited: tuple[Page, str], request: pytest.FixtureRequest) -> Audit:
    """The audit ``audited`` attached to its page: for a test that reports it with its own outcome
    (tests/e2e/steps.py's ``run``, as the Firefox and WebKit adapters report theirs)."""
    return request.node.stash[AUDIT]


@contextlib.contextmanager
def audit_page(page: Page, origin: str) -> Iterator[Audit]:
    """Attach the network, console and CSP audit to ``page``; on leaving, fail on anything it found."""
    audit = Audit(origin=origin)
    page.add_init_script(RECORD_CSP_VIOLATIONS)
    page.on("request", audit.on_request)
    page.on("requestfailed", audit.on_failed)
    page.on("console", audit.on_console)
    page.on("pageerror", lambda error: audit.problems.append(f"page error: {error}"))
    yield audit
    assert audit.requests, "the page made no requests at all: was it opened?"
    audit.problems.extend(csp_violations(page))
    assert not audit.problems, "\n".join(audit.problems)


def csp_violations(page: Page) -> list[str]:
    """The CSP violations the page recorded (``RECORD_CSP_VIOLATIONS``), taken out of it, so that the
    next reader of the same page gets only the later ones; none on a page of neither http nor file://
    (about:blank, chrome://), which the init script does not reach."""
    if not page.url.startswith(("http", "file")):
        return []
    found: list[str] = page.evaluate("(window.__cspViolations || []).splice(0)")
    return found


@dataclass
class OnePage:
    """A module's one page of the chapter (:func:`one_page`): the page, how it was opened, its audit."""

    page: Page
    where: Where
    audit: Audit


def chapter_opened(request: pytest.FixtureRequest) -> Where:
    """content/'s chapter opened the way a module fixture's ``request.param`` names (one of WAYS);
    the server or folder that way needs is the session's."""
    return opened_way(
        request.param,
        request.getfixturevalue("built"),
        "cache.html",
        lambda: request.getfixturevalue("http_site"),
        lambda: request.getfixturevalue("unzipped_site"),
    )


@pytest.fixture(scope="module")
def one_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[OnePage]:
    """content/'s chapter opened one way (``request.param``, one of WAYS) in a page of its own, kept for
    every test of the module that asks for that way: ``@pytest.mark.parametrize("one_page", DOCUMENTS,
    indirect=True)``, each test through :func:`on_one_page`. A fresh page restores Python (about 2 CPU-s
    on this machine); tests that only drive the labs to a state, which a link sets on a page already open
    (:func:`follow_link`), need not pay it each (issue 47). The audit stays attached for the page's life."""
    where = chapter_opened(request)
    context = browser.new_context()
    page = context.new_page()
    try:
        with audit_page(page, where.origin) as audit:
            yield OnePage(page, where, audit)
    finally:
        context.close()


SCREEN = {"width": 1280, "height": 720}
"""Playwright's default viewport, which every test on :func:`one_page` starts with."""


@pytest.fixture
def on_one_page(one_page: OnePage) -> Iterator[tuple[Page, str]]:
    """The module's :func:`one_page` and the chapter's URL, as :func:`audited` gives a fresh page: at
    Playwright's default size, on screen, in light, preferring reduced motion. What the test's own
    actions found wrong (the audit's problems since it started) fails it, at its end."""
    page = one_page.page
    page.set_viewport_size(SCREEN)
    page.emulate_media(media="screen", color_scheme="light", reduced_motion="reduce")
    del one_page.audit.problems[:]
    yield page, one_page.where.chapter
    found = [*one_page.audit.problems, *csp_violations(page)]
    del one_page.audit.problems[:]
    assert not found, "\n".join(found)


FOLLOW = """(hash) => new Promise((resolve) => {
  addEventListener("hashchange", function followed(event) {
    if (new URL(event.newURL).hash !== hash) return;
    removeEventListener("hashchange", followed);
    setTimeout(resolve);
  });
  location.hash = "";
  location.hash = hash;
})"""
"""A fragment followed on the open page, as a reader's link to it is (the page's ``hashchange``), resolved
once the page has handled it; through an empty fragment first, so that a link equal to the page's URL
(which the page keeps to its labs' state) is followed too."""


def follow_link(page: Page, url: str, fragment: str) -> None:
    """Open ``url`` (the chapter) at ``fragment`` (a lab link, ``decode:prompt=16,steps=3``): loaded, with
    Python live, if the page is elsewhere; else followed on the page as it is, which applies the link's
    values to the labs it names (docs/reader.md, "every lab state is a link"); either way, once every
    lab's call is answered."""
    if page.url.split("#")[0] != url.split("#")[0]:
        page.goto(f"{url}#{fragment}")
        expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=PYTHON_READY_MS)
    else:
        page.evaluate(FOLLOW, f"#{fragment}")
    page.wait_for_function(
        "() => [...document.querySelectorAll('section.lab')].every((lab) => !kvpageLabs.lab(lab)?.busy())"
    )


def lab_link(lab: str, **fields: object) -> str:
    """A lab's segment of a link, as the page writes it (static/kvpage/links.js, ``formatLab``): ``decode:
    prompt=16,steps=3``; each value percent-encoded, a space as "+". The fields are the lab's declared
    names (its controls, then its linked state); a text as it is, a number as written."""
    encoded = {
        name: urllib.parse.quote(str(value), safe=UNRESERVED).replace("%20", "+") for name, value in fields.items()
    }
    return f"{lab}:" + ",".join(f"{name}={value}" for name, value in encoded.items())


UNRESERVED = "-_.!~*'()"
"""What JavaScript's ``encodeURIComponent`` leaves as it is, besides letters and digits."""
