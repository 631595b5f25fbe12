"""A lossless, GPT-2-style pre-tokenizer.

For a prefix cache what matters is only that the split is deterministic and lossless, so that
"identical prefix" means identical text; GPT-2's pre-tokenization rules give realistic counts without
a vocabulary file (the rules: :func:`tokenize`).
"""

from __future__ import annotations

import re

_LETTER = r"[^\W\d_]"
_DIGIT = r"\d"
_SYMBOL = r"(?:(?![^\W\d_]|\d)\S)"

_TOKEN = re.compile(
    rf"""'(?:s|t|re|ve|m|ll|d)(?!{_LETTER})
        | \ ?{_LETTER}+
        | \ ?{_DIGIT}+
        | \ ?{_SYMBOL}+
        | (?:(?!\ \S)\s)+""",
    re.VERBOSE,
)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into tokens whose concatenation is exactly ``text``.

    Real models split text into subword tokens; for a prefix cache what matters is
    only that the split is deterministic and lossless, so that "identical prefix"
    means identical text. GPT-2's pre-tokenization rules give realistic counts
    without a vocabulary file: a word with its leading space, a run of digits with
    its leading space, a run of other symbols with its leading space, and runs of
    whitespace. A space right before a word, number or symbol belongs to it, so a
    run of spaces leaves its last one to what follows (GPT-2 leaves the last
    whitespace character of any kind; we keep newlines together, which reads better
    as chips and changes no count that matters here).
    """
    tokens = _TOKEN.findall(text)
    if "".join(tokens) != text:  # pragma: no cover - the pattern covers every character
        raise AssertionError("tokenizer lost text")
    return tokens
