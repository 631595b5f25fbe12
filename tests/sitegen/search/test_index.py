"""The search index: MiniSearch pinned and checked, the book indexed by it under Node, one script.

The script is run here as the page runs it (Node's ``vm``, as a classic script): every section is
found by its own words and links to its heading, in the site and in the single file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sitegen import pipeline
from sitegen.errors import BuildError
from sitegen.runtime.npm import declared_version
from sitegen.search import index as search_index
from sitegen.search.text import Section
from sitegen.site.assemble import inline_script
from tests.conftest import ROOT

BOOK = ROOT / "tests" / "books" / "two-chapters" / "content"
PACKAGE = ROOT / "node_modules" / "minisearch"

SEARCH = r"""// As a module: a CommonJS "node -e" has a global `module`, and MiniSearch's UMD would export there.
import vm from "node:vm";
import { readFileSync } from "node:fs";
const [script, query] = JSON.parse(readFileSync(0, "utf8"));
vm.runInThisContext(script);
const data = globalThis.kvpageSearchData, terms = globalThis.kvpageSearchTerms;
const index = MiniSearch.loadJS(data.index, terms.options);
const found = index.search(query, { combineWith: "AND", prefix: true }).map((result) => {
  const chapter = data.chapters[result.c];
  return { href: result.a ? chapter.anchor + result.a : chapter.page, heading: result.h, text: result.t };
});
process.stdout.write(JSON.stringify(found));
"""


def search(script: bytes, query: str) -> list[dict[str, Any]]:
    """What the page's MiniSearch finds for ``query`` in ``script`` (AND, prefix), best first."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", SEARCH],
        input=json.dumps([script.decode("utf-8"), query]),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = json.loads(done.stdout)
    return found


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> pipeline.Rendered:
    out = tmp_path_factory.mktemp("search")
    return pipeline.render(pipeline.Options(content=BOOK, out=out / "site", dist=out / "dist"))


def test_every_section_is_found_by_its_heading_and_links_to_it(rendered: pipeline.Rendered) -> None:
    site, single = rendered.search.script(), rendered.search.script(single_file=True)
    for page in rendered.pages.pages:
        slug = page.source.meta.slug
        for section in page.sections:
            for script, href in (
                (site, f"{page.url}#{section.anchor}" if section.anchor else page.url),
                (single, f"#{slug}--{section.anchor}" if section.anchor else f"#{slug}"),
            ):
                found = search(script, section.heading)
                assert {"href": href, "heading": section.heading, "text": section.text} in found, (section, found)


def test_the_site_ships_the_script_and_its_pages_link_it(rendered: pipeline.Rendered) -> None:
    assert rendered.site.files[search_index.SCRIPT] == rendered.search.script()
    assert f'data-index="{search_index.SCRIPT}"'.encode() in rendered.site.files["first.html"]


def test_terms_ignore_case_and_accents_and_the_query_is_cut_the_same_way(rendered: pipeline.Rendered) -> None:
    index = replace(rendered.search, index=indexed([Section("x", "Précis", "Naïve ÉCOLE n² time-to-first-token")]))
    script = index.script()
    for query in ("precis", "PRÉCIS", "naive ecole", "n2", "n²", "time to first", "first-token"):
        assert [result["heading"] for result in search(script, query)] == ["Précis"], query
    assert search(script, "naïveté") == []


def indexed(sections: list[Section]) -> str:
    search_index.run_indexer.cache_clear()
    library = search_index.load_library(ROOT)
    terms = search_index.TERMS.read_text(encoding="utf-8")
    documents = search_index.documents([sections])
    return search_index.run_indexer(json.dumps({"library": library, "terms": terms, "documents": documents}))


def test_hostile_text_in_a_chapter_stays_data_and_the_script_can_be_inline(rendered: pipeline.Rendered) -> None:
    hostile = "</script><!-- '\\' \u2028 \u2029 \\u003c ${x} `y`"
    index = replace(rendered.search, index=indexed([Section("x", "Hostile", hostile)]))
    script = index.script(single_file=True)
    inline_script(script, search_index.SCRIPT)  # refuses '</script' and '<!--'
    assert search(script, "hostile")[0]["text"] == hostile


def test_the_same_sections_give_the_same_bytes(rendered: pipeline.Rendered) -> None:
    """Node is run afresh each time (the cache cleared): the build stays reproducible."""
    sections = [section for page in rendered.pages.pages for section in page.sections]
    assert indexed(sections) == indexed(sections)


def test_the_library_carries_its_license_and_no_source_map() -> None:
    library = search_index.load_library(ROOT)
    assert library.startswith(f"/*! MiniSearch {declared_version(ROOT, 'minisearch')} ")
    assert "Permission is hereby granted" in library.split("*/", 1)[0]
    assert "sourceMappingURL" not in library


def test_a_changed_minisearch_file_fails_the_build(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PACKAGE, project / "node_modules" / "minisearch")
    code = project / "node_modules" / "minisearch" / search_index.LIBRARY
    code.write_text(code.read_text(encoding="utf-8").replace("'use strict';", "'use strict'; globalThis.x = 1;", 1))
    shutil.copy(ROOT / "package.json", project / "package.json")
    with pytest.raises(BuildError, match=r"index\.js: sha256 [0-9a-f]{64} does not match the pinned"):
        search_index.load_library(project)


def test_missing_minisearch_says_how_to_install_it(tmp_path: Path) -> None:
    shutil.copy(ROOT / "package.json", tmp_path / "package.json")
    with pytest.raises(BuildError, match=r"MiniSearch is not installed; run 'npm ci'"):
        search_index.load_library(tmp_path)


def test_a_failing_indexer_fails_the_build_with_what_node_said() -> None:
    search_index.run_indexer.cache_clear()
    with pytest.raises(BuildError, match=r"(?s)search_index\.mjs: indexing the book failed \(1\): .*SyntaxError"):
        search_index.run_indexer("not json")
