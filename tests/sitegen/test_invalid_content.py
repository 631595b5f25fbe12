"""Broken books fail with the exact messages an author sees (after Zola's ``test_sites_invalid``).

Each folder under ``tests/invalid/`` is a small book with one kind of mistake:
its own ``content/`` (``book.toml`` and a chapter or two) and, for template
mistakes, its own ``site_template/``; the others use the real templates. Each
build must fail with exactly the listed ``path:line: message`` lines, in order,
and write nothing. The project root is pointed at a folder that does not
exist, so a fixture that reached the runtime stage (Pyodide, the wheel) would
fail differently: every mistake here is caught before it, without the project's
Pyodide. (Formulas are typeset by the build's own tool, Temml, found beside
``sitegen/`` as its Python packages are.)

A fixture with a ``kvpage/`` folder brings model files of its own (a lab that loops, say): it is
built by the command line in a copy of the project with those files added, as an author would
run it, and must fail with its lines within 15 s (the issue's bound; a hang fails the test).
"""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from kvpage.labs import decode
from sitegen import pipeline
from sitegen.book.assets import ACTIVE_MESSAGE
from sitegen.cli import commands
from sitegen.labs.discovery import all_labs, enabled_labs
from sitegen.markdown.html_rules import ALLOWED as RAW_ALLOWED
from sitegen.markdown.html_rules import EARLY, EMPTY, HIDES, NO_CODE
from sitegen.markdown.plugins.chapter_links import COMING
from sitegen.markdown.plugins.footnotes import UNUSED
from tests.conftest import ROOT
from tests.project_copy import project_copy

KNOWN = ", ".join(sorted(enabled_labs()))
"""The labs a book has without enabling any: messages list them, and a new lab joins the list."""
EXPERIMENTAL = ", ".join(sorted(name for name, lab in all_labs().items() if lab.experimental))
DECODE_FIELDS = ", ".join(sorted(decode.LAB.fields))
"""What ``[[field]]`` may name in the decode lab: its text outputs."""

ALL_LABS = ", ".join(sorted(all_labs()))
"""Every lab of kvpage/labs/, experimental ones too: what a book.toml setting may name."""

INVALID = ROOT / "tests" / "invalid"
LOADS = "it would load another document or plug-in into the page"
UNSAFE_URL = "it could run code; link to a page or a file of the book"

EXPECTED: dict[str, list[str]] = {
    # The source stage: book.toml and front matter.
    "book-toml-missing": ['content/book.toml: missing; it names the book (title = "...")'],
    "book-toml-invalid": ["content/book.toml:2: not valid TOML: Illegal character '\\n' (column 21)"],
    "book-toml-fields": [
        "content/book.toml:1: missing 'title', the name of the book (title = \"...\")",
        "content/book.toml:3: unknown field 'titel'; expected title, experimental_labs, call_timeout, build_timeout, "
        "sweep, hide_python, planned_chapters",
    ],
    "book-toml-call-timeout": [
        "content/book.toml:3: 'call_timeout' must be a number of seconds from 1 to 600 (how long a lab's call "
        "to Python may take before the page stops it), not 0"
    ],
    "book-toml-hide-python": [
        f"content/book.toml:3: 'hide_python' names 'decoder', which is not a lab; labs: {ALL_LABS}"
    ],
    "book-toml-planned": [
        "content/book.toml:3: 'planned_chapters' names 'The Harness', which is not a slug "
        "(lowercase letters, digits and dashes)"
    ],
    "no-chapters": ["content: no chapters (*.md) found"],
    "not-utf8": ["content/broken.md:8: not UTF-8 text (invalid continuation byte at byte 61)"],
    "missing-front-matter": ["content/broken.md:1: missing front matter: the file must start with a '---' line"],
    "front-matter-fence": ["content/broken.md:1: front matter must open with a line '---' alone, not '----'"],
    "front-matter-unclosed": ["content/broken.md:1: front matter is not closed: add a '---' line after its last field"],
    "front-matter-not-key-value": [
        "content/broken.md:4: front matter is not valid YAML: while scanning a simple key, "
        "could not find expected ':' (line 5, column 1)"
    ],
    "front-matter-yaml": [
        "content/broken.md:4: front matter is not valid YAML: while scanning a quoted scalar, "
        "found unexpected end of stream (line 5, column 13)"
    ],
    "front-matter-not-mapping": [
        "content/broken.md:2: front matter must be fields, one 'key: value' a line, not a list"
    ],
    "front-matter-title-type": [
        "content/broken.md:4: front matter 'title' must be text, not '2001' (quote it: title: \"2001\")"
    ],
    "front-matter-unknown-field": [
        "content/broken.md:5: unknown front matter field 'author'; expected number, part, title, slug"
    ],
    "front-matter-repeated-field": ["content/broken.md:6: front matter field 'title' is given twice (first on line 4)"],
    "front-matter-missing-field": [
        "content/broken.md:1: front matter is missing 'part'",
        "content/broken.md:1: front matter is missing 'slug'",
    ],
    "front-matter-number": ["content/broken.md:2: front matter 'number' must be a whole number, not 'three'"],
    "front-matter-slug": [
        "content/broken.md:5: front matter 'slug' must be lowercase letters, digits and dashes, not 'Broken Chapter'"
    ],
    "front-matter-empty": [
        "content/broken.md:3: front matter 'part' is empty",
        "content/broken.md:4: front matter 'title' is empty",
    ],
    "reserved-slug": [
        "content/broken.md:5: front matter 'slug' cannot be 'index': index.html is the book's list of chapters"
    ],
    "duplicate-slug": ["content/02-second.md:5: slug 'broken' is already used by content/01-first.md:5"],
    "experimental-labs-unknown": [
        "content/book.toml:2: 'experimental_labs' names 'decode', which is not an experimental lab; "
        f"experimental labs: {EXPERIMENTAL}",
        "content/book.toml:2: 'experimental_labs' names 'squares', which is not an experimental lab; "
        f"experimental labs: {EXPERIMENTAL}",
    ],
    # The pages stage: labs.
    "unknown-lab": [f"content/broken.md:8: unknown lab 'decoder'; known labs: {KNOWN}"],
    "lab-without-name": [f"content/broken.md:8: a lab needs a name; known labs: {KNOWN}"],
    "experimental-lab-off": [
        "content/broken.md:8: lab 'square' is experimental: "
        'enable it in book.toml with experimental_labs = ["square"]'
    ],
    "lab-param-not-key-value": [
        "content/broken.md:8: lab parameter '16' is not key=value",
        "content/broken.md:8: lab parameter 'prompt' is not key=value",
    ],
    "lab-param-unknown": ["content/broken.md:8: lab 'decode' has no parameter 'steps'; expected mode, prompt, tokens"],
    "lab-param-repeated": ["content/broken.md:8: lab parameter 'prompt' is given twice"],
    "lab-param-not-integer": ["content/broken.md:8: tokens (Tokens to generate) must be a whole number, not 'many'"],
    "lab-param-out-of-range": [
        "content/broken.md:8: prompt (Prefix length) must be between 1 and 128, not 0",
        "content/broken.md:8: tokens (Tokens to generate) must be between 1 and 64, not 65",
    ],
    "lab-param-too-long": [
        "content/broken.md:8: request1 (Request 1) is 2,001 characters; the lab takes at most 2,000"
    ],
    "lab-param-quoting": ["content/broken.md:8: cannot read the lab line: a quote is not closed"],
    "lab-param-missing": ["content/broken.md:8: lab 'next-request' needs parameter 'request2'"],
    "lab-without-heading": [
        "content/broken.md:8: lab 'decode' must start with a heading that names it (e.g. '## Lab · ...')"
    ],
    "lab-field-unknown": [f"content/broken.md:12: lab 'decode' has no field 'this_stop'; fields: {DECODE_FIELDS}"],
    # The pages stage: containers.
    "unclosed-lab": ["content/broken.md:8: '::: lab' is not closed: add a ':::' line where it ends"],
    "unclosed-callout": ["content/broken.md:10: '::: english' is not closed: add a ':::' line where it ends"],
    "unclosed-callout-last-line": ["content/broken.md:10: '::: keep' is not closed: add a ':::' line where it ends"],
    "unclosed-nested": [
        "content/broken.md:8: '::: lab' ends at the ':::' on line 13, so '::: try' (line 11) cannot close inside it: "
        "close '::: lab' before line 11, or give it a longer fence, such as '::::', to nest '::: try' in it",
        "content/broken.md:16: ':::' closes nothing: no container is open here",
    ],
    "unclosed-callout-before-lab": [
        "content/broken.md:8: '::: english' ends at the ':::' on line 17, so '::: lab' (line 13) cannot close inside "
        "it: close '::: english' before line 13, or give it a longer fence, such as '::::', to nest '::: lab' in it"
    ],
    "callout-parameters": ["content/broken.md:8: callout 'english' takes no parameters, got 'loud'"],
    "unknown-container": [
        "content/broken.md:8: unknown container 'warning'; known containers: english, figure, keep, lab, try"
    ],
    "figure-unknown": ["content/broken.md:8: unknown figure 'thesys'; known figures: thesis"],
    "figure-param": [
        f"content/broken.md:8: tokens ({decode.TOKENS.label}) must be between {decode.TOKENS.low} and "
        f"{decode.TOKENS.high}, not 999"
    ],
    "figure-without-caption": [
        "content/broken.md:10: a figure needs a caption: write what it shows inside the container, before ':::'"
    ],
    "stray-closer": ["content/broken.md:13: ':::' closes nothing: no container is open here"],
    # The pages stage: links.
    "broken-anchor": [
        "content/broken.md:11: link to '#set-up': this chapter has no heading with the id 'set-up' "
        "(did you mean 'setting-up'?)"
    ],
    "broken-page-link": ["content/broken.md:8: link to 'other.html': the site has no page 'other.html'"],
    "broken-chapter-anchor": [
        "content/02-second.md:10: link to 'chapter:broken#the-end': "
        "content/01-first.md has no heading with the id 'the-end'"
    ],
    # The pages stage: ids.
    "duplicate-id": ["content/broken.md:12: id 'notes' is used twice on the page (first at content/broken.md:8)"],
    "absolute-link": [
        "content/broken.md:8: link to '/index.html': a path from the server's root breaks "
        "when the site is opened from disk; write a relative link"
    ],
    # The pages stage: images, files of the book, formulas, footnotes.
    "image-without-alt": [
        "content/broken.md:10: image 'img/layout.svg' has no alt text: say what it shows, "
        'as in ![What it shows](img/layout.svg), or mark it decorative with ![""](img/layout.svg)'
    ],
    "image-missing": [
        "content/broken.md:8: image 'img/layuot.svg': the book has no file 'img/layuot.svg' "
        "(did you mean 'img/layout.svg'?)"
    ],
    "image-outside-book": [
        "content/broken.md:8: image '../layout.svg': it is outside the book's folder, "
        "and the site holds only the book's own files: move the file into content/"
    ],
    "image-remote": [
        "content/broken.md:8: image 'https://example.org/layout.png': an image must be a file of the book "
        "(the page loads nothing from outside itself): put it in content/"
    ],
    "svg-script": [
        "content/img/layout.svg:3: the SVG holds a <script> element; an SVG that can run code is refused "
        "(a browser opening the file on its own would run it): remove it"
    ],
    # Raw HTML (sitegen/markdown/html_rules.py) and the book's pages and scripts (sitegen/book/assets.py).
    "book-file-script": [
        f"content/broken.md:8: raw HTML <script> is refused: {NO_CODE}, and its text hides the rest of the page "
        "if unclosed",
        "content/broken.md:10: link to 'files/notes.html': the build refuses content/files/notes.html "
        "(its own error says why)",
        f"content/files/evil.js: {ACTIVE_MESSAGE.format(suffix='.js')}",
        f"content/files/notes.html: {ACTIVE_MESSAGE.format(suffix='.html')}",
    ],
    "raw-html-refused": [
        'content/broken.md:8: raw HTML <meta> is refused: <meta http-equiv="refresh"> sends the reader to another '
        "page, which the page's policy cannot stop",
        "content/broken.md:10: raw HTML <base> is refused: it would change where every link and image of the page "
        "leads",
        f"content/broken.md:12: raw HTML <iframe> is refused: {LOADS}",
        f"content/broken.md:14: raw HTML <embed> is refused: {LOADS}",
        f"content/broken.md:14: raw HTML <object> is refused: {LOADS}",
        f"content/broken.md:16: raw HTML <a> href= holds a javascript: URL: {UNSAFE_URL}",
        f"content/broken.md:16: raw HTML <p> has the event-handler attribute 'onclick': {NO_CODE}",
        f"content/broken.md:17: raw HTML <a> href= holds a data: URL: {UNSAFE_URL}",
        f"content/broken.md:17: raw HTML <a> href= holds a vbscript: URL: {UNSAFE_URL}",
        "content/broken.md:19: raw HTML <form> is refused: a form would send what the reader types somewhere; "
        "the labs are the page's controls",
        f"content/broken.md:19: raw HTML <input> is refused: not an element a chapter may use ({RAW_ALLOWED})",
        "content/broken.md:21: raw HTML <span> has a style attribute: the page's policy ignores inline styles; "
        "use a class",
        "content/broken.md:21: raw HTML <video> may not have the attribute 'poster'; allowed: class, controls, dir, "
        "height, hidden, id, lang, loop, muted, playsinline, preload, role, src, tabindex, title, translate, width, "
        "aria-*",
    ],
    "raw-html-swallows": [
        *(
            f"content/01-elements.md:{line}: raw HTML <{tag}> is refused: {HIDES}"
            for line, tag in [
                (8, "textarea"),
                (10, "style"),
                (10, "title"),
                (10, "xmp"),
                (12, "noembed"),
                (12, "noframes"),
                (12, "noscript"),
                (14, "plaintext"),
            ]
        ),
        "content/02-comment.md:8: raw HTML '<div title=\"never closed' is not closed: a browser would read the rest "
        "of the page into it; close it with '>'",
        "content/02-comment.md:10: raw HTML comment '<!--' is not closed: a browser would hide the rest of the page "
        "in it; add '-->'",
        "content/03-pre.md:8: raw HTML <pre> is not closed: Markdown would read the rest of the chapter as its HTML; "
        "add </pre>",
    ],
    # Comments as a browser reads them (issues 43 and 46): '<!-->' and '<!--->' end where they open (a warning,
    # test_an_empty_comment_is_a_warning_...), so what follows is checked as the page's HTML; ended at '--!>', so
    # what the author meant to hide is the page's HTML; or never ended ('-- >'), so the rest is hidden.
    "raw-html-comments": [
        f"content/01-early.md:10: raw HTML <script> is refused: {NO_CODE}, and its text hides the rest of the page "
        "if unclosed",
        'content/01-early.md:12: raw HTML <meta> is refused: <meta http-equiv="refresh"> sends the reader to another '
        "page, which the page's policy cannot stop",
        f"content/01-early.md:14: raw HTML <style> is refused: {HIDES}",
        f"content/01-early.md:16: raw HTML <textarea> is refused: {HIDES}",
        f"content/01-early.md:18: raw HTML comment '<!-- a note --!>' ends at '--!>' {EARLY}",
        "content/02-open.md:10: raw HTML comment '<!--' is not closed: a browser would hide the rest of the page "
        "in it; add '-->'",
    ],
    "download-missing": [
        "content/broken.md:8: link to 'files/costs.cvs': the book has no file 'files/costs.cvs' "
        "(did you mean 'files/costs.csv'?)"
    ],
    "image-not-png": [
        "content/broken.md:8: image 'fake.png': content/fake.png cannot be shown: not a PNG image "
        "(no PNG signature and IHDR header) (by its name, image/png)",
        "content/fake.png: not a PNG image (no PNG signature and IHDR header) (by its name, image/png)",
    ],
    "bad-tex": [
        "content/broken.md:9: the formula $\\frac{n^2 - p^2}{2$ cannot be typeset: "
        "Unexpected end of input in a macro argument, expected '}'"
    ],
    # The labs stage, with model files of the fixture's own (kvpage/): a view JSON cannot carry, a
    # model that loops (its book.toml sets a small build_timeout), a lab that does not parse.
    # At the chapter's line and at the model's (its action's def: issue 46, the author fixes the model).
    "lab-nan": [
        "content/broken.md:8: lab 'hit-rate' failed at its starting values: action 'compute' returned NaN "
        "(at view.state.rate); JSON has no NaN or Infinity, so the page could not read it: "
        "return a text such as 'n/a' instead",
        "kvpage/labs/hit_rate.py:13: this action's view, at content/broken.md:8: lab 'hit-rate' failed at its "
        "starting values: action 'compute' returned NaN (at view.state.rate); JSON has no NaN or Infinity, so "
        "the page could not read it: return a text such as 'n/a' instead",
    ],
    # The sweep: right at the starting values, wrong at the slider's lowest (at the chapter's line and
    # the model's) and over the bridge's cap at its highest (the bridge's refusal: no model line).
    "lab-sweep": [
        "content/broken.md:8: lab 'share' failed when swept, action 'compute' at {\"parts\": 0}: ZeroDivisionError: "
        "integer division or modulo by zero (raised at kvpage/labs/share.py:15)",
        "content/broken.md:8: lab 'share' failed when swept, action 'compute' at {\"parts\": 12000}: action "
        "'compute' drew 12,001 elements; a view holds at most 10,000",
        "kvpage/labs/share.py:15: lab 'share' failed here when swept, action 'compute' at {\"parts\": 0}: "
        "ZeroDivisionError: integer division or modulo by zero",
    ],
    # A control's mistake at the control's line, not the LAB = line.
    "lab-control-decimal": [
        "kvpage/labs/heat.py:10: lab 'heat': control 'temperature': Slider takes whole numbers, not low=0.1, high=2, "
        "default=1; for decimals declare DecimalSlider('temperature', ..., step=0.1)"
    ],
    # A default outside its own range, the lab placed at its defaults: one error at the control's line, no
    # knock-on error from the starting view, the warm-up or the sweep that would call it there (issue 46).
    "lab-default-out-of-range": [
        "kvpage/labs/budget.py:10: lab 'budget': control 'tokens': default 100 is outside 1..64"
    ],
    # A module that computes at import past build_timeout: import time, at the line it was running.
    "lab-import-slow": [
        "kvpage/labs/slow.py:11: importing the model did not finish in 3 s (build_timeout); it was running this "
        "line. Importing is limited like a lab's calls: compute what a lab needs when it is called"
    ],
    "lab-loop": ["content/broken.md:8: lab 'halving' action 'compute' did not finish in 2 s (args {\"tokens\": 0})"],
    "lab-syntax-error": [
        "kvpage/labs/pages.py:13:24: SyntaxError: expected ':'\n    if tokens % 16 == 0\n                       ^"
    ],
    "footnote-missing": [
        "content/broken.md:11: footnote [^prefix] has no note: add a line '[^prefix]: …' (after a blank line)"
    ],
    # Templates (Jinja2 StrictUndefined), named at the template line that failed.
    "lab-template-variable": [
        "site_template/labs/decode.html:2: 'lab_title' is undefined (rendering lab 'decode' in content/broken.md)"
    ],
    "template-variable": ["site_template/base.html:4: 'subtitle' is undefined (rendering index.html, broken.html)"],
    # Past the limits of the parsers (issue 34): each once a traceback, or content dropped without a word.
    "front-matter-nul": ["content/broken.md:4: front matter holds U+0000, a character YAML does not allow (column 11)"],
    "front-matter-deep": [
        "content/broken.md:4: front matter nests lists or mappings more than 20 deep "
        "(its fields are a number and texts)"
    ],
    "book-toml-deep": [
        "content/book.toml:2: not valid TOML: arrays or inline tables nested too deeply to read "
        "(its fields need no nesting)"
    ],
    "slug-too-long": [
        "content/broken.md:5: front matter 'slug' is 251 characters; at most 100 are allowed (it names the page's file)"
    ],
    "nesting-too-deep": [
        "content/broken.md:10: this block is nested too deeply to render: at most 100 levels of containers, "
        "quotes and lists (a list counts two a level: the list and its item); nest less"
    ],
    # Everything at once: errors of both stages, several per file, in file and line order.
    "many-errors": [
        "content/01-first.md:6: unknown front matter field 'colour'; expected number, part, title, slug",
        "content/01-first.md:9: tokens (Tokens to generate) must be between 1 and 64, not 100",
        f"content/01-first.md:12: lab 'decode' has no field 'payd'; fields: {DECODE_FIELDS}",
        "content/01-first.md:15: link to '#nowhere': this chapter has no heading with the id 'nowhere'",
        "content/02-second.md:2: front matter 'number' must be a whole number, not 'two'",
        "content/02-second.md:8: '::: english' is not closed: add a ':::' line where it ends",
        f"content/03-third.md:8: unknown lab 'decoder'; known labs: {KNOWN}",
        "content/03-third.md:14: callout 'try' takes no parameters, got 'loud'",
    ],
}

WARNING_ONLY = "missing-chapter-link"
"""A link to a chapter not written yet: a warning (plain text), an error only with --strict."""


def fixture_options(name: str, tmp_path: Path, *, strict: bool = False) -> pipeline.Options:
    """Build the fixture ``name`` into ``tmp_path``, in a project of only ``node_modules`` (the search
    stage's MiniSearch; no kvpage, so no runtime)."""
    fixture = INVALID / name
    templates = fixture / "site_template"
    return pipeline.Options(
        root=search_only_project(),
        content=fixture / "content",
        templates=templates if templates.is_dir() else ROOT / "site_template",
        out=tmp_path / "site",
        dist=tmp_path / "dist",
        strict=strict,
    )


@functools.cache
def search_only_project() -> Path:
    """A project folder holding only a link to the checkout's ``node_modules``, kept for the session."""
    project = Path(tempfile.mkdtemp(prefix="kvpage-no-project-"))
    atexit.register(shutil.rmtree, project, ignore_errors=True)
    (project / "node_modules").symlink_to(ROOT / "node_modules")
    (project / "package.json").symlink_to(ROOT / "package.json")  # the npm versions it declares
    return project


def test_every_fixture_is_checked() -> None:
    assert sorted(path.name for path in INVALID.iterdir()) == sorted([*EXPECTED, WARNING_ONLY])


WITH_MODEL = sorted(name for name in EXPECTED if (INVALID / name / "kvpage").is_dir())
"""Fixtures that bring model files of their own."""


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - set(WITH_MODEL)))
def test_broken_book_fails_with_exact_messages(name: str, tmp_path: Path) -> None:
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(fixture_options(name, tmp_path))
    assert [str(error) for error in failure.value.errors] == EXPECTED[name]
    assert list(tmp_path.iterdir()) == [], "a failed build wrote something"


@pytest.mark.parametrize("name", WITH_MODEL)
def test_broken_model_fails_the_build_at_its_line_and_never_hangs(name: str, tmp_path: Path) -> None:
    project = project_copy(ROOT, tmp_path / "project", caches=())
    shutil.copytree(INVALID / name / "kvpage", project / "kvpage", dirs_exist_ok=True)
    if (INVALID / name / "site_template").is_dir():  # a lab's template, for a lab that reaches the pages
        shutil.copytree(INVALID / name / "site_template", project / "site_template", dirs_exist_ok=True)
    out, dist = tmp_path / "out" / "site", tmp_path / "out" / "dist"
    command = ["--quiet", "--content", str(INVALID / name / "content"), "--out", str(out), "--dist", str(dist)]
    result = subprocess.run(
        [sys.executable, "build.py", *command], cwd=project, capture_output=True, text=True, timeout=15, check=False
    )
    expected = [f"error: {message}" for message in EXPECTED[name]]
    count = len(expected)
    assert result.stderr.splitlines() == [
        *"\n".join(expected).splitlines(),
        f"build failed: {count} error(s); nothing was written",
    ]
    assert result.returncode == 1
    assert not (tmp_path / "out").exists()


FUZZED = (
    "front-matter-nul",
    "front-matter-deep",
    "book-toml-deep",
    "slug-too-long",
    "nesting-too-deep",
    "image-not-png",
)
"""The fuzzed inputs of issue 34: each ended in a traceback (PyYAML's reader, Python's stack in PyYAML and
tomllib, a file name too long to write), lost text without a word (markdown-it's nesting limit), or
named no line (an image that is not what its name says)."""


@pytest.mark.parametrize("name", FUZZED)
def test_each_fuzzed_input_fails_on_the_command_line_at_its_line(name: str, tmp_path: Path) -> None:
    """As an author runs it: ``python build.py``, its own stack and process, exit 1 and no traceback."""
    out, dist = tmp_path / "site", tmp_path / "dist"
    command = ["--quiet", "--content", str(INVALID / name / "content"), "--out", str(out), "--dist", str(dist)]
    result = subprocess.run(
        [sys.executable, "build.py", *command], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in result.stderr
    expected = [f"error: {message}" for message in EXPECTED[name]]
    assert result.stderr.splitlines() == [*expected, f"build failed: {len(expected)} error(s); nothing was written"]
    assert result.returncode == 1
    assert list(tmp_path.iterdir()) == []


def test_command_line_prints_every_error_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content = INVALID / "many-errors" / "content"
    argv = ["--content", str(content), "--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]
    assert commands.main(argv) == 1
    captured = capsys.readouterr()
    expected = [f"error: {message}" for message in EXPECTED["many-errors"]]
    assert captured.err.splitlines() == [*expected, "build failed: 8 error(s); nothing was written"]
    assert captured.out == ""
    assert list(tmp_path.iterdir()) == []


def test_link_to_a_missing_chapter_is_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = fixture_options(WARNING_ONLY, tmp_path)
    site = pipeline.build(options)
    message = "content/broken.md:8: chapter 'harness' is not in this book; the link renders as plain text"
    assert capsys.readouterr().err.splitlines() == [f"warning: {message}"]
    page = site.files["broken.html"].decode("utf-8")
    assert "More in the harness chapter." in page
    assert "chapter:harness" not in page


def chapter_book(tmp_path: Path, toml: str, body: str) -> pipeline.Options:
    """The warning-only fixture with its book.toml given ``toml`` and its chapter ``body`` after the front matter."""
    content = tmp_path / "content"
    content.mkdir()
    fixture = INVALID / WARNING_ONLY / "content"
    (content / "book.toml").write_text((fixture / "book.toml").read_text(encoding="utf-8") + toml, encoding="utf-8")
    front = (fixture / "broken.md").read_text(encoding="utf-8").split("\n\n", 1)[0]
    (content / "broken.md").write_text(f"{front}\n\n{body}", encoding="utf-8")
    return replace(fixture_options(WARNING_ONLY, tmp_path), content=content)


def test_a_warning_found_again_is_printed_once_with_a_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = "See [it](chapter:harness) and [it](chapter:harness).\n\nMore in [the tree](chapter:harness).\n"
    pipeline.build(chapter_book(tmp_path, "", body))
    message = "chapter 'harness' is not in this book; the link renders as plain text"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: content/broken.md:8: {message} (3 times; also at content/broken.md:10)"
    ]


def test_a_link_to_a_planned_chapter_is_marked_coming_with_no_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "More in [the harness chapter](chapter:harness).\n"
    options = chapter_book(tmp_path, 'planned_chapters = ["harness"]\n', body)
    site = pipeline.build(replace(options, strict=True))  # a planned chapter is no warning, so --strict passes too
    assert capsys.readouterr().err == ""
    page = site.files["broken.html"].decode("utf-8")
    coming = f'<span class="chapter-planned" title="{COMING}">the harness chapter</span>'
    assert f"More in {coming}." in page


def test_link_to_a_missing_chapter_is_an_error_when_strict(tmp_path: Path) -> None:
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(fixture_options(WARNING_ONLY, tmp_path, strict=True))
    assert [str(error) for error in failure.value.errors] == [
        "content/broken.md:8: chapter 'harness' is not in this book; the link renders as plain text"
    ]
    assert list(tmp_path.iterdir()) == []


def test_a_footnote_no_text_cites_is_a_warning_at_its_note_and_an_error_when_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The footnote plugin leaves an uncited note out of the page without a word (issue 43)."""
    note = "[^prefix]: Reuse needs an exact prefix."
    body = f"Prefill is quadratic.[^square]\n\n[^square]: n tokens pay n² cells.\n{note}\n"
    options = chapter_book(tmp_path, "", body)
    chapter = options.content / "broken.md"
    line = chapter.read_text(encoding="utf-8").splitlines().index(note) + 1
    expected = f"{chapter.relative_to(options.content.parent).as_posix()}:{line}: {UNUSED.format(label='prefix')}"
    site = pipeline.build(options)
    assert capsys.readouterr().err.splitlines() == [f"warning: {expected}"]
    assert "n tokens pay n² cells." in site.files["broken.html"].decode("utf-8")
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(replace(options, strict=True))
    assert [str(error) for error in failure.value.errors] == [expected]


@pytest.mark.parametrize("comment", ["<!-->", "<!--->"])
def test_an_empty_comment_is_a_warning_at_its_line_and_an_error_when_strict(
    comment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``<!-->`` is a complete comment (HTML, CommonMark), so the page holds what follows it; the author likely meant
    a longer one, so the build says where it ended, in a block and in a paragraph alike (issue 46)."""
    body = f"{comment}\n\nShown after the block.\n\nA paragraph {comment} shown after it too.\n"
    options = chapter_book(tmp_path, "", body)
    chapter = options.content / "broken.md"
    lines = chapter.read_text(encoding="utf-8").splitlines()
    at = [index + 1 for index, line in enumerate(lines) if comment in line]
    expected = [f"content/broken.md:{line}: {EMPTY.format(shown=comment)}" for line in at]
    site = pipeline.build(options)
    also = f"(2 times; also at content/broken.md:{at[1]})"  # one warning, its places counted
    assert capsys.readouterr().err.splitlines() == [f"warning: {expected[0]} {also}"]
    page = site.files["broken.html"].decode("utf-8")
    assert "Shown after the block." in page
    assert "shown after it too." in page
    with pytest.raises(pipeline.BuildError) as failure:
        pipeline.build(replace(options, strict=True))
    assert [str(error) for error in failure.value.errors] == expected


def test_failed_build_still_shows_its_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An error elsewhere must not hide the warnings of the same run."""
    content = tmp_path / "content"
    content.mkdir()
    fixture = INVALID / WARNING_ONLY / "content"
    (content / "book.toml").write_bytes((fixture / "book.toml").read_bytes())
    chapter = (fixture / "broken.md").read_text(encoding="utf-8")
    (content / "broken.md").write_text(chapter + "\n::: lab decoder\n## Lab\n:::\n", encoding="utf-8")
    argv = ["--content", str(content), "--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]
    assert commands.main(argv) == 1
    assert capsys.readouterr().err.splitlines() == [
        "warning: content/broken.md:8: chapter 'harness' is not in this book; the link renders as plain text",
        f"error: content/broken.md:10: unknown lab 'decoder'; known labs: {KNOWN}",
        "build failed: 1 error(s); nothing was written",
    ]
