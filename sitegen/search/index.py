"""Stage "search": the book's search index, made at build time and shipped as one classic script.

The build indexes the sections with the pinned MiniSearch under Node and the terms the page uses too,
so the page only loads the finished index, far quicker than indexing the book there (decision 0046).
How the index is made: :func:`search_index`; what the script holds and why: :meth:`SearchIndex.script`.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen.errors import BuildError
from sitegen.limited_run import line_child
from sitegen.markdown.ids import prefixed
from sitegen.markdown.pages import Pages
from sitegen.memo import NO_MEMO, Memo
from sitegen.runtime.bundle import read_pinned
from sitegen.runtime.npm import declared_version
from sitegen.search.text import SEARCH_DIR, Section

SCRIPT = f"{SEARCH_DIR}/index.js"
"""Where the index script goes in the site, relative to its pages."""
PACKAGE = "minisearch"
PINS = Path(__file__).with_name("search-pins.json")
LIBRARY = "dist/umd/index.js"
"""MiniSearch as a classic script: it defines ``globalThis.MiniSearch``."""
LICENSE = "LICENSE.txt"
SOURCE_MAP = "\n//# sourceMappingURL=index.js.map\n"
"""The library's last line names a source map we do not ship; a browser's developer tools would ask for it."""
TERMS = Path(__file__).with_name("search_terms.js")
INDEXER = Path(__file__).with_name("search_index.mjs")


@dataclass(frozen=True)
class Chapter:
    """What a search result says about its chapter, and where its page is."""

    headline: str
    title: str
    url: str
    slug: str


@dataclass(frozen=True)
class SearchIndex:
    """The search index and the code that reads it, ready to be written as a script."""

    library: str
    """MiniSearch, checked against its pin, its license first."""
    terms: str
    """``search_terms.js``."""
    index: str
    """MiniSearch's serialized index of every section (JSON)."""
    chapters: tuple[Chapter, ...]

    def script(self, single_file: bool = False) -> bytes:
        """``search/index.js``: the library, the terms, then the data, as one classic script.

        ``single_file``: links into the one page (``#SLUG--id``) instead of to each chapter's page.
        The data is a string given to ``JSON.parse``, which a browser reads much faster than the
        same data written as a JavaScript object; every ``<`` in it is written ``\\u003c``, so the
        script can also be inline.

        The script holds MiniSearch (its license first), the terms, and the index with each section's
        text, heading and chapter: a classic script, because a page opened from disk may not ``fetch``
        its sibling files but may load a ``<script src>``. The site's pages load it the first time the
        reader uses the search box; the single file holds it inline. Both carry the same index; only
        the links differ: ``cache.html#in-english`` in the site, ``#cache--in-english`` in the single
        file, whose ids are chapter-prefixed (``sitegen.markdown.ids``).
        """
        chapters = [
            {
                "headline": chapter.headline,
                "title": chapter.title,
                "page": f"#{chapter.slug}" if single_file else chapter.url,
                "anchor": f"#{prefixed(chapter.slug, '')}" if single_file else f"{chapter.url}#",
            }
            for chapter in self.chapters
        ]
        listed = json.dumps(chapters, ensure_ascii=False, sort_keys=True)
        data = js_string(f'{{"chapters": {listed}, "index": {self.index}}}'.replace("<", "\\u003c"))
        text = f"{self.library}\n{self.terms}\nglobalThis.kvpageSearchData = JSON.parse({data});\n"
        return text.encode("utf-8")


def js_string(text: str) -> str:
    """``text`` as a single-quoted JavaScript string literal (JSON's own quotes need no escaping there)."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"'{escaped}'"


def documents(chapters: Sequence[Sequence[Section]]) -> list[dict[str, Any]]:
    """The sections of every chapter as MiniSearch documents (the field names of ``search_terms.js``)."""
    found: list[dict[str, Any]] = []
    for number, sections in enumerate(chapters):
        for section in sections:
            found.append({"id": len(found), "c": number, "a": section.anchor, "h": section.heading, "t": section.text})
    return found


def load_library(project: Path) -> str:
    """MiniSearch's classic script from ``node_modules``, checked against its pins, its license first."""
    wanted = declared_version(project, PACKAGE)
    pinned, version = read_pinned(project / "node_modules" / PACKAGE, PINS, wanted, "MiniSearch")
    code = pinned[LIBRARY].decode("utf-8")
    if code.count(SOURCE_MAP) != 1 or not code.endswith(SOURCE_MAP):
        message = f"{PACKAGE}/{LIBRARY}: expected it to end with {SOURCE_MAP.strip()!r}: has MiniSearch changed?"
        raise BuildError([message])
    license = pinned[LICENSE].decode("utf-8").strip().replace("*/", "* /")
    head = f"/*! MiniSearch {version} (npm package {PACKAGE}), under this license:\n\n{license}\n*/\n"
    return f"{head}{code.removesuffix(SOURCE_MAP)}\n"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise BuildError(["node: not found; the search index is built with Node.js (install it, then 'npm ci')"])
    return found


def failed(code: int, said: str) -> BuildError:
    return BuildError([f"{INDEXER.name}: indexing the book failed ({code}): {said.strip()}"])


@functools.lru_cache(maxsize=4)
def run_indexer(payload: str) -> str:
    """MiniSearch's index of the documents in ``payload``, made by ``search_index.mjs`` under Node.

    Kept per process for the same input: serve's worker rebuilds after a template edit with
    the same sections, and the tests build the same book more than once.
    """
    done = subprocess.run([node(), str(INDEXER)], input=payload, capture_output=True, text=True, encoding="utf-8")
    if done.returncode != 0:
        raise failed(done.returncode, done.stderr)
    return done.stdout.removesuffix("\n")


class Indexer:
    """serve's: one Node running ``search_index.mjs`` for every build of the worker, a line of JSON in
    and a line out each, so a rebuild pays no start of Node and MiniSearch (decision 0064)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def index(self, payload: str) -> str:
        """What :func:`run_indexer` answers for ``payload``, from the kept process."""
        process = self.process
        if process is None or process.poll() is not None:
            process = self.process = line_child([node(), str(INDEXER)])
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            process.stdin.write(payload + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except OSError:
            line = ""
        if not line.endswith("\n"):
            self.process = None
            process.kill()
            raise failed(process.wait(), process.stderr.read())
        return line.removesuffix("\n")


KEPT = Indexer()
"""serve's worker's Node."""


def search_index(project: Path, pages: Pages, memo: Memo = NO_MEMO) -> SearchIndex:
    """Every chapter's sections indexed with the pinned MiniSearch of ``project``'s ``node_modules``.

    Search runs in the reader's browser with MiniSearch, from the npm package pinned in
    ``package.json``; the files we take from it must match the sha256 in ``search-pins.json``, as
    Pyodide's do. The build indexes every chapter's sections (``sitegen.search.text``) by running
    that same MiniSearch file under Node (``search_index.mjs``), with the options of
    ``search_terms.js``, which the page runs too: the index and the page's queries cut text into the
    same terms. The page then only loads the finished index (``MiniSearch.loadJS``), which is far
    quicker than indexing the book in the browser (docs/performance.md, "Search"). serve's ``memo``
    keeps the index by its documents, made by its worker's one Node (:data:`KEPT`).
    """
    library = load_library(project)
    terms = TERMS.read_text(encoding="utf-8")
    found = documents([page.sections for page in pages.pages])
    payload = json.dumps({"library": library, "terms": terms, "documents": found}, ensure_ascii=False)
    chapters = tuple(
        Chapter(page.source.meta.headline, page.source.meta.title, page.url, page.source.meta.slug)
        for page in pages.pages
    )
    index = memo.get("search", payload, functools.partial(KEPT.index, payload)) if memo.active else run_indexer(payload)
    return SearchIndex(library, terms, index, chapters)
