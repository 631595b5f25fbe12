"""The next-request lab: shared prefix, cold and cached prefill."""

import json
from typing import Any

import pytest

from kvpage.costs import prefill_cost
from kvpage.jsonvalue import LabInputError
from kvpage.labs.next_request import (
    LAB,
    MAX_REQUEST_CHARS,
    PRESETS,
    bars,
    bars_words,
    chips,
    compare,
    layer_kinds,
    presets,
    tips,
    visible,
)
from kvpage.prefix import shared_prefix_length
from kvpage.tokenizer import tokenize

ONE = "You are a precise assistant. Answer briefly User: 2+2?"
TWO = "You are a precise assistant. Answer briefly User: 3+3?"


def test_seed_figures() -> None:
    view = compare({"request1": ONE, "request2": TWO})
    drawn = ("preset_", "layers_words", "square_words")  # the drawings' words: test_layers_* and test_square_*
    assert {name: text for name, text in view["text"].items() if not name.startswith(drawn)} == {
        "shared": "10 / 14 · hit through “:”",
        "cold": "196",
        "cached": "96",
        "request1_cost": "196",
        "request1_tokens": "14",
        "bars_words": "Request 2 costs 196 cells cold and 96 with request 1's prefix cached: 100 saved (51%).",
        "summary": "Request 2: 10 of 14 tokens shared, hit through “:”; 96 cells with the prefix cache, 196 cold",
    }
    assert LAB.view_problems(view) == []


def test_the_summary_names_every_number_and_says_an_empty_request() -> None:
    """The lab's one live announcement (kind "summary"): each number with what it counts."""
    assert compare({"request1": ONE, "request2": "you" + TWO[3:]})["text"]["summary"] == (
        "Request 2: 0 of 14 tokens shared; 196 cells with the prefix cache, 196 cold"
    )
    assert compare({"request1": ONE, "request2": ""})["text"]["summary"] == "Request 2 is empty: nothing to prefill"


def test_one_letter_in_the_system_prompt_makes_everything_cold() -> None:
    view: Any = compare({"request1": ONE, "request2": "you" + TWO[3:]})
    assert view["text"]["shared"] == "0 / 14 · no shared prefix"
    assert view["text"]["cold"] == view["text"]["cached"] == "196"


def test_request_one_sentence_follows_request_one() -> None:
    view: Any = compare({"request1": "Hi there", "request2": TWO})
    assert (view["text"]["request1_cost"], view["text"]["request1_tokens"]) == ("4", "2")


def test_chips_mark_the_shared_prefix_and_flag_the_first_difference() -> None:
    first, second = tokenize("a b c d"), tokenize("a b x d")
    assert chips(second, 2) == [("a", "shared"), ("␣b", "shared"), ("␣x", "differs"), ("␣d", "cold")]
    assert chips(first, 2) == [("a", "shared"), ("␣b", "shared"), ("␣c", "differs"), ("␣d", "cold")]
    assert tips(2, 2, first) == {
        "shared": "reused from the cache",
        "differs": "paid; first difference: request 1 has “c” here",
        "same": "same text as request 1 here, still paid: after the first difference nothing is reused",
        "cold": "paid",
    }
    assert tips(1, 2, second)["differs"] == "cached; first difference: request 2 has “x” here"


def test_each_chip_says_what_it_is_and_the_prefix_ends_at_the_last_shared_one() -> None:
    view: Any = compare({"request1": "a b c d", "request2": "a b x d"})
    items = view["parts"]["tokens2"]
    assert [item[1]["data-kind"] for item in items] == ["shared", "shared", "differs", "same"]
    assert [("data-ends-prefix" in item[1], item[1].get("tabindex")) for item in items] == [
        (False, "0"),
        (True, None),
        (False, None),
        (False, None),
    ]
    drawn, told = items[2][2], items[2][3]
    assert drawn == ["span", {"class": "chip-text", "aria-hidden": "true"}, "␣x"]
    assert told == ["span", {"class": "visually-hidden"}, "#3 “␣x” · paid; first difference: request 1 has “c” here"]


def test_a_longer_request_flags_its_first_token_past_the_other() -> None:
    first, second = tokenize("a b"), tokenize("a b c")
    assert chips(first, 2) == [("a", "shared"), ("␣b", "shared")]
    assert chips(second, 2) == [("a", "shared"), ("␣b", "shared"), ("␣c", "differs")]
    assert tips(2, 2, first)["differs"] == "paid; first token after request 1 ends"


def test_chips_draw_every_whitespace_character() -> None:
    assert "".join(shown for shown, _kind in chips(tokenize("a\n\tb  c"), 0)) == "a⏎⇥b␣␣c"


def test_bars_compare_cold_and_cached_on_one_scale() -> None:
    rows: Any = bars(196, 96)
    fills = [shape for row in rows for shape in row[3][2:] if shape[1]["class"] == "bar-fill"]
    assert [(fill[1]["data-value"], fill[1]["width"]) for fill in fills] == [("196", "100"), ("96", "48.98")]
    assert [fill[1]["x"] for fill in fills] == ["0", "51.02"]  # the cached bar's paid part, after its reused part
    assert [row[2][2] for row in rows] == ["Cold prefill", "With prefix cache"]
    assert [row[4][2] for row in rows] == ["196", "96"]
    assert bars_words(196, 96) == (
        "Request 2 costs 196 cells cold and 96 with request 1's prefix cached: 100 saved (51%)."
    )
    assert bars_words(0, 0) == "Request 2 is empty: nothing to prefill, cold or cached."
    assert [fill[1]["width"] for row in bars(0, 0) for fill in row[3][2:] if fill[1]["class"] == "bar-fill"] == [
        "0",
        "0",
    ]


def test_the_view_of_the_longest_request_stays_in_proportion() -> None:
    long = "ab " * (MAX_REQUEST_CHARS // 3)
    view = compare({"request1": long, "request2": long})
    tokens = 2 * len(tokenize(long))
    # A chip is its element tree (kvpage/tree.py): a few hundred bytes, sent with every debounced keystroke.
    assert len(json.dumps(view)) < 250 * tokens


def test_empty_request_reads_sensibly() -> None:
    view: Any = compare({"request1": ONE, "request2": ""})
    assert view["text"]["shared"] == "0 / 0 · empty request"
    assert view["text"]["cold"] == view["text"]["cached"] == "0"
    assert view["parts"]["tokens2"] == []


def test_whitespace_token_is_drawn() -> None:
    assert visible("  ") == "␣␣"
    assert visible(" User") == "User"


def test_overlong_request_is_refused_with_the_cap() -> None:
    with pytest.raises(LabInputError, match="Request 2 is 2,001 characters; the lab takes at most 2,000"):
        compare({"request1": ONE, "request2": "x" * (MAX_REQUEST_CHARS + 1)})


def test_after_the_first_difference_the_same_text_is_marked_and_still_paid() -> None:
    """The chapter's lesson ("everything after it is cold"): a token at the same position with the same
    text in both requests, past the first difference, is ``same``, and says it is paid."""
    first, second = tokenize(ONE), tokenize("you" + ONE[3:])
    shared = shared_prefix_length(first, second)
    kinds = [kind for _, kind in chips(second, shared, first)]
    assert kinds[shared] == "differs"
    assert (
        kinds[shared + 1 :] == ["same" if a == b else "cold" for a, b in zip(first, second, strict=True)][shared + 1 :]
    )
    assert "same" in kinds
    assert "still paid" in tips(2, shared, first)["same"] and "not reused" in tips(1, shared, second)["same"]
    view: Any = compare({"request1": ONE, "request2": "you" + ONE[3:]})
    told = [item[3][2] for item in view["parts"]["tokens2"] if item[1]["data-kind"] == "same"]
    assert told and all(text.endswith(tips(2, shared, first)["same"]) for text in told)


@pytest.mark.parametrize("second", [TWO, "you" + ONE[3:], ONE, ONE + " More.", ""])
def test_the_cached_bar_is_split_into_its_reused_and_its_paid_part(second: str) -> None:
    view: Any = compare({"request1": ONE, "request2": second})
    n, shared = len(tokenize(second)), shared_prefix_length(tokenize(ONE), tokenize(second))
    cold, cached = prefill_cost(n), prefill_cost(n, shared)
    (svg,) = [part for part in view["parts"]["bars"][1][2:] if part[0] == "svg"]
    drawn = {shape[1]["class"]: shape[1] for shape in svg[2:] if "data-value" in shape[1]}
    assert int(drawn["bar-fill"]["data-value"]) == cached
    assert int(drawn.get("bar-reused", {"data-value": "0"})["data-value"]) == cold - cached
    if cold:
        assert float(drawn["bar-fill"]["x"]) == pytest.approx(100 * (cold - cached) / cold, abs=0.01)
        assert float(drawn["bar-fill"]["width"]) == pytest.approx(100 * cached / cold, abs=0.01)


def test_presets_are_the_chapters_experiments() -> None:
    """Identical: everything reused; one letter: one letter differs, and reuse stops there; a leading
    space: nothing reused; longer: all of request 1 reused, and more to pay; a line break in front:
    request 1's tokens, each one position on, and nothing reused."""
    first = tokenize(ONE)
    made = presets(ONE)
    assert set(made) == {name for name, _ in PRESETS}
    assert shared_prefix_length(first, tokenize(made["identical"])) == len(first)
    changed = [(a, b) for a, b in zip(ONE, made["one_letter"], strict=True) if a != b]
    assert len(changed) == 1 and all(c.isalpha() for c in changed[0])
    assert 0 < shared_prefix_length(first, tokenize(made["one_letter"])) < len(first)
    assert shared_prefix_length(first, tokenize(made["leading_space"])) == 0
    longer = tokenize(made["longer"])
    assert shared_prefix_length(first, longer) == len(first) < len(longer)
    assert (
        tokenize(made["line_in_front"])[1:] == first
        and shared_prefix_length(first, tokenize(made["line_in_front"])) == 0
    )
    view: Any = compare({"request1": ONE, "request2": TWO})
    assert {name: view["text"][f"preset_{name}"] for name, _ in PRESETS} == made
    assert all(len(text) <= MAX_REQUEST_CHARS for text in presets("x" * MAX_REQUEST_CHARS).values())


# ---- the drawings: why (cells by layer) and how much (one square) ---------------------------------


def texts(node: Any) -> list[str]:
    """Every text of a tree, in order."""
    if isinstance(node, str):
        return [node]
    return [text for child in node[2:] for text in texts(child)] if node and isinstance(node[0], str) else []


def marks(node: Any, tag: str) -> list[dict[str, str]]:
    """The attributes of every ``tag`` element of a tree, in order."""
    if isinstance(node, str) or not node:
        return []
    found = [node[1]] if node[0] == tag else []
    return found + [mark for child in node[2:] for mark in marks(child, tag)]


def test_square_is_the_seeds_196_cells_with_the_reused_100_in_the_corner_and_the_paid_96_around_it() -> None:
    view: Any = compare({"request1": ONE, "request2": TWO})
    cells = marks(view["parts"]["square"][0], "rect")
    reused = sum(int(cell["data-value"]) for cell in cells if cell["data-kind"] == "reused")
    paid = sum(int(cell["data-value"]) for cell in cells if cell["data-kind"] == "paid")
    assert (reused, paid, reused + paid) == (100, 96, 196)
    assert str(paid) == view["text"]["cached"] and str(reused + paid) == view["text"]["cold"]
    assert [cell["width"] for cell in cells if cell["data-kind"] == "reused"] == [f"{100 * 10 / 14:.2f}%"]
    assert {"reused 100", "paid 96"} <= set(texts(view["parts"]["square"][0]))
    # 10 of 14 tokens is 71 %; the cells saved are 100 of 196, 51 %.
    assert view["text"]["square_words"].startswith(
        "10 of 14 tokens shared (71%) saves the 10 × 10 corner: 100 of 196 cells (51%)."
    )


def test_layers_reuse_the_seeds_ten_tokens_in_every_layer_and_pay_the_rest_even_where_the_text_is_the_same() -> None:
    first, second = tokenize(ONE), tokenize(TWO)
    kinds = layer_kinds(first, second)
    assert len(kinds) == 4 and all(row[:10] == ["reused"] * 10 for row in kinds)
    assert kinds[0][10:] == ["changed", "same", "paid", "same"]  # " 3" differs, "+" and "?" are the same text
    assert all(row[10:] == ["paid"] * 4 for row in kinds[1:])
    view: Any = compare({"request1": ONE, "request2": TWO})
    rows = [mark for mark in marks(view["parts"]["layers"][0], "svg") if mark["class"] == "lay-row"]
    assert [row["data-layer"] for row in rows] == ["1", "2", "3", "4"]
    cells = marks(view["parts"]["layers"][0], "rect")
    drawn = [(cell["data-kind"], int(cell["data-from"]), int(cell["data-count"])) for cell in cells]
    assert drawn[:5] == [("reused", 1, 10), ("changed", 11, 1), ("same", 12, 1), ("paid", 13, 1), ("same", 14, 1)]
    assert drawn[5:] == [("reused", 1, 10), ("paid", 11, 4)] * 3
    words = view["text"]["layers_words"]
    assert words.startswith(
        "Tokens 1 to 10 are reused in all 4 layers. From token 11 on, all 4 are paid in every layer"
    )
    assert "2 of them have request 1's text at the same position (=)" in words


def test_layer_1_is_the_chips_row_computed_from_the_rule() -> None:
    """Layer 1's kinds are the chips' (shared, differs, same, cold), for every preset and a few more."""
    for request2 in [*presets(ONE).values(), TWO, "", "You", "x" + ONE]:
        first, second = tokenize(ONE), tokenize(request2)
        shared = shared_prefix_length(first, second)
        chip_kinds = [kind for _, kind in chips(second, shared, first)]
        as_chips = {"reused": "shared", "changed": "differs", "same": "same", "paid": "cold"}
        layer_1 = [as_chips[kind] for kind in layer_kinds(first, second)[0]] if second else []
        if shared < len(second) and shared >= len(first):  # past request 1's end: nothing differs, it is new
            chip_kinds[shared] = "cold"
        assert layer_1 == chip_kinds, request2


def test_a_leading_space_changes_one_token_and_a_line_break_in_front_moves_them_all() -> None:
    first, made = tokenize(ONE), presets(ONE)
    spaced = layer_kinds(first, tokenize(made["leading_space"]))
    assert spaced[0] == ["changed"] + ["same"] * (len(first) - 1)  # "␣You" for "You"; the rest where they were
    moved_tokens = tokenize(made["line_in_front"])
    assert moved_tokens[1:] == first
    moved = layer_kinds(first, moved_tokens)
    assert moved[0] == ["changed"] + ["paid"] * len(first)  # request 1's tokens one position on: none the same
    assert all(row == ["paid"] * len(moved_tokens) for row in moved[1:])
    words = compare({"request1": ONE, "request2": made["line_in_front"]})["text"]
    assert (
        f"{len(first)} of them repeat text request 1 has at another position: a different key even in layer 1"
        in str(words)
    )


def test_an_empty_request_2_draws_words_instead_of_cells() -> None:
    view: Any = compare({"request1": ONE, "request2": ""})
    assert texts(view["parts"]["layers"][0]) == ["Request 2 is empty: no keys or values."]
    assert texts(view["parts"]["square"][0]) == ["Request 2 is empty: no cells."]
    assert view["text"]["layers_words"] == "Request 2 is empty: no keys or values to compute."
    assert LAB.view_problems(view) == []


def test_the_square_says_plainly_when_nothing_or_everything_is_shared() -> None:
    made = presets(ONE)
    nothing: Any = compare({"request1": ONE, "request2": made["line_in_front"]})
    everything: Any = compare({"request1": ONE, "request2": made["identical"]})
    n = len(tokenize(ONE))
    assert nothing["text"]["square_words"].startswith(f"No token is shared: all {(n + 1) ** 2} cells are paid")
    assert everything["text"]["square_words"].startswith(f"All {n} tokens are shared: the whole square")
    assert [mark["data-kind"] for mark in marks(nothing["parts"]["square"][0], "rect")] == ["paid", "paid"]
    assert [mark["data-kind"] for mark in marks(everything["parts"]["square"][0], "rect")] == ["reused"]
