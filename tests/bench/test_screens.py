"""bench/screens.py: the before/after page that sets each picture of an older page beside this one's."""

from __future__ import annotations

import html
import sys
from pathlib import Path

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import screens


def test_each_picture_is_beside_its_older_one_and_a_state_the_old_page_lacks_says_why(tmp_path: Path) -> None:
    names = screens.pictures()
    back = "decode-back-360-light"
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
        for name in names:
            if not (side == "before" and name.startswith("decode-back-")):
                (tmp_path / side / f"{name}.png").write_bytes(b"")
    skipped = [f"{name}: no step slider" for name in names if name.startswith("decode-back-")]
    page = screens.compare(tmp_path, "87ffac3", skipped).read_text(encoding="utf-8")
    assert len(names) == len(set(names)) == (2 + len(screens.STATES)) * len(screens.SCREENS) * 2
    for name in names:
        assert f'src="after/{name}.png"' in page
        assert (f'src="before/{name}.png"' in page) != name.startswith("decode-back-")
    assert "<td>not taken: no step slider</td>" in page
    assert f"<li>{html.escape(f'{back}: no step slider')}</li>" in page
    assert page.index("cache-first-360-light") < page.index("next-one-letter-1280-dark")


def test_first_screens_only_compares_first_screens(tmp_path: Path) -> None:
    """``--first-only`` takes no lab state: the page lists none as missing."""
    for side in ("before", "after"):
        (tmp_path / side).mkdir()
    page = screens.compare(tmp_path, "87ffac3", [], first_only=True).read_text(encoding="utf-8")
    assert "cache-first-360-light" in page
    assert not any(state in page for state in screens.STATES)
