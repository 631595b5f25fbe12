"""Prefix matching is exact and from the left, and the dependency rule says why."""

import pytest

from kvpage.prefix import identical_entries, reused_columns, reused_count, shared_prefix_length
from kvpage.tokenizer import tokenize


def test_seed_requests_share_ten_tokens() -> None:
    one = tokenize("You are a precise assistant. Answer briefly User: 2+2?")
    two = tokenize("You are a precise assistant. Answer briefly User: 3+3?")
    assert shared_prefix_length(one, two) == 10


def test_similar_is_not_identical() -> None:
    assert shared_prefix_length(tokenize("You are"), tokenize("you are")) == 0


def test_a_change_anywhere_makes_everything_after_it_cold() -> None:
    one = tokenize("a b c d e")
    assert shared_prefix_length(one, tokenize("a b X d e")) == 2


def test_identical_and_empty() -> None:
    one = tokenize("a b c")
    assert shared_prefix_length(one, one) == 3
    assert shared_prefix_length([], one) == 0
    assert shared_prefix_length(one, []) == 0


# ---- why only from the left: what each cached entry depends on ------------------------------------

CHAPTER_ONE = "You are a precise assistant. Answer briefly User: 2+2?"
CHAPTER_TWO = "You are a precise assistant. Answer briefly User: 3+3?"


def test_the_dependency_rule_reuses_the_seeds_ten_of_fourteen_in_every_layer() -> None:
    one, two = tokenize(CHAPTER_ONE), tokenize(CHAPTER_TWO)
    identical = identical_entries(one, two, layers=4)
    assert len(identical) == 4 and all(len(row) == 14 for row in identical)
    assert sum(reused_columns(identical)) == 10 == shared_prefix_length(one, two) == reused_count(identical)
    assert reused_columns(identical) == [True] * 10 + [False] * 4
    # "+" and "?" are the same text at the same place: their layer-1 keys would be the same ...
    assert identical[0][10:] == [False, True, False, True]
    # ... but from layer 2 up they mix in " 3", and differ.
    assert all(row[10:] == [False] * 4 for row in identical[1:])


def test_the_same_text_one_position_later_differs_even_in_layer_1() -> None:
    one = tokenize("a b c d")
    identical = identical_entries(one, ["\n", *one], layers=3)
    assert identical[0] == [False] * 5  # every token is request 1's, one position on: position enters the key
    assert sum(reused_columns(identical)) == 0


def test_a_change_reaches_every_later_entry_from_layer_2_up_and_only_there() -> None:
    one = tokenize("a b c d e")
    identical = identical_entries(one, tokenize("a b X d e"), layers=2)
    assert identical == [[True, True, False, True, True], [True, True, False, False, False]]
    assert reused_columns(identical) == [True, True, False, False, False]


def test_empty_requests_and_at_least_one_layer() -> None:
    assert identical_entries(["a"], [], layers=2) == [[], []]
    assert sum(reused_columns(identical_entries(["a"], [], layers=2))) == 0
    assert reused_columns(identical_entries([], ["a"], layers=1)) == [False]
    with pytest.raises(ValueError, match="at least one layer"):
        identical_entries(["a"], ["a"], layers=0)
