"""The source stage: front matter and book.toml, each problem at its line, all collected."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from sitegen.book.source import Book, FrontMatter, load_book, load_source, parse_front_matter
from sitegen.labs.discovery import all_labs

FIRST_EXPERIMENTAL = min(name for name, lab in all_labs().items() if lab.experimental)
"""The lab the message gives as an example: the first of the experimental ones."""
TIMEOUT_MESSAGE = (
    "'call_timeout' must be a number of seconds from 1 to 600 "
    "(how long a lab's call to Python may take before the page stops it)"
)
BUILD_TIMEOUT_MESSAGE = (
    "'build_timeout' must be a number of seconds from 1 to 600 "
    "(how long a lab's call to the model may take before the build stops it)"
)
GOOD = '---\nnumber: 3\npart: The model\ntitle: "Cache: the sequel"\nslug: cache\n---\n\nText.\n'


def messages(path: str, text: str) -> list[str]:
    return [str(error) for error in parse_front_matter(path, text)[1]]


def test_front_matter_is_read_with_the_line_of_each_field() -> None:
    meta, errors = parse_front_matter("x.md", GOOD)
    assert errors == []
    assert meta == FrontMatter(3, "The model", "Cache: the sequel", "cache")
    assert meta is not None
    assert dict(meta.lines) == {"number": 2, "part": 3, "title": 4, "slug": 5}
    assert meta.headline == "03 · The model"


@pytest.mark.parametrize(
    ("number", "message"),
    [
        ("-1", "x.md:2: front matter 'number' must be a whole number, not '-1'"),
        ("3.5", "x.md:2: front matter 'number' must be a whole number, not '3.5'"),
        ("٣", "x.md:2: front matter 'number' must be a whole number, not '٣'"),
        ("", "x.md:2: front matter 'number' must be a whole number, not ''"),
    ],
)
def test_number_must_be_ascii_digits(number: str, message: str) -> None:
    assert messages("x.md", GOOD.replace("number: 3", f"number: {number}")) == [message]


@pytest.mark.parametrize("slug", ["Cache", "cache-", "-cache", "ca--che", "ca_che", "cache.html", "über"])
def test_bad_slugs(slug: str) -> None:
    assert messages("x.md", GOOD.replace("slug: cache", f"slug: {slug}")) == [
        f"x.md:5: front matter 'slug' must be lowercase letters, digits and dashes, not {slug!r}"
    ]


def test_every_problem_of_one_front_matter_is_reported() -> None:
    text = "---\nnumber: x\npart:\ntitle: T\ntitle: U\nslug: s\nextra: 1\n---\n"
    assert messages("x.md", text) == [
        "x.md:5: front matter field 'title' is given twice (first on line 4)",
        "x.md:7: unknown front matter field 'extra'; expected number, part, title, slug",
    ]
    # Once the lines are readable, the values are checked, all of them.
    assert messages("x.md", "---\nnumber: x\npart:\ntitle: T\nslug: S\n---\n") == [
        "x.md:2: front matter 'number' must be a whole number, not 'x'",
        "x.md:3: front matter 'part' is empty",
        "x.md:5: front matter 'slug' must be lowercase letters, digits and dashes, not 'S'",
    ]


def test_an_unreadable_line_is_a_yaml_error_at_its_line_and_nothing_else() -> None:
    text = "---\nnumber: 3\npart: P\ntitle Cache\nslug: cache\n---\n"
    assert messages("x.md", text) == [
        "x.md:4: front matter is not valid YAML: while scanning a simple key, "
        "could not find expected ':' (line 5, column 1)"
    ]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ('"Cache"', "Cache"),
        ("'Cache'", "Cache"),
        ("Cache  # a comment", "Cache"),
        ('"Cache: the sequel"', "Cache: the sequel"),
        ("Cache, 'quoted' inside", "Cache, 'quoted' inside"),
        ('"Tab\\there"', "Tab\there"),
        (">-\n  Folded\n  title", "Folded title"),
    ],
)
def test_values_are_yaml(title: str, expected: str) -> None:
    meta, errors = parse_front_matter("x.md", GOOD.replace('"Cache: the sequel"', title))
    assert errors == []
    assert meta is not None
    assert meta.title == expected
    assert meta.lines["slug"] == 5 + title.count("\n")


@pytest.mark.parametrize(
    ("front", "message"),
    [
        (
            "number: 3\ntitle: Cache: the sequel\n",
            "x.md:3: front matter is not valid YAML: mapping values are not allowed here (column 13); "
            "quote a value that holds ': ', as in title: \"Cache: the sequel\"",
        ),
        (
            'number: 3\ntitle: "Cache\nslug: cache\n',
            "x.md:3: front matter is not valid YAML: while scanning a quoted scalar, "
            "found unexpected end of stream (line 4, column 12)",
        ),
        (
            "number: 3\n  part: P\n",
            "x.md:3: front matter is not valid YAML: mapping values are not allowed here "
            "(column 7); quote a value that holds ': ', as in title: \"Cache: the sequel\"",
        ),
        ("\n\ntitle: *name\n", "x.md:4: front matter is not valid YAML: found undefined alias 'name' (column 8)"),
        (
            "number: 3\n\tpart: P\n",
            "x.md:3: front matter is not valid YAML: found character '\\t' that cannot start any token (column 1)",
        ),
    ],
)
def test_yaml_errors_name_the_files_line(front: str, message: str) -> None:
    assert messages("x.md", f"---\n{front}---\n\nBody.\n") == [message]


@pytest.mark.parametrize(
    ("front", "message"),
    [
        ("- number: 3\n- slug: s\n", "x.md:2: front matter must be fields, one 'key: value' a line, not a list"),
        (
            "\nJust a sentence.\n",
            "x.md:3: front matter must be fields, one 'key: value' a line, not 'Just a sentence.'",
        ),
    ],
)
def test_front_matter_must_be_a_mapping(front: str, message: str) -> None:
    assert messages("x.md", f"---\n{front}---\n") == [message]


def test_empty_front_matter_misses_every_field() -> None:
    assert messages("x.md", "---\n# only a comment\n---\n") == [
        f"x.md:1: front matter is missing {key!r}" for key in ("number", "part", "slug", "title")
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("number: three", "x.md:2: front matter 'number' must be a whole number, not 'three'"),
        ('number: "3"', "x.md:2: front matter 'number' must be a whole number, not '3' (drop the quotes)"),
        ("number: [3]", "x.md:2: front matter 'number' must be a whole number, not a list"),
        ("number: true", "x.md:2: front matter 'number' must be a whole number, not 'true'"),
        ("number: 0x10", "x.md:2: front matter 'number' must be a whole number, not '0x10'"),
        ("title: 2001", "x.md:4: front matter 'title' must be text, not '2001' (quote it: title: \"2001\")"),
        ("title: yes", "x.md:4: front matter 'title' must be text, not 'yes' (quote it: title: \"yes\")"),
        ("title: {a: b}", "x.md:4: front matter 'title' must be text, not a mapping"),
        ("part: [a, b]", "x.md:3: front matter 'part' must be text, not a list"),
        ("slug: 404", "x.md:5: front matter 'slug' must be text, not '404' (quote it: slug: \"404\")"),
        ("title: ''", "x.md:4: front matter 'title' is empty"),
    ],
)
def test_values_of_the_wrong_type(line: str, message: str) -> None:
    key = line.partition(":")[0]
    original = next(row for row in GOOD.splitlines() if row.startswith(f"{key}:"))
    assert messages("x.md", GOOD.replace(original, line)) == [message]


def test_number_is_read_in_base_ten() -> None:
    """YAML 1.1 reads ``010`` as octal; a chapter numbered 010 is chapter ten."""
    meta, _ = parse_front_matter("x.md", GOOD.replace("number: 3", "number: 010"))
    assert meta is not None
    assert meta.number == 10


@pytest.mark.parametrize(
    "opening",
    ["---", "---  ", "--- \t"],
)
def test_opening_line_may_have_trailing_blanks(opening: str) -> None:
    assert messages("x.md", GOOD.replace("---", opening, 1)) == []


@pytest.mark.parametrize(
    ("first", "message"),
    [
        (" ---", "x.md:1: missing front matter: the file must start with a '---' line"),
        ("# Title", "x.md:1: missing front matter: the file must start with a '---' line"),
        ("----", "x.md:1: front matter must open with a line '---' alone, not '----'"),
        ("---yaml", "x.md:1: front matter must open with a line '---' alone, not '---yaml'"),
    ],
)
def test_opening_line_must_be_three_dashes_alone(first: str, message: str) -> None:
    assert messages("x.md", GOOD.replace("---", first, 1)) == [message]


MARKDOWN = MarkdownIt("commonmark").use(front_matter_plugin)


@pytest.mark.parametrize("closing", ["---", "---   ", "----", "   ---", "...", "... "])
def test_front_matter_ends_where_markdown_it_ends_it(closing: str) -> None:
    """The body the Markdown stage renders starts right after the block the source stage read."""
    text = f"---\nnumber: 3\npart: P\ntitle: T\nslug: s\n{closing}\n\nBody.\n"
    assert messages("x.md", text) == []
    tokens = MARKDOWN.parse(text)
    assert tokens[0].type == "front_matter"
    assert tokens[0].map == [0, 6]


@pytest.mark.parametrize("not_closing", ["    ---", "\t---", "--", "- - -", "---x"])
def test_lines_markdown_it_does_not_take_as_the_end_do_not_end_it(not_closing: str) -> None:
    text = f"---\nnumber: 3\npart: P\ntitle: T\nslug: s\n{not_closing}\n\nBody.\n"
    assert messages("x.md", text) == ["x.md:1: front matter is not closed: add a '---' line after its last field"]
    assert MARKDOWN.parse(text)[0].type != "front_matter"


def write(folder: Path, files: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return folder


def chapter(number: int, slug: str, body: str = "Text.\n") -> str:
    return f"---\nnumber: {number}\npart: P\ntitle: T{number}\nslug: {slug}\n---\n\n{body}"


def test_chapters_are_ordered_by_number_then_file(tmp_path: Path) -> None:
    content = write(
        tmp_path / "content",
        {"a.md": chapter(2, "two"), "b.md": chapter(1, "one"), "c.md": chapter(1, "uno"), "notes.txt": "ignored"},
    )
    source = load_source(content)
    assert [item.path for item in source.chapters] == ["content/b.md", "content/c.md", "content/a.md"]
    assert source.errors == ()
    assert source.complete


def test_errors_of_every_file_are_collected_and_broken_chapters_kept_for_checking(tmp_path: Path) -> None:
    content = write(
        tmp_path / "content",
        {
            "a.md": chapter(1, "same"),
            "b.md": chapter(2, "same"),
            "c.md": "no front matter\n",
            "d.md": b"---\n\xff\n",
            "e.md": chapter(3, "fine"),
        },
    )
    source = load_source(content)
    assert [str(error) for error in source.errors] == [
        "content/b.md:5: slug 'same' is already used by content/a.md:5",
        "content/c.md:1: missing front matter: the file must start with a '---' line",
        "content/d.md:2: not UTF-8 text (invalid start byte at byte 4)",
    ]
    assert [item.path for item in source.chapters] == ["content/a.md", "content/e.md"]
    assert [item.path for item in source.unlisted] == ["content/b.md", "content/c.md"]
    assert not source.complete


def test_a_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    content = write(tmp_path / "content", {"a.md": "\ufeff" + chapter(1, "one")})
    source = load_source(content)
    assert source.errors == ()
    assert source.chapters[0].text.startswith("---\n")


def test_an_empty_book_is_an_error(tmp_path: Path) -> None:
    source = load_source(write(tmp_path / "content", {"book.toml": 'title = "x"\n'}))
    assert [str(error) for error in source.errors] == ["content: no chapters (*.md) found"]


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('title = "kvpage"\n', []),
        ("title = 3\n", ["book.toml:1: 'title' must be a non-empty string"]),
        ('# comment\ntitle = "  "\n', ["book.toml:2: 'title' must be a non-empty string"]),
        (
            '\n\ntitle = "x"\n[extra]\nkey = 1\n',
            [
                "book.toml:4: unknown field 'extra'; expected title, experimental_labs, call_timeout, build_timeout, "
                "sweep, hide_python, planned_chapters"
            ],
        ),
        (
            'title = "x"\nexperimental_labs = "square"\n',
            [f"book.toml:2: 'experimental_labs' must be a list of lab names, such as [\"{FIRST_EXPERIMENTAL}\"]"],
        ),
        (
            'title = "x"\nexperimental_labs = [1]\n',
            [f"book.toml:2: 'experimental_labs' must be a list of lab names, such as [\"{FIRST_EXPERIMENTAL}\"]"],
        ),
        *(
            (f'title = "x"\ncall_timeout = {shown}\n', [f"book.toml:2: {TIMEOUT_MESSAGE}, not {value!r}"])
            for shown, value in (("0.5", 0.5), ("601", 601), ('"5"', "5"), ("true", True), ("inf", float("inf")))
        ),
        *(
            (f'title = "x"\nbuild_timeout = {shown}\n', [f"book.toml:2: {BUILD_TIMEOUT_MESSAGE}, not {value!r}"])
            for shown, value in (("0", 0), ("601", 601), ('"10"', "10"), ("nan", float("nan")))
        ),
        ('title = "x"\ntitle = "y"\n', ["book.toml:2: not valid TOML: Cannot overwrite a value (column 12)"]),
        ('title = "x', ["book.toml:1: not valid TOML: Unterminated string (at the end of the file)"]),
    ],
)
def test_book_toml(tmp_path: Path, toml: str, expected: list[str]) -> None:
    (tmp_path / "book.toml").write_text(toml, encoding="utf-8")
    book, errors = load_book(tmp_path / "book.toml", "book.toml")
    assert [str(error) for error in errors] == expected
    assert (book is None) == bool(expected)
    if book is not None:
        assert book == Book("kvpage")


def test_a_book_may_set_how_long_a_labs_call_may_take(tmp_path: Path) -> None:
    (tmp_path / "book.toml").write_text('title = "x"\ncall_timeout = 2.5\n', encoding="utf-8")
    assert load_book(tmp_path / "book.toml", "book.toml") == (Book("x", call_timeout=2.5), [])
    assert Book("x").call_timeout == 5


def test_a_book_may_set_how_long_the_builds_model_calls_may_take(tmp_path: Path) -> None:
    (tmp_path / "book.toml").write_text('title = "x"\nbuild_timeout = 30\n', encoding="utf-8")
    assert load_book(tmp_path / "book.toml", "book.toml") == (Book("x", build_timeout=30), [])
    assert Book("x").build_timeout == 10


def test_a_book_may_turn_the_sweep_off_and_nothing_else_turns_it_off(tmp_path: Path) -> None:
    (tmp_path / "book.toml").write_text('title = "x"\nsweep = false\n', encoding="utf-8")
    assert load_book(tmp_path / "book.toml", "book.toml") == (Book("x", sweep=False), [])
    assert Book("x").sweep is True
    (tmp_path / "book.toml").write_text('title = "x"\nsweep = "no"\n', encoding="utf-8")
    assert [str(error) for error in load_book(tmp_path / "book.toml", "book.toml")[1]] == [
        "book.toml:2: 'sweep' must be true or false (whether the build tries every lab's values), not 'no'"
    ]


def test_a_book_may_enable_the_experimental_lab(tmp_path: Path) -> None:
    (tmp_path / "book.toml").write_text('title = "x"\nexperimental_labs = ["square"]\n', encoding="utf-8")
    assert load_book(tmp_path / "book.toml", "book.toml") == (Book("x", experimental_labs=("square",)), [])


def test_a_book_may_hide_a_labs_python(tmp_path: Path) -> None:
    (tmp_path / "book.toml").write_text('title = "x"\nhide_python = ["next-request"]\n', encoding="utf-8")
    assert load_book(tmp_path / "book.toml", "book.toml") == (Book("x", hide_python=("next-request",)), [])
    assert Book("x").hide_python == ()


def test_missing_book_toml_names_the_file_without_a_line(tmp_path: Path) -> None:
    book, errors = load_book(tmp_path / "book.toml", "content/book.toml")
    assert book is None
    assert [str(error) for error in errors] == ['content/book.toml: missing; it names the book (title = "...")']
