"""The book's files besides its chapters: which are assets, what they hold, and what is wrong with them."""

from __future__ import annotations

import base64
from pathlib import Path

from sitegen.book.assets import load_assets, media_type
from tests.sitegen.book.test_image_size import png


def test_every_file_but_chapters_settings_and_hidden_ones_is_an_asset(tmp_path: Path) -> None:
    content = tmp_path / "content"
    for name, data in {
        "01-one.md": b"---\n",
        "book.toml": b'title = "x"\n',
        "notes/draft.md": b"# a Markdown file in a folder is a download\n",
        "notes/read-me.txt": b"text\n",
        "img/square.png": png(12, 8),
        "img/rows.svg": b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 10"/>',
        "files/costs.csv": b"1,2\n",
        "files/blob": b"\x00\x01",
        ".DS_Store": b"",
        "img/.hidden.png": png(1, 1),
        ".git/config": b"",
    }.items():
        (content / name).parent.mkdir(parents=True, exist_ok=True)
        (content / name).write_bytes(data)
    assets = load_assets(content)
    assert assets.errors == ()
    assert "notes/draft.md" in assets.files  # its media type is the running Python's guess
    kinds = {path: (asset.media_type, asset.size) for path, asset in assets.files.items() if path != "notes/draft.md"}
    assert kinds == {
        "files/blob": ("application/octet-stream", None),
        "files/costs.csv": ("text/csv", None),
        "img/rows.svg": ("image/svg+xml", (30, 10)),
        "img/square.png": ("image/png", (12, 8)),
        "notes/read-me.txt": ("text/plain", None),
    }
    square = assets.files["img/square.png"]
    assert square.shown == "content/img/square.png"
    assert square.is_image and not assets.files["files/costs.csv"].is_image
    assert square.data_uri() == "data:image/png;base64," + base64.b64encode(png(12, 8)).decode()


def test_problems_are_reported_at_the_file_and_line(tmp_path: Path) -> None:
    content = tmp_path / "book"
    (content / "img").mkdir(parents=True)
    (content / "img" / "fake.png").write_bytes(b"GIF89a\x01\x00\x01\x00")
    (content / "img" / "bad.svg").write_bytes(
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1">\n<script/>\n</svg>'
    )
    errors = [str(error) for error in load_assets(content).errors]
    assert errors[0].startswith("book/img/bad.svg:2: the SVG holds a <script> element")
    assert errors[1] == "book/img/fake.png: not a PNG image (no PNG signature and IHDR header) (by its name, image/png)"


def test_types_come_from_the_name_the_same_on_every_machine() -> None:
    assert [media_type(name) for name in ("a.SVG", "b.webp", "c.JPG", "d.unknown-kind")] == [
        "image/svg+xml",
        "image/webp",
        "image/jpeg",
        "application/octet-stream",
    ]


def test_pages_and_scripts_of_the_book_are_refused_unread(tmp_path: Path) -> None:
    content = tmp_path / "content"
    (content / "files").mkdir(parents=True)
    for name in ("x.html", "y.HTM", "evil.js", "m.mjs", "feed.xml", "ok.txt"):
        (content / "files" / name).write_text("<script>document.title = 'ran'</script>\n")
    assets = load_assets(content)
    assert sorted(assets.files) == ["files/ok.txt"]
    assert sorted(assets.refused.values()) == [
        f"content/files/{name}" for name in ("evil.js", "feed.xml", "m.mjs", "x.html", "y.HTM")
    ]
    assert [(error.path, error.line) for error in assets.errors] == [
        (f"content/files/{name}", 0) for name in ("evil.js", "feed.xml", "m.mjs", "x.html", "y.HTM")
    ]
    assert assets.errors[0].message.startswith("a page or a script (.js) cannot be one of the book's files")
