"""serve's watcher: what changed since the last look, and how the open page takes it."""

from __future__ import annotations

from pathlib import Path

from sitegen.serve.watcher import Watcher, change_kind, changed_names, touches_code


def test_what_changed_says_how_the_open_page_takes_the_build(tmp_path: Path) -> None:
    model = tmp_path / "kvpage"
    assert change_kind([model / "labs" / "decode.py", model / "costs.py"], model) == "model"
    assert change_kind([tmp_path / "site_template" / "static" / "kvpage.css"], model) == "css"
    assert change_kind([model / "costs.py", tmp_path / "content" / "03-cache.md"], model) == "page"
    assert change_kind([tmp_path / "content" / "03-cache.md"], model) == "page"


def test_the_watcher_sees_added_changed_and_removed_files_but_not_editor_droppings(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("a", encoding="utf-8")
    watcher = Watcher([tmp_path])
    assert watcher.changes() == []
    (tmp_path / "a.md").write_text("a changed", encoding="utf-8")
    (tmp_path / "b.md").write_text("b", encoding="utf-8")
    assert watcher.changes() == [tmp_path / "a.md", tmp_path / "b.md"]
    (tmp_path / "b.md").unlink()
    assert watcher.changes() == [tmp_path / "b.md"]
    (tmp_path / ".a.md.swp").write_text("x", encoding="utf-8")
    (tmp_path / "a.md~").write_text("x", encoding="utf-8")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
    assert watcher.changes() == []


def test_the_terminal_names_the_first_three_changes_relative_to_the_project(tmp_path: Path) -> None:
    changed = [tmp_path / "content" / f"{n}.md" for n in range(4)]
    assert changed_names(changed[:1], tmp_path) == "content/0.md"
    assert changed_names(changed, tmp_path) == "content/0.md, content/1.md, content/2.md …"
    assert changed_names([Path("/elsewhere/x.md")], tmp_path) == "/elsewhere/x.md"


def test_a_change_under_the_code_or_to_a_code_file_restarts_the_builder(tmp_path: Path) -> None:
    code = [tmp_path / "kvpage", tmp_path / "build.py"]
    assert touches_code([tmp_path / "kvpage" / "costs.py"], code)
    assert touches_code([tmp_path / "build.py"], code)
    assert not touches_code([tmp_path / "content" / "a.md"], code)
