"""bench/search.py's generated book: the same book each time, a real book to the build, its queries its own.

No timing is measured or asserted here (the figures come from bench/figures.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

from sitegen import pipeline
from tests.conftest import ROOT, book_chapters

sys.path.insert(0, str(ROOT / "bench"))

import search


def test_the_generated_book_is_the_same_each_time_and_builds(tmp_path: Path) -> None:
    made = search.generate_book(tmp_path / "a", 3)
    again = search.generate_book(tmp_path / "b", 3)
    assert made == again
    for path in sorted((tmp_path / "a").iterdir()):
        assert path.read_text(encoding="utf-8") == (tmp_path / "b" / path.name).read_text(encoding="utf-8")
    chapters = book_chapters(tmp_path / "a")
    assert [chapter.meta.slug for chapter in chapters] == ["chapter-1", "chapter-2", "chapter-3"]
    rendered = pipeline.render(pipeline.Options(content=tmp_path / "a", out=tmp_path / "site", dist=tmp_path / "dist"))
    middle = rendered.pages.pages[1]
    words = {word.lower() for section in middle.sections for word in f"{section.heading} {section.text}".split()}
    words = {word.strip(".") for word in words}
    common, own, two, typo = made["queries"]
    assert {common, own, *two.split()} <= words, "every query is words of the chapter the bench opens"
    assert typo not in words and len(typo) >= 5


def test_each_chapter_adds_words_of_its_own(tmp_path: Path) -> None:
    search.generate_book(tmp_path, 2)
    first, second = (set(path.read_text(encoding="utf-8").lower().split()) for path in sorted(tmp_path.glob("*.md")))
    assert len(second - first) > search.OWN_TERMS / 2


def test_the_docs_figures_are_not_words_of_the_book() -> None:
    """The corpus leaves the generated blocks out: new figures must not make a new book."""
    sample = "before\n<!-- figures:search:begin — x -->\n| 95.1 kB | keystrokes |\n<!-- figures:search:end -->\nafter"
    assert search.GENERATED.sub("", sample) == "before\n\nafter"
