"""The tokenizer is lossless and splits like GPT-2's pre-tokenizer."""

import random

from kvpage.tokenizer import tokenize

SEED_REQUEST = "You are a precise assistant. Answer briefly User: 2+2?"


def test_seed_request_is_fourteen_tokens() -> None:
    assert tokenize(SEED_REQUEST) == [
        "You",
        " are",
        " a",
        " precise",
        " assistant",
        ".",
        " Answer",
        " briefly",
        " User",
        ":",
        " 2",
        "+",
        "2",
        "?",
    ]


def test_words_digits_and_symbols_keep_their_leading_space() -> None:
    assert tokenize("Hi 42 !!") == ["Hi", " 42", " !!"]


def test_whitespace_runs_leave_the_last_space_to_the_next_word() -> None:
    assert tokenize("a   b") == ["a", "  ", " b"]
    assert tokenize("a\n\nb ") == ["a", "\n\n", "b", " "]


def test_contractions_split_like_gpt2() -> None:
    assert tokenize("don't") == ["don", "'t"]


def test_empty_text_has_no_tokens() -> None:
    assert tokenize("") == []


ALPHABET = "aZé ß  \t\n\r09²_-+:?!.,'\"<>&/\\\u200f\u202e\u0301😀\x00\x1f\ud800漢字"


def test_lossless_on_random_text() -> None:
    rng = random.Random(20261130)
    for _ in range(2000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 40)))
        tokens = tokenize(text)
        assert "".join(tokens) == text
        assert all(tokens), "no empty tokens"
