"""Prefix matching is exact and from the left."""

from kvpage.prefix import shared_prefix_length
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
