"""Split bars: bars on one scale, each in two parts, the part reused (left) and the part paid (the
next-request lab's prefill, cold and cached). The two colours are under 3:1 against each other, so a
line of the background always parts them; each value is HTML text beside its bar (``bar-*`` classes).
"""

from __future__ import annotations

from collections.abc import Sequence

from kvpage.jsonvalue import JSONValue
from kvpage.pictures.basic import MOST_BARS, PictureError
from kvpage.tree import THIN, Attributes, Node, el, num


def split_bars(rows: Sequence[tuple[str, int, int, str]], top: int) -> list[JSONValue]:
    """One row per ``(name, reused, paid, shown)``: the name, a bar whose ``reused`` part (left) and
    ``paid`` part (after it) are as long as their values against ``top``, and ``shown`` (how the reader
    reads the bar's value). A ``top`` of 0 draws empty bars (nothing to pay, cold or cached)."""
    if not 1 <= len(rows) <= MOST_BARS:
        raise PictureError(f"split bars draw 1 to {MOST_BARS} bars, not {len(rows)}")
    drawn: list[JSONValue] = []
    for name, reused, paid, shown in rows:
        if reused < 0 or paid < 0 or reused + paid > max(top, 0):
            raise PictureError(f"bar {name!r}: {reused} reused and {paid} paid do not fit between 0 and {top}")
        left = 100 * reused / top if top > 0 else 0
        shapes: list[Node] = [el("rect", {"class": "bar-back", "x": 0, "y": 0, "width": 100, "height": 10, **THIN})]
        if reused:
            part: Attributes = {"class": "bar-reused", "data-value": reused, "x": 0, "y": 0, "width": num(left)}
            shapes.append(el("rect", part | {"height": 10}))
        fill: Attributes = {"class": "bar-fill", "data-value": paid, "x": num(left), "y": 0, "height": 10}
        shapes.append(el("rect", fill | {"width": num(100 * paid / top) if top > 0 else "0"}))
        if reused and paid:
            shapes.append(el("path", {"class": "bar-gap", "d": f"M{num(left)} 0V10", **THIN}))
        track = el(
            "svg",
            {"viewBox": "0 0 100 10", "class": "bar-track", "aria-hidden": "true", "preserveAspectRatio": "none"},
            *shapes,
        )
        parts: list[Node] = [el("span", {"class": "bar-name"}, name), track, el("span", {"class": "bar-value"}, shown)]
        drawn.append(el("div", {"class": "bar-row"}, *parts))
    return drawn
