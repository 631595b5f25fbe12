"""Formulas typeset by the pinned Temml under Node: MathML out, refusals at their line, no inline style left."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from sitegen.errors import BuildError
from sitegen.markdown import mathml
from sitegen.markdown.mathml import (
    Formula,
    Typeset,
    apply_formulas,
    class_name,
    formula,
    formulas_in,
    stylesheet,
    temml_css,
    typeset,
    typeset_book,
    without_styles,
)
from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.formulas import formulas_plugin
from sitegen.markdown.plugins.lines import inline_lines_plugin
from sitegen.memo import Memo


def test_one_batch_gives_mathml_or_a_reason_for_each() -> None:
    inline, display, broken, unknown = typeset(
        (
            Formula("n^2 - p^2", display=False),
            Formula(r"\sum_{k=2}^{T} k", display=True),
            Formula(r"\frac{1}{2", display=False),
            Formula(r"x + \nosuchcommand{y}", display=False),
        )
    )
    assert inline.mathml.startswith("<math>") and "<msup><mi>n</mi><mn>2</mn></msup>" in inline.mathml
    assert display.mathml.startswith('<math display="block"') and "<munderover>" in display.mathml
    assert (broken.mathml, broken.error) == ("", "Unexpected end of input in a macro argument, expected '}'")
    assert unknown.error == r"Unsupported function name: \nosuchcommand"
    assert unknown.position == len("x + ")


def test_untrusted_tex_cannot_link_style_or_loop() -> None:
    answers = typeset(
        tuple(
            Formula(tex, display=False)
            for tex in (r"\href{javascript:alert(1)}{x}", r"\htmlStyle{color:red}{x}", r"\def\a{\a}\a")
        )
    )
    assert [answer.error for answer in answers] == [
        r"Unsupported function name: \href",
        r"Unsupported function name: \htmlStyle",
        "Too many expansions: infinite loop or need to increase maxExpand setting",
    ]


def test_inline_styles_become_classes_with_rules_that_win() -> None:
    rules: dict[str, str] = {}
    mathml = '<math><mtd class="tml-left" style="padding-left:0em;padding-right:5.9776pt;"><mi>a</mi></mtd></math>'
    html, refused = without_styles(mathml, rules)
    name = class_name("padding-left:0em;padding-right:5.9776pt;")
    assert (html, refused) == (f'<math><mtd class="tml-left {name}"><mi>a</mi></mtd></math>', [])
    assert rules == {name: "padding-left: 0em !important; padding-right: 5.9776pt !important;"}


@pytest.mark.parametrize("style", ["background:url(x.png)", "color:red}body{display:none", "content:'x'", ";"])
def test_a_style_that_is_not_plain_declarations_is_refused(style: str) -> None:
    rules: dict[str, str] = {}
    html, refused = without_styles(f'<math><mi style="{style}">x</mi></math>', rules)
    assert (html, refused, rules) == ("<math><mi>x</mi></math>", [style], {})


def test_temml_css_ships_without_its_web_font() -> None:
    css = temml_css()
    assert "math {" in css and ".tml-sml-pad" in css
    assert "@font-face" not in css and "woff2" not in css
    assert not re.search(r"font-family:\s*['\"]?Temml", css)


TEXT = """Inline $n^2$ and, on the second line
of the paragraph, $\\frac{1}{2$ broken.

$$
a + b \\\\
c + \\nosuch
$$
"""


def test_each_refusal_is_reported_at_its_line_and_the_rest_typeset() -> None:
    md = MarkdownIt("commonmark").use(formulas_plugin).use(inline_lines_plugin)
    env = new_env("content/a.md")
    tokens = md.parse(TEXT, env)
    found = formulas_in(tokens, env)
    css = stylesheet(apply_formulas(found, typeset_book([formula(item) for item in found])))
    assert [str(error) for error in env.errors] == [
        "content/a.md:2: the formula $\\frac{1}{2$ cannot be typeset: "
        "Unexpected end of input in a macro argument, expected '}'",
        "content/a.md:6: the formula $a + b \\\\ c + \\nosuch$ cannot be typeset: Unsupported function name: \\nosuch",
    ]
    html = md.renderer.render(tokens, md.options, env)
    assert html.startswith("<p>Inline <math><msup><mi>n</mi><mn>2</mn></msup></math> and")
    assert "style=" not in html
    assert css.startswith("/* Temml's Temml-Local.css")


def test_no_formulas_no_node_and_no_stylesheet() -> None:
    assert typeset(()) == ()
    assert typeset_book([]) == {}


def test_serves_memo_typesets_only_the_formulas_it_has_not_typeset(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each formula is kept by its TeX: an edit to one formula sends that one alone to Temml."""
    memo = Memo()
    first = typeset_book([Formula("n^2", False), Formula("p^2", True)], memo)
    asked: list[tuple[Formula, ...]] = []

    def counted(formulas: tuple[Formula, ...]) -> tuple[Typeset, ...]:
        asked.append(formulas)
        return typeset(formulas)

    monkeypatch.setattr(mathml, "typeset", counted)
    again = typeset_book([Formula("n^2", False), Formula("n^3", False), Formula("p^2", True)], memo)
    assert asked == [(Formula("n^3", False),)]
    assert again[Formula("n^2", False)] is first[Formula("n^2", False)]
    assert again == typeset_book(list(again))  # what a build with nothing kept answers


def test_a_missing_node_is_a_build_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(BuildError, match="node: not found"):
        typeset((Formula(r"\text{a formula no other test typesets}", display=False),))
