"""A cache folder keeps whole entries, and "newest" is never a tie."""

from __future__ import annotations

import os
from pathlib import Path

from sitegen.runtime.cache_entries import mark_newest, write_entry


def test_an_entry_marked_newest_is_dated_after_every_other_even_within_one_tick(tmp_path: Path) -> None:
    first, second = tmp_path / "a.zip", tmp_path / "b.zip"
    for path in (first, second):
        path.write_bytes(b"x")
    future = first.stat().st_mtime_ns + 10**12  # another entry dated ahead of the clock
    os.utime(first, ns=(future, future))
    mark_newest(second)
    assert second.stat().st_mtime_ns > first.stat().st_mtime_ns


def test_writing_keeps_the_newest_entries_of_the_same_kind_and_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not an entry")
    for number in range(4):
        write_entry(tmp_path / f"{number}.zip", lambda handle, n=number: handle.write(bytes([n])), 2)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["2.zip", "3.zip", "notes.txt"]
    assert (tmp_path / "3.zip").read_bytes() == b"\x03"
