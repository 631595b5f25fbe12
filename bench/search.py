#!/usr/bin/env python3
"""How big the search index is and how fast search answers: this book, and a generated 50-chapter one.

    .venv/bin/python bench/search.py                  # 5 cold runs in Chromium, 50 chapters
    .venv/bin/python bench/search.py --runs 3 --chapters 100
    .venv/bin/python bench/search.py --quick          # one run, 5 chapters: the test suite's smoke run

It builds this book (``content/``) and a generated one with the real pipeline (``build.py``'s
``build``), then reports:

- bytes of ``search/index.js`` (the script a page loads for search: MiniSearch, the terms, and the
  book's index with every section's text), raw and gzip -9, for both books; what shipping the
  sections alone would weigh (the index made in the browser instead); the book's words and terms;
- how long the build's search stage takes for the generated book (Node running MiniSearch);
- in Chromium, over http, on the generated book's middle chapter, in a fresh browser context per
  run: from focusing the box (which loads the index) and typing at once to the first results,
  then every keystroke of a few
  queries typed letter by letter and erased again, from the trusted key event to the results
  changed in the DOM and laid out (``bench/search_keys.js``; the goal is ≤ 50 ms at 50 chapters);
- in the same page, what loading the finished index costs (``MiniSearch.loadJS``) against
  indexing the same sections in the browser (``addAll``), which is why the index is made at build
  time.

The generated book is made of this project's own prose (README.md, docs/authoring.md, the
chapter): each sentence draws its words from those texts' own word frequencies, and each chapter
adds terms of its own (made-up names and identifiers, as a technical book has), so that its
vocabulary grows with its length as a real book's does. ``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from serving import serve  # noqa: E402  (bench/serving.py: the site on 127.0.0.1 at a free port)

from sitegen import pipeline  # noqa: E402
from sitegen.search import index as search_index  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
CORPUS = ("README.md", "docs/authoring.md", "content/03-cache.md", "tests/fixtures/seed-cache-chapter.txt")
"""The project's own prose, whose words and their frequencies the generated book uses."""
WORDS_PER_CHAPTER = 3000
OWN_TERMS = 200
"""Terms each generated chapter adds to the book (a new name or identifier is 8 % of its words)."""
SECTIONS = 8
WORD = re.compile(r"[A-Za-z][a-z]+")
SYLLABLES = ("ka", "ve", "lo", "mi", "tra", "nor", "pe", "si", "qu", "den", "ar", "ot", "ul", "ex", "zo", "fin")
TIMEOUT_MS = 60_000


GENERATED = re.compile(r"<!-- figures:([a-z0-9-]+):begin .*?<!-- figures:\1:end -->", re.DOTALL)
"""A block of figures (bench/figures_blocks.py): left out, so the book stays the same when they change."""


def corpus_words() -> Counter[str]:
    """Every word of the project's prose, lower-cased, with how often it appears."""
    text = " ".join(GENERATED.sub("", (ROOT / name).read_text(encoding="utf-8")) for name in CORPUS)
    return Counter(word.lower() for word in WORD.findall(text))


def made_up_terms(rng: random.Random, count: int, used: set[str]) -> list[str]:
    """``count`` new made-up words, none of them in ``used`` (which they join)."""
    found: list[str] = []
    while len(found) < count:
        term = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(3, 4)))
        if term not in used:
            used.add(term)
            found.append(term)
    return sorted(found)


def sentence(rng: random.Random, words: list[str], weights: list[int], own: list[str]) -> str:
    picked = rng.choices(words, weights, k=rng.randint(8, 20))
    picked = [rng.choice(own) if rng.random() < 0.08 else word for word in picked]
    return " ".join(picked).capitalize() + "."


def generate_book(folder: Path, chapters: int, seed: int = 20) -> dict[str, Any]:
    """A book of ``chapters`` chapters in ``folder`` (book.toml, NN-chapter-N.md); what it holds."""
    rng = random.Random(seed)
    counts = corpus_words()
    words, weights = list(counts), list(counts.values())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "book.toml").write_text('title = "A generated book"\n', encoding="utf-8")
    queries: list[str] = []
    used = set(words)
    for number in range(1, chapters + 1):
        own = made_up_terms(rng, OWN_TERMS, used)
        lines = ["---", f"number: {number}", "part: Generated", f"title: Chapter {number}", f"slug: chapter-{number}"]
        lines += ["---", "", " ".join(sentence(rng, words, weights, own) for _ in range(4)), ""]
        per_section = WORDS_PER_CHAPTER // SECTIONS
        for section in range(SECTIONS):
            lines += [f"## {' '.join(rng.choices(words, weights, k=3)).capitalize()} {section + 1}", ""]
            written = 0
            while written < per_section:
                paragraph = " ".join(sentence(rng, words, weights, own) for _ in range(rng.randint(3, 6)))
                written += paragraph.count(" ") + 1
                lines += [paragraph, ""]
                if rng.random() < 0.15:
                    lines += [f"### {' '.join(rng.choices(words, weights, k=2)).capitalize()}", ""]
            lines += ["::: keep", f"**Keep this:** {sentence(rng, words, weights, own)}", ":::", ""]
        text = "\n".join(lines)
        (folder / f"{number:02d}-chapter-{number}.md").write_text(text, encoding="utf-8")
        if number == (chapters + 1) // 2:
            in_text = set(WORD.findall(text.lower()))
            queries = queries_for([term for term in own if term in in_text], counts)
    return {"chapters": chapters, "queries": queries}


def queries_for(own: list[str], counts: Counter[str]) -> list[str]:
    """What the bench types: the book's most frequent word of six letters or more; one of the
    chapter's own terms (``own``: those its text uses); the most frequent word, whose first letters
    are the prefixes with the most terms, then another own term; and a long own term misspelt."""
    frequent = [word for word, _ in counts.most_common()]
    common = next(word for word in frequent if len(word) >= 6)
    long_word = max(own, key=len)
    typo = long_word[:2] + long_word[3] + long_word[2] + long_word[4:]
    return [common, own[0], f"{frequent[0]} {own[1]}", typo]


def built_book(content: Path, out: Path) -> dict[str, Any]:
    """Build ``content`` into ``out``; the sizes of its search script, its words, its search stage's time."""
    options = pipeline.Options(content=content, out=out / "site", dist=out / "dist")
    pipeline.build(options)
    rendered = pipeline.render(options)
    search_index.run_indexer.cache_clear()
    started = time.perf_counter()
    index = search_index.search_index(ROOT, rendered.pages)
    seconds = time.perf_counter() - started
    script = (options.out / search_index.SCRIPT).read_bytes()
    library = search_index.load_library(ROOT).encode("utf-8")
    sections = [section for page in rendered.pages.pages for section in page.sections]
    documents = json.dumps(search_index.documents([page.sections for page in rendered.pages.pages]))
    text = " ".join(f"{section.heading} {section.text}" for section in sections)
    return {
        "chapters": len(rendered.pages.pages),
        "sections": len(sections),
        "words": len(text.split()),
        "terms": len(json.loads(index.index)["index"]),
        "text_bytes": len(text.encode("utf-8")),
        "script_bytes": len(script),
        "script_gzip_bytes": len(gzip.compress(script, 9)),
        "library_bytes": len(library),
        "library_gzip_bytes": len(gzip.compress(library, 9)),
        "documents_only_bytes": len(documents.encode("utf-8")),
        "documents_only_gzip_bytes": len(gzip.compress(documents.encode("utf-8"), 9)),
        "index_seconds": round(seconds, 3),
        "site": str(options.out),
    }


INDEX_COSTS = """() => {
  const data = globalThis.kvpageSearchData, terms = globalThis.kvpageSearchTerms;
  const documents = Object.entries(data.index.storedFields).map(
    ([short, fields]) => ({ id: data.index.documentIds[short], ...fields }));
  let started = performance.now();
  MiniSearch.loadJS(data.index, terms.options);
  const load = performance.now() - started;
  started = performance.now();
  new MiniSearch(terms.options).addAll(documents);
  return { load_ms: load, index_in_browser_ms: performance.now() - started };
}"""


def measure(browser: Any, url: str, queries: list[str]) -> dict[str, Any]:
    """One cold page: the first keystroke, every keystroke after it, and the two ways to get an index."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.add_init_script(path=str(HERE / "search_keys.js"))
        page.goto(url)
        box = page.get_by_role("combobox", name="Search the book")
        box.focus()
        done = 0
        for query in queries:
            for key in [*query, *["Backspace"] * len(query)]:
                box.press(key)
                done += 1
                page.evaluate("count => globalThis.__searchBench.until(count)", done)
        samples = page.evaluate("globalThis.__searchBench.samples")
        costs = page.evaluate(INDEX_COSTS)
    finally:
        context.close()
    first, *rest = samples
    return {"first_results_ms": first["since_focus"], "keystroke_ms": [sample["ms"] for sample in rest], **costs}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def kb(value: int) -> str:
    return f"{value / 1000:,.1f} kB"


def report(found: dict[str, Any]) -> str:
    lines = []
    for name, book in found["books"].items():
        lines.append(
            f"{name}: {book['chapters']} chapters, {book['sections']} sections, {book['words']:,} words, "
            f"{book['terms']:,} terms; search/index.js {kb(book['script_bytes'])} "
            f"(gzip {kb(book['script_gzip_bytes'])}), of which MiniSearch {kb(book['library_bytes'])}; "
            f"sections alone {kb(book['documents_only_bytes'])}; search stage {book['index_seconds']:.2f} s"
        )
    runs = found["runs"]
    keys = [value for run in runs for value in run["keystroke_ms"]]
    lines.append(
        f"keystrokes ({len(keys)} over {len(runs)} runs): p50 {percentile(keys, 0.5):.1f} ms, "
        f"p95 {percentile(keys, 0.95):.1f} ms, max {max(keys):.1f} ms"
    )
    first = statistics.median(run["first_results_ms"] for run in runs)
    lines.append(f"focus → first results (the index loads on focus): median {first:.1f} ms")
    lines.append(
        f"loadJS median {statistics.median(r['load_ms'] for r in runs):.1f} ms; indexing in the browser "
        f"median {statistics.median(r['index_in_browser_ms'] for r in runs):.1f} ms"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="cold page loads in Chromium (default 5)")
    parser.add_argument("--chapters", type=int, default=50, help="chapters of the generated book (default 50)")
    parser.add_argument("--quick", action="store_true", help="one run, 5 chapters: a smoke test of the harness")
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args(argv)
    runs, chapters = (1, 5) if args.quick else (args.runs, args.chapters)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="kvpage-search-bench-") as tmp:
        work = Path(tmp)
        generated = generate_book(work / "generated", chapters)
        books = {
            "this book": built_book(ROOT / "content", work / "this"),
            f"generated, {chapters} chapters": built_book(work / "generated", work / "built"),
        }
        site = Path(books[f"generated, {chapters} chapters"]["site"])
        middle = (chapters + 1) // 2
        measured = []
        with serve(site) as base, sync_playwright() as playwright:
            launch: dict[str, Any] = {"args": LAUNCH_ARGS}
            if CHROMIUM.exists():
                launch["executable_path"] = str(CHROMIUM)
            browser = playwright.chromium.launch(**launch)
            for run in range(runs):
                measured.append(measure(browser, f"{base}chapter-{middle}.html", generated["queries"]))
                print(f"run {run + 1}/{runs}: first results {measured[-1]['first_results_ms']:.1f} ms", file=sys.stderr)
            version = browser.version
            browser.close()
    for book in books.values():
        del book["site"]
    found = {"browser": f"Chromium {version}", "queries": generated["queries"], "books": books, "runs": measured}
    print(report(found))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
