"""Content errors and warnings as the build prints them: ``path:line: message``, a warning once."""

from __future__ import annotations

from sitegen.errors import ContentError, tallied


def test_a_warning_found_at_several_places_is_one_line_with_its_count_and_places() -> None:
    missing = "chapter 'harness' is not in this book; the link renders as plain text"
    unused = "no chapter links to this file or shows it, so the site leaves it out"
    found = [
        ContentError("content/b.md", 7, missing),
        ContentError("content/a.md", 12, missing),
        ContentError("content/a.md", 12, missing),  # twice on one line
        ContentError("content/a.md", 9, missing),
        ContentError("content/pic.png", 0, unused),
        ContentError("content/a.md", 3, "unknown language 'pyhton'"),
    ]
    assert tallied(found) == [
        "content/a.md:3: unknown language 'pyhton'",
        f"content/a.md:9: {missing} (4 times; also at content/a.md:12, content/b.md:7)",
        f"content/pic.png: {unused}",
    ]


def test_a_warning_repeated_at_one_place_is_counted_with_no_other_place() -> None:
    twice = [ContentError("content/a.md", 2, "m"), ContentError("content/a.md", 2, "m")]
    assert tallied(twice) == ["content/a.md:2: m (2 times)"]
    assert tallied([]) == []
