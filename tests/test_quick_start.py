"""The quick start of docs/authoring.md works as written (issue 46): its lab file and its chapter, copied as
they are into a copy of the project and a fresh book, build with no error and no warning, and the page's
numbers are the model's.

An author writes from the guide's first screen; a quick start that does not build, or whose lab is laid
out only with a template it does not mention, fails here rather than in the author's hands. Nothing is
read from the Markdown by hand: the files are the guide's code blocks as markdown-it finds them, the
numbers the page shows are read from the built page with an HTML parser, and the model's are what
``kvpage.bridge.handle`` answers for the chapter's lab, in the copy, through the build's own placement.
"""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tests.conftest import ROOT
from tests.project_copy import project_copy

pytestmark = pytest.mark.e2e
GUIDE = MarkdownIt("commonmark").parse((ROOT / "docs" / "authoring.md").read_text(encoding="utf-8"))


def quick_start_files() -> dict[str, str]:
    """Each code block of the quick start (the guide's section "Quick start"), by the path the code span
    before it names (``kvpage/labs/….py``, ``content/….md``)."""
    files: dict[str, str] = {}
    named = ""
    inside = False
    for index, token in enumerate(GUIDE):
        if token.type == "heading_open" and token.tag == "h2":
            inside = GUIDE[index + 1].content == "Quick start"
        if not inside:
            continue
        spans = [child.content for child in token.children or () if child.type == "code_inline"]
        named = next((span for span in spans if span.endswith((".py", ".md"))), named)
        if token.type == "fence":
            files[named] = token.content
    return files


class Fields(HTMLParser):
    """The text of every ``[data-field]`` element of a page, by field (a readout and a ``[[field]]`` alike)."""

    VOID = frozenset({"area", "br", "col", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})

    def __init__(self, page: str) -> None:
        super().__init__()
        self.fields: dict[str, set[str]] = {}
        self.open: list[tuple[str, str | None, list[str]]] = []
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.open.append((tag, dict(attrs).get("data-field"), []))

    def handle_endtag(self, tag: str) -> None:
        while self.open:
            name, field, text = self.open.pop()
            if field is not None:
                self.fields.setdefault(field, set()).add("".join(text))
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        for _, field, text in self.open:
            if field is not None:
                text.append(data)


MODEL = """
import json, sys
from pathlib import Path
from kvpage import bridge
from sitegen.book.source import load_book, load_source
from sitegen.markdown.pages import parse_chapters
content = Path(sys.argv[1])
book, _ = load_book(content / "book.toml", "book.toml")
chapters = parse_chapters(load_source(content), book.experimental_labs, book.planned_chapters)
print(json.dumps([json.loads(bridge.handle(placement.request())) for placement in chapters.placements]))
"""
"""The model's answer for each lab the book places, computed in the copy (whose kvpage holds the new lab)."""


def test_the_quick_start_builds_in_a_fresh_book_with_the_models_numbers(tmp_path: Path) -> None:
    files = quick_start_files()
    (lab_path,) = [path for path in files if path.startswith("kvpage/labs/")]
    (chapter_path,) = [path for path in files if path.endswith(".md")]
    project = project_copy(ROOT, tmp_path / "project")
    (project / lab_path).write_text(files[lab_path], encoding="utf-8")
    book = tmp_path / "book"
    book.mkdir()
    (book / "book.toml").write_text('title = "A fresh book"\n', encoding="utf-8")
    (book / Path(chapter_path).name).write_text(files[chapter_path], encoding="utf-8")
    out = tmp_path / "out"
    command = ["build.py", "--quiet", "--content", str(book), "--out", str(out / "site"), "--dist", str(out / "dist")]
    built = subprocess.run(
        [sys.executable, *command], cwd=project, capture_output=True, text=True, timeout=900, check=False
    )
    assert built.returncode == 0, built.stderr
    assert built.stderr == "", "the quick start builds with no warning"
    asked = subprocess.run(
        [sys.executable, "-c", MODEL, str(book)], cwd=project, capture_output=True, text=True, timeout=120, check=True
    )
    (reply,) = json.loads(asked.stdout)
    assert reply["ok"], reply
    (page,) = [path for path in (out / "site").glob("*.html") if path.name != "index.html"]
    shown = Fields(page.read_text(encoding="utf-8")).fields
    texts = reply["result"]["text"]
    assert {"paid", "cold"} <= set(shown) <= set(texts)
    for field, values in shown.items():
        assert values == {texts[field]}, field
    assert set(texts) - set(shown) <= {"summary"}  # the summary is spoken after an answer, not shown at first
