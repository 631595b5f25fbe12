"""The whole pipeline on the real chapter: every seed sentence and figure is on the page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import build
from tests.conftest import ROOT, Built
from tests.pagetext import visible_text

SEED = (ROOT / "tests" / "fixtures" / "seed-cache-chapter.txt").read_text(encoding="utf-8")

SYSTEM = "You are a precise assistant. Answer briefly User:"

# Lines of the seed that are lab readouts: on the page they are a label and an
# <output>, so they are checked as label + value rather than as one string.
READOUTS = {
    "This step: —": ("This step", "—"),
    "Paid so far: 0": ("Paid so far", "0"),
    "If every step recomputed: 256": ("If every step recomputed", "256"),
    "Shared prefix 10 / 14 · hit through “:”": ("Shared prefix", "10 / 14 · hit through “:”"),
    "Cold prefill: 196": ("Cold prefill", "196"),
    "With prefix cache: 96": ("With prefix cache", "96"),
    "1 · You are a precise assistant. Answer briefly User: 2+2?": ("Request 1", f"{SYSTEM} 2+2?"),
    "2 · You are a precise assistant. Answer briefly User: 3+3?": ("Request 2", f"{SYSTEM} 3+3?"),
}


def seed_lines() -> list[str]:
    return [line.strip() for line in SEED.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def chapter(built: Built) -> str:
    return built.files["cache.html"].decode("utf-8")


def test_every_seed_line_is_on_the_page_in_order(chapter: str) -> None:
    text = visible_text(chapter)
    position = 0
    for line in seed_lines():
        if line in READOUTS:
            label, value = READOUTS[line]
            found = text.find(f"{label} {value}", position)
        else:
            found = text.find(line, position)
        assert found >= 0, f"seed line missing or out of order: {line!r}"
        position = found


def test_readouts_are_outputs_labelled_exactly(chapter: str) -> None:
    for label, value in READOUTS.values():
        control = rf'<(?:output|textarea) id="\1"[^>]*>{re.escape(value)}</'
        pattern = rf'<label for="([^"]+)">{re.escape(label)}</label>\s*{control}'
        assert re.search(pattern, chapter), f"no control labelled {label!r} showing {value!r}"


def test_labs_are_regions_named_by_their_heading(chapter: str) -> None:
    for title in ("Lab · prefill once, then decode", "Lab · the next request"):
        match = re.search(rf'<h2 id="([^"]+)">{re.escape(title)}</h2>', chapter)
        assert match, title
        assert '<section class="lab' in chapter
        assert f'aria-labelledby="{match.group(1)}"' in chapter


def test_controls_start_disabled_until_python_runs(chapter: str) -> None:
    for name in ("Generate", "Step", "Reset"):
        assert re.search(rf"<button [^>]*disabled>{name}</button>", chapter)
    assert "Python has not started yet" in chapter


def test_missing_chapter_link_is_plain_text(chapter: str) -> None:
    assert "Compaction (harness chapter) is what you do" in visible_text(chapter)
    assert "chapter:harness" not in chapter


def test_front_matter_makes_the_headline_and_title(chapter: str) -> None:
    assert re.search(r'<p class="kicker">03 · The model</p>\s*<h1>Cache</h1>', chapter)
    assert "<title>Cache · 03 · The model · kvpage</title>" in chapter


def test_site_layout(built: Built) -> None:
    names = set(built.files)
    assert {"index.html", "cache.html", "static/kvpage.js", "static/kvpage.css"} <= names
    assert {"pyodide/pyodide.js", "pyodide/pyodide.asm.js", "pyodide/pyodide-lock.json"} <= names
    for binary in ("pyodide.asm.wasm", "python.snapshot", "python_stdlib.zip"):
        assert {f"pyodide/{binary}", f"pyodide/{binary}.js"} <= names  # fetched over http, scripts from disk
    assert all((built.site / name).read_bytes() == data for name, data in built.files.items())


def test_index_lists_the_chapter(built: Built) -> None:
    index = built.files["index.html"].decode("utf-8")
    assert '<a href="cache.html">' in index
    assert "03 · The model" in visible_text(index)


def test_strict_mode_refuses_the_missing_chapter_link(tmp_path: Path) -> None:
    with pytest.raises(build.BuildError, match=r"content/03-cache\.md:\d+: chapter 'harness' is not in this book"):
        build.build(build.Options(out=tmp_path / "site", dist=tmp_path / "dist", strict=True))
    assert not (tmp_path / "site").exists()


def test_command_line_reports_success(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert build.main(["--out", str(tmp_path / "site"), "--dist", str(tmp_path / "dist")]) == 0
    assert "built" in capsys.readouterr().out
