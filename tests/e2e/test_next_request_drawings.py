"""The next-request lab's why and how much, in Chromium (issue 45, points 1, 2 and 7).

*Why*: request 2's keys and values by token and layer; *how much*: request 2's cells as one square,
the reused corner and the paid L. Each is read as drawn (the cells' kinds and counts from their
data attributes, every word from the DOM) and compared with the model run in CPython on the requests
the page holds (``tests/chapter_labs.py``): the chapter's, then after one letter changed, then a
line break in front, which moves every token one position on; and after the reader edits the rule
(kvpage/prefix.py) in the lab's Python disclosure, as the edited model computes it, readouts and
drawings together. The figures are found by their role and their caption, which is the model's text.

What the lab draws, and what an edit of its rule redraws, is its script drawing the model's answer
into elements it finds within its lab, by no id: the same in either document, so those tests run
over http (each fresh page restores Python, about 2 CPU-s, and a Run another: issue 47). What only
the stylesheet decides runs on the single file (``STYLED_BY_CSS_ONLY``), on one page
(``one_page``), each test from a link that sets the labs it reads (``follow_link``): every word of
both drawings at least 11 CSS px and inside the lab at 360, 768 and 1280 px; one colour per meaning
across both labs (reused or kept, paid, the first difference), light and dark, every mark 3:1
against the lab and against the line parting it from a neighbour of another kind. Those read the
drawings the single file's labs drew, so a lab that drew nothing there fails them; its prefixed ids
are axe-core's and the keyboard's (test_accessibility.py), the next-request lab's editor in it
test_reader.py's.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from kvpage.labs import next_request
from tests.chapter_labs import (
    DECODE,
    NEXT,
    chapter_run,
    compared,
    drawn_part,
    drawn_words,
    layer_rows,
    one_letter_changed,
    square_cells,
)
from tests.e2e.conftest import STYLED_BY_CSS_ONLY, follow_link, lab_link
from tests.e2e.test_figure import contrast
from tests.e2e.test_lab_contrast import GRAPHICS, TEXT, check_marks
from tests.e2e.test_labs import REQUEST_1, REQUEST_2, expect_readouts, expect_run, open_chapter
from tests.e2e.test_reader import request_of
from tests.reader_model import ROOT, edited_views

pytestmark = pytest.mark.e2e
over_http = pytest.mark.parametrize("site_url", ["http"], indirect=True)
styled_by_css_only = pytest.mark.parametrize("one_page", STYLED_BY_CSS_ONLY, indirect=True)

DRAWN = """part => {
  const words = [];
  const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) if (walker.currentNode.textContent.trim()) words.push(walker.currentNode.textContent);
  const runs = (svg) => [...svg.querySelectorAll("rect[data-kind]")].map((rect) => [rect.dataset.kind,
    Number(rect.dataset.from ?? 0), Number(rect.dataset.count ?? 0), Number(rect.dataset.value ?? 0)]);
  const all = (selector) => [...part.querySelectorAll(selector)].map(runs);
  return { words, rows: all(".lay-row"), square: all(".sq-plot") };
}"""
"""A drawing as the page shows it: its words in document order, each layer's runs of cells
(kind, first token, tokens) and the square's rectangles (kind, cells)."""


def figure(lab: Locator, words: str) -> Locator:
    """A figure of the lab, by its caption (the model's words for it)."""
    found = lab.get_by_role("figure", name=words)
    expect(found).to_be_visible()
    return found


def drawn(figure: Locator, part: str) -> dict[str, Any]:
    found: dict[str, Any] = figure.locator(f"[data-part={part}]").evaluate(DRAWN)
    return found


def expand(runs: list[list[Any]]) -> list[str]:
    """A layer's kinds, one per token, from its runs of cells (each starting where the last ended)."""
    kinds: list[str] = []
    for kind, start, length, _ in runs:
        assert start == len(kinds) + 1, runs
        kinds += [kind] * length
    return kinds


def drawings_are_the_models(lab: Locator, request2: str) -> None:
    """Both drawings, cell for cell and word for word, are the model's for the chapter's request 1 and ``request2``."""
    expect_readouts(lab, next_request.LAB, compared(request2=request2))
    layers = drawn(figure(lab, compared(request2=request2)["layers_words"]), "layers")
    assert [expand(row) for row in layers["rows"]] == layer_rows(request2=request2)
    assert layers["words"] == drawn_words(drawn_part("layers", request2=request2))
    square = drawn(figure(lab, compared(request2=request2)["square_words"]), "square")
    (cells,) = square["square"]
    sums = {kind: sum(value for k, _, _, value in cells if k == kind) for kind in ("reused", "paid")}
    assert sums == square_cells(request2=request2)
    assert square["words"] == drawn_words(drawn_part("square", request2=request2))


@over_http
def test_the_drawings_are_the_models_for_the_chapters_requests_one_letter_changed_and_a_shift(
    audited: tuple[Page, str],
) -> None:
    page, url = audited
    _, lab = open_chapter(page, url)
    drawings_are_the_models(lab, REQUEST_2)
    edited = one_letter_changed(REQUEST_2)
    lab.get_by_label("Request 2", exact=True).fill(edited)
    drawings_are_the_models(lab, edited)
    made = next_request.presets(lab.get_by_label("Request 1", exact=True).input_value())
    lab.get_by_role("button", name=dict(next_request.PRESETS)["line_in_front"]).click()
    drawings_are_the_models(lab, made["line_in_front"])
    assert "changed" in layer_rows(request2=made["line_in_front"])[0]
    assert "same" not in layer_rows(request2=made["line_in_front"])[0]  # moved one position: layer 1 differs too


PREFIX = "kvpage/prefix.py"
BOOK_PREFIX = (ROOT / PREFIX).read_text(encoding="utf-8")
SIMILAR = BOOK_PREFIX.replace("{(text, at) for at, text in", "{(text.lower(), at) for at, text in").replace(
    "[[(text, at) in held for", "[[(text.lower(), at) in held for"
)
"""prefix.py with the rule edited as a reader might, to make similar count: "You" and "you" the same key."""


@over_http
def test_an_edit_of_the_rule_in_the_editor_moves_the_readouts_and_both_drawings_together(
    audited: tuple[Page, str],
) -> None:
    """The readouts, the chips and the drawings all count reuse by the dependency rule: edited in the
    lab's Python disclosure so that "you" matches "You", request 2 with a lower-case first word
    shares its prefix again, in every number and every drawing, as the edited model computes it."""
    assert SIMILAR.count(".lower()") == 2, "the rule's lines in kvpage/prefix.py changed: edit SIMILAR too"
    page, url = audited
    _, lab = open_chapter(page, url)
    lowered = "y" + REQUEST_2[1:]
    lab.get_by_label("Request 2", exact=True).fill(lowered)
    drawings_are_the_models(lab, lowered)
    lab.get_by_text("Python: the code behind this lab").click()
    lab.get_by_role("button", name="Edit").click()
    lab.get_by_label(f"Edit {PREFIX}").fill(SIMILAR)
    (view,) = edited_views({PREFIX: SIMILAR}, [request_of(lab, next_request.LAB)])
    assert view["text"]["shared"] != compared(request2=lowered)["shared"], "the edit changes nothing to see"
    lab.get_by_role("button", name="Run").click()
    expect_readouts(lab, next_request.LAB, view["text"])
    layers = drawn(figure(lab, view["text"]["layers_words"]), "layers")
    assert [expand(row) for row in layers["rows"]] == [
        expand([[cell["data-kind"], int(cell["data-from"]), int(cell["data-count"]), 0] for cell in row])
        for row in rows_of(view["parts"]["layers"])
    ]
    assert layers["words"] == drawn_words(view["parts"]["layers"])
    square = drawn(figure(lab, view["text"]["square_words"]), "square")
    assert square["words"] == drawn_words(view["parts"]["square"])


def rows_of(part: Any) -> list[list[dict[str, str]]]:
    """Each layer row's cells (their attributes) in a model's layer drawing."""

    def elements(node: Any) -> list[Any]:
        if isinstance(node, str):
            return []
        return [node, *(found for child in node[2:] for found in elements(child))]

    every = [found for node in part for found in elements(node)]
    rows = [row for row in every if row[0] == "svg" and row[1].get("class") == "lay-row"]
    return [[cell[1] for cell in elements(row) if cell[0] == "rect"] for row in rows]


WORDS = """(lab) => {
  const edge = lab.getBoundingClientRect();
  return [...lab.querySelectorAll(".layers-figure *, .square-figure *")]
    .filter((element) => [...element.childNodes].some((node) => node.nodeType === 3 && node.textContent.trim()))
    .map((element) => {
      const svg = element.closest("svg");
      const scale = svg ? svg.getScreenCTM().a : 1;
      const box = element.getBoundingClientRect();
      return { text: element.textContent.trim(), px: parseFloat(getComputedStyle(element).fontSize) * scale,
               svg: svg === null ? null : svg.getAttribute("class"), left: box.left, right: box.right,
               top: box.top, bottom: box.bottom, inside: box.left >= edge.left && box.right <= edge.right };
    });
}"""
"""Every element of the two drawings (and their titles, legends and captions) that holds words: its
text, its size as drawn in CSS px, its box, and whether it is inside the lab's box."""

SMALLEST = 11
"""The smallest a word of a drawing may be, in CSS px (issue 45, point 8)."""


@styled_by_css_only
def test_every_word_of_the_drawings_is_11_px_and_inside_the_lab_at_360_768_and_1280(
    on_one_page: tuple[Page, str],
) -> None:
    page, url = on_one_page
    follow_link(page, url, lab_link("next-request", request1=REQUEST_1, request2=REQUEST_2))
    lab = page.get_by_role("region", name=NEXT)
    drawings_are_the_models(lab, REQUEST_2)
    for width in (360, 768, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        words = lab.evaluate(WORDS)
        assert {word["svg"] for word in words} >= {"lay-spans", "lay-row", "lay-axis", "sq-axis", "sq-plot"}
        assert [word for word in words if word["px"] < SMALLEST] == [], width
        assert [word for word in words if not word["inside"]] == [], width
        drawn_in_svg = [word for word in words if word["svg"] is not None]
        crowded = [
            (one["text"], other["text"])
            for at, one in enumerate(drawn_in_svg)
            for other in drawn_in_svg[at + 1 :]
            if one["left"] < other["right"]
            and other["left"] < one["right"]
            and one["top"] < other["bottom"]
            and other["top"] < one["bottom"]
        ]
        assert crowded == [], width


COLOURS = """async () => {
  const root = document;
  await Promise.all(root.getAnimations().map((animation) => animation.finished));
  const style = (element) => getComputedStyle(element);
  const lab = (name) => root.querySelector(`section.lab[data-lab=${name}]`);
  let back = lab("next-request");
  while (style(back).backgroundColor === "rgba(0, 0, 0, 0)") back = back.parentElement;
  const each = (where, selector, property) => [...where.querySelectorAll(selector)]
    .map((mark) => ({ name: `${selector}`, colour: style(mark)[property], opacity: style(mark).opacity }));
  const next = lab("next-request"), decode = lab("decode");
  return {
    background: style(back).backgroundColor,
    reused: [...each(next, ".lay-reused, .sq-reused, .bar-reused", "fill"),
             ...each(next, ".lay-span-reused", "stroke"),
             ...each(next, ".swatch-kv-held", "backgroundColor"),
             ...each(next, "[data-part=tokens2] .chip[data-kind=shared]", "borderTopColor"),
             ...each(decode, "[data-part=grid_kv] .grid-held", "fill"),
             ...each(decode, ".swatch-kv-held", "backgroundColor")],
    paid: [...each(next, ".lay-paid, .lay-same, .sq-paid, .bar-fill", "fill"),
           ...each(next, ".lay-span-paid", "stroke"),
           ...each(next, ".swatch-kv", "backgroundColor"),
           ...each(next, "[data-part=tokens2] .chip:is([data-kind=cold], [data-kind=same])", "borderTopColor"),
           ...each(decode, "[data-part=grid_kv] .grid-now.grid-kv", "fill")],
    changed: [...each(next, ".lay-changed", "fill"), ...each(next, ".swatch-warn", "backgroundColor"),
              ...each(next, "[data-part=tokens2] .chip[data-kind=differs]", "borderTopColor")],
    lines: [...each(next, ".lay-line, .sq-gap", "stroke")],
    glyphs: [...next.querySelectorAll(".lay-glyph")].map((glyph) => {
      const x = glyph.getAttribute("x");
      const cell = [...glyph.parentElement.querySelectorAll("rect")].find((rect) => {
        const left = parseFloat(rect.getAttribute("x")), right = left + parseFloat(rect.getAttribute("width"));
        return left <= parseFloat(x) && parseFloat(x) <= right;
      });
      return { text: glyph.textContent, colour: style(glyph).fill, cell: style(cell).fill };
    }),
    text: [...each(next, ".lay-number, .lay-span-name", "fill"), ...each(next, ".sq-label", "fill")],
  };
}"""
"""The colours the page paints, by meaning, in both labs (the next-request lab's drawings, bars,
legends and chips; the decode lab's grid and legend), the lines between cells, the glyphs on their
cells, and the drawings' words."""


@styled_by_css_only
def test_one_colour_per_meaning_across_both_labs_and_every_mark_3_to_1(on_one_page: tuple[Page, str]) -> None:
    page, url = on_one_page
    run = chapter_run()
    follow_link(page, url, lab_link("next-request", request1=REQUEST_1, request2=REQUEST_2))
    # The prefill, then a step: cells kept and cells paid now.
    follow_link(page, url, lab_link("decode", prompt=run.prompt, tokens=run.tokens, mode=run.mode, steps=2))
    decode = page.get_by_role("region", name=DECODE)
    expect_run(decode, run.after(2))
    drawings_are_the_models(page.get_by_role("region", name=NEXT), REQUEST_2)
    failures: list[str] = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        seen: dict[str, Any] = page.evaluate(COLOURS)
        meanings = {meaning: {mark["colour"] for mark in seen[meaning]} for meaning in ("reused", "paid", "changed")}
        for meaning, colours in meanings.items():
            assert len(colours) == 1, f"{scheme}: {meaning} is painted {colours}: {seen[meaning]}"
        assert len(set.union(*meanings.values())) == 3, f"{scheme}: two meanings share a colour: {meanings}"
        marks = [*seen["reused"], *seen["paid"], *seen["changed"]]
        failures += check_marks({"background": seen["background"], "graphics": marks, "text": seen["text"]}, scheme)
        for line in {mark["colour"] for mark in seen["lines"]}:
            for meaning, (colour,) in meanings.items():
                if contrast(line, colour) < GRAPHICS:
                    failures.append(
                        f"{scheme}: {meaning} {colour} against the line {line} is {contrast(line, colour):.2f}:1"
                    )
        assert seen["glyphs"], scheme
        for glyph in seen["glyphs"]:
            if contrast(glyph["colour"], glyph["cell"]) < TEXT:
                failures.append(
                    f"{scheme}: glyph {glyph} is {contrast(glyph['colour'], glyph['cell']):.2f}:1 on its cell"
                )
    assert failures == []
