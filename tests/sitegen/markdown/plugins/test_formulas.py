"""``$…$`` and ``$$…$$`` found as Pandoc finds them: prices stay text, a displayed formula is a scrolling box."""

from __future__ import annotations

from markdown_it import MarkdownIt

from sitegen.markdown.plugins.formulas import formulas_plugin


def parse(text: str) -> list[tuple[str, str]]:
    tokens = MarkdownIt("commonmark").use(formulas_plugin).parse(text)
    found = [(token.type, token.content) for token in tokens if token.type == "math_block"]
    for block in tokens:
        found += [(child.type, child.content) for child in block.children or () if child.type == "math_inline"]
    return found


def test_what_is_a_formula_and_what_is_a_price() -> None:
    assert parse("Costs $n^2$ cells.\n") == [("math_inline", "n^2")]
    assert parse("From $5 to $10 a month.\n") == []
    assert parse("Not $ x $ either.\n") == []
    assert parse("A dollar \\$ and $a$.\n") == [("math_inline", "a")]
    assert parse("$$\na +\nb\n$$\n") == [("math_block", "\na +\nb\n")]


def test_rendering_prints_the_mathml_the_pages_stage_gave() -> None:
    md = MarkdownIt("commonmark").use(formulas_plugin)
    tokens = md.parse("Inline $x$.\n\n$$\ny\n$$\n")
    tokens[0 + 1].children[1].meta["mathml"] = "<math><mi>x</mi></math>"  # type: ignore[index]
    tokens[3].meta["mathml"] = '<math display="block"><mi>y</mi></math>'
    assert md.renderer.render(tokens, md.options, {}) == (
        "<p>Inline <math><mi>x</mi></math>.</p>\n"
        '<div class="math-display" tabindex="0"><math display="block"><mi>y</mi></math></div>\n'
    )
