"""Formulas (``$…$``, ``$$…$$``) typeset at build time into MathML Core: no math JavaScript in the page.

Temml writes MathML Core, which Chromium, Firefox and WebKit all render, and refuses what it cannot
render, an error at the formula's line; why it and how it is run: :func:`typeset`. Its inline styles,
which the page's policy refuses, become classes (:func:`without_styles`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it.token import Token

from sitegen.errors import BuildError, ContentError
from sitegen.limited_run import run_limited
from sitegen.markdown.ids import Attributes, rewrite_attributes
from sitegen.markdown.plugins.env import chapter, line_of, record
from sitegen.memo import NO_MEMO, Memo

PROJECT = Path(__file__).resolve().parents[2]
TEMML = PROJECT / "node_modules" / "temml"
"""The pinned Temml, beside the build's code (a build tool, like the Python packages the build imports)."""
RUNNER = Path(__file__).with_name("formulas.mjs")
STYLESHEET = "static/formulas.css"
"""Where the formulas' stylesheet is in the site (pages with formulas link it)."""
TIME_LIMIT_S = 120
"""A last guard: Temml stops macro loops itself (maxExpand), so this is never the usual way out."""
TOKENS = ("math_inline", "math_block")
"""The tokens mdit-py-plugins' dollarmath makes: ``$…$`` in a paragraph, ``$$…$$`` on lines of its own."""
DECLARATION = re.compile(r"\s*([a-z-]+)\s*:\s*([a-zA-Z0-9#.%(),\s-]+?)\s*")
"""One CSS declaration as Temml writes them: a property and a plain value (no quotes or braces)."""
FUNCTION = re.compile(r"([a-zA-Z-]+)\(")
TRANSFORMS = frozenset({"scale", "scalex", "scaley", "translate", "translatex", "translatey", "rotate"})
"""The only functions a value may call: a transform's (``url()`` would fetch, and is never Temml's)."""
SHOWN = 60
"""How much of a formula an error message quotes."""


@dataclass(frozen=True)
class Formula:
    """One formula as written: its TeX, and whether it is displayed on a line of its own."""

    tex: str
    display: bool


@dataclass(frozen=True)
class Typeset:
    """Temml's answer for one formula: its MathML, or why it has none (and where in the TeX)."""

    mathml: str = ""
    error: str | None = None
    position: int | None = None


@functools.lru_cache(maxsize=4)
def typeset(formulas: tuple[Formula, ...]) -> tuple[Typeset, ...]:
    """Every formula through Temml in one Node process; raise BuildError if Node or Temml is missing.

    The TeX goes to Temml (npm ``temml``, pinned in ``package-lock.json``), a TeX-to-MathML
    converter written for MathML Core, the MathML that Chromium, Firefox and WebKit all render.
    Every formula of the book goes in one call of Node (``formulas.mjs``), so a book pays one
    process start however many formulas it has, and a rebuild whose formulas did not change
    (``serve``, after a prose edit) pays none: the last few batches are kept in memory.

    Temml refuses TeX it cannot render (an unknown command, an unclosed brace), and each refusal
    is an error at the formula's line. Why Temml rather than PyPI's latex2mathml: that one
    renders ``\\foo`` as the text "\\foo" and ``\\frac{1}{2`` as if it were closed, without a
    word, and it writes ``aligned`` environments as one line with the ``&`` showing.
    """
    if not formulas:
        return ()
    if not (TEMML / "package.json").is_file():
        raise BuildError(
            [f"{TEMML.relative_to(PROJECT)} is missing: the build typesets formulas with it; run make deps"]
        )
    batch = json.dumps([[formula.tex, formula.display] for formula in formulas])
    doing = f"typesetting {len(formulas)} formula(s)"
    missing = "the build typesets formulas with Temml under Node.js"
    result = run_limited(["node", str(RUNNER)], TIME_LIMIT_S, doing, missing, text_in=batch)
    if result.returncode != 0:
        raise BuildError([f"{RUNNER.name} failed:\n{result.stderr.strip()}"])
    answers: list[dict[str, Any]] = json.loads(result.stdout)
    return tuple(Typeset(answer.get("mathml", ""), answer.get("error"), answer.get("position")) for answer in answers)


def class_name(declarations: str) -> str:
    """The class standing for one ``style`` value: named by its hash, so the same style is one class."""
    return f"tml-s-{hashlib.sha256(declarations.encode('utf-8')).hexdigest()[:10]}"


def rule(declarations: str) -> str | None:
    """``declarations`` as the body of a rule that wins as an inline style would; None if one is not plain."""
    parts = [part for part in declarations.split(";") if part.strip()]
    matches = [DECLARATION.fullmatch(part) for part in parts]
    if not parts or any(match is None for match in matches):
        return None
    if any(name.lower() not in TRANSFORMS for name in FUNCTION.findall(declarations)):
        return None
    return " ".join(f"{match.group(1)}: {match.group(2)} !important;" for match in matches if match)


def without_styles(mathml: str, rules: MutableMapping[str, str]) -> tuple[str, list[str]]:
    """``mathml`` with each ``style`` attribute turned into a class, its rule added to ``rules``;
    and the styles that could not be (not plain declarations), which the caller reports.

    Temml writes some layout as ``style=""`` attributes (a display formula's ``display: block
    math``, a matrix cell's padding). The page's Content-Security-Policy refuses inline styles,
    so each distinct style becomes a class named by its hash, with a rule in the formulas'
    stylesheet (``static/formulas.css``): ``!important``, so it wins over every other rule as
    the inline style did.
    """
    refused: list[str] = []

    def rewrite(_tag: str, attrs: Attributes) -> Attributes | None:
        style = next((value for name, value in attrs if name == "style"), None)
        if style is None:
            return None
        body = rule(style)
        if body is None:
            refused.append(style)
            return [(name, value) for name, value in attrs if name != "style"]
        name = class_name(style)
        rules[name] = body
        classes = " ".join([*(value or "" for key, value in attrs if key == "class"), name]).strip()
        kept = [(key, value) for key, value in attrs if key not in ("style", "class")]
        return [*kept, ("class", classes)]

    return rewrite_attributes(mathml, rewrite), refused


HEADER = re.compile(r"\A\s*/\*[^*]*Temml\.woff2.*?\*/\s*", re.DOTALL)
"""Temml-Local.css's opening comment, which is about its web font."""
FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}\s*")
TEMML_FONT_RULE = re.compile(r"[^{}]*\{\s*font-family:\s*[\"']?Temml[\"']?;\s*\}\s*")


@functools.lru_cache(maxsize=1)
def temml_css() -> str:
    """Temml-Local.css without its web font (and the rules that would use only that font).

    The formulas' stylesheet holds Temml's own CSS for local fonts, without its web font: the page
    loads nothing from outside itself, and a font file is one more thing to fetch for the script
    letters (``\\mathscr``) alone.
    """
    path = TEMML / "dist" / "Temml-Local.css"
    text = HEADER.sub("", path.read_text(encoding="utf-8"))
    text, faces = FONT_FACE.subn("", text)
    text, rules = TEMML_FONT_RULE.subn("", text)
    if (faces, rules) != (1, 3):
        found = f"found {faces} and {rules}: has Temml changed?"
        raise BuildError([f"{path}: expected 1 @font-face and 3 rules using its font, {found}"])
    return (
        f"/* Temml's Temml-Local.css (npm temml, pinned), without its web font: sitegen/markdown/mathml.py */\n{text}"
    )


def stylesheet(rules: MutableMapping[str, str]) -> str:
    """The formulas' stylesheet: Temml's CSS, then one rule per style Temml wrote inline."""
    own = "".join(f".{name} {{ {body} }}\n" for name, body in sorted(rules.items()))
    return f"{temml_css()}\n/* Temml's inline styles, as classes (sitegen/markdown/mathml.py) */\n{own}"


@dataclass(frozen=True)
class Found:
    """One formula in a chapter: the token it is, and where its env and line are."""

    token: Token
    env: MutableMapping[str, Any]
    line: int


def formulas_in(tokens: Sequence[Token], env: MutableMapping[str, Any]) -> list[Found]:
    """Every formula token of a parsed chapter, with its line."""
    found: list[Found] = []
    for block in tokens:
        if block.type == "math_block":
            found.append(Found(block, env, line_of(block)))
        for child in block.children or ():
            if child.type == "math_inline":
                found.append(Found(child, env, line_of(block, child)))
    return found


def abridged(tex: str) -> str:
    text = " ".join(tex.split())
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def formula(found: Found) -> Formula:
    """The formula a token holds, as Temml is asked for it."""
    return Formula(found.token.content, found.token.type == "math_block")


def typeset_book(formulas: Sequence[Formula], memo: Memo = NO_MEMO) -> dict[Formula, Typeset]:
    """Each of ``formulas`` typeset: those serve's ``memo`` does not hold in one batch (all of them, for
    a build), each then kept by its TeX (Temml reads each formula alone: no macro outlives it)."""
    missing = tuple(item for item in formulas if not memo.has(("formula", item), ()))
    answers = dict(zip(missing, typeset(missing), strict=True))
    return {item: memo.get(("formula", item), (), functools.partial(answers.__getitem__, item)) for item in formulas}


def apply_formulas(found: Sequence[Found], typeset: Mapping[Formula, Typeset]) -> dict[str, str]:
    """Hang each formula's MathML on its token and report each that Temml refused at its line; the
    classes its styles became (:func:`without_styles`), for the stylesheet."""
    rules: dict[str, str] = {}
    for item in found:
        answer = typeset[formula(item)]
        tex = item.token.content
        if answer.error is not None:
            position = answer.position if answer.position is not None else 0
            line = item.line + tex[:position].count("\n")
            message = f"the formula ${abridged(tex)}$ cannot be typeset: {answer.error}"
            record(item.env, ContentError(chapter(item.env).path, line, message))
            continue
        mathml, refused = without_styles(answer.mathml, rules)
        for style in refused:
            message = f"the formula ${abridged(tex)}$ needs the style {style!r}, which the page cannot carry"
            record(item.env, ContentError(chapter(item.env).path, item.line, message))
        item.token.meta["mathml"] = mathml
    return rules
