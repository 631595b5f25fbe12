"""Nesting: blocks as deep as a book plausibly nests them render; deeper ones are an error at their line."""

from __future__ import annotations

from markdown_it.token import Token

from sitegen.markdown.pages import make_markdown
from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.nesting import BLOCK_LIMIT


def parse(text: str) -> tuple[list[Token], list[str]]:
    env = new_env("x.md")
    tokens = make_markdown({}).parse(text, env)
    return tokens, [str(error) for error in env.errors]


def headings(tokens: list[Token]) -> list[str]:
    return [tokens[index + 1].content for index, token in enumerate(tokens) if token.type == "heading_open"]


def nested_callouts(depth: int) -> str:
    """``depth`` callouts one inside the other, each with a heading (the outer ones have the longer fences)."""
    opening = "".join(f"{':' * (3 + depth - level)} english\n## Level {level}\n\n" for level in range(depth))
    return opening + "".join(f"{':' * (4 + level)}\n" for level in range(depth))


def test_a_list_nested_ten_deep_keeps_what_follows_it() -> None:
    """markdown-it's CommonMark preset stops at 20 levels: the list's tenth level, and the rest of the chapter."""
    deep_list = "".join(f"{'  ' * level}- item {level}\n" for level in range(10))
    tokens, errors = parse(f"{deep_list}\n## After the list\n\n::: lab decode\n## Lab · decode\n:::\n")
    assert errors == []
    assert headings(tokens) == ["After the list", "Lab · decode"]
    assert [token.content for token in tokens if token.type == "inline"][9] == "item 9"


def test_callouts_nested_to_the_limit_all_render() -> None:
    depth = BLOCK_LIMIT // 2
    tokens, errors = parse(nested_callouts(depth))
    assert errors == []
    assert headings(tokens) == [f"Level {level}" for level in range(depth)]


def test_callouts_nested_past_the_limit_are_an_error_at_the_first_line_dropped() -> None:
    depth = BLOCK_LIMIT * 2
    tokens, errors = parse(nested_callouts(depth))
    dropped = len(headings(tokens))  # the heading inside the callout BLOCK_LIMIT levels in is the first dropped
    assert dropped == BLOCK_LIMIT - 1
    line = 3 * dropped + 2
    assert errors == [
        f"x.md:{line}: this block is nested too deeply to render: at most {BLOCK_LIMIT} levels of containers, "
        "quotes and lists (a list counts two a level: the list and its item); nest less"
    ]


def test_quotes_at_the_limit_render_and_one_more_is_an_error() -> None:
    """The limit counts the quoted paragraph too: 99 quotes hold it at the 100th level."""
    assert parse("> " * (BLOCK_LIMIT - 1) + "Deep.\n")[1] == []
    tokens, errors = parse("Text.\n\n" + "> " * BLOCK_LIMIT + "Too deep.\n")
    assert [error.split(": ", 1)[0] for error in errors] == ["x.md:3"]
    assert "Too deep." not in [token.content for token in tokens]
