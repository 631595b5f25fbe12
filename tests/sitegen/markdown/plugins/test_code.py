"""Code blocks: highlighted by Pygments into classes only, plain in an unknown language, each a scrolling tab stop."""

from __future__ import annotations

from markdown_it import MarkdownIt

from sitegen.markdown.plugins.code import code_plugin
from sitegen.markdown.plugins.env import new_env


def render(text: str) -> tuple[str, list[str]]:
    md = MarkdownIt("commonmark").use(code_plugin)
    env = new_env("content/a.md")
    return md.render(text, env), [str(warning) for warning in env.warnings]


def test_a_known_language_is_highlighted_with_classes_only() -> None:
    html, warnings = render('```python\ndef f(x):\n    return "<b>"  # note\n```\n')
    assert warnings == []
    assert html.startswith('<pre class="code" tabindex="0"><code class="language-python"><span class="k">def</span>')
    assert '<span class="s2">"&lt;b&gt;"</span>' in html
    assert '<span class="c1"># note</span>' in html
    assert "style=" not in html


def test_aliases_and_blank_lines_are_kept() -> None:
    html, _ = render("```py\n\n\nx = 1\n```\n")
    assert '<code class="language-py">\n\n<span class="n">x</span>' in html


def test_an_unknown_language_is_plain_text_with_a_warning() -> None:
    html, warnings = render("\n```pyhton\nx < 1\n```\n")
    assert html == '<pre class="code" tabindex="0"><code>x &lt; 1\n</code></pre>\n'
    assert warnings == [
        "content/a.md:2: code block language 'pyhton' is not one Pygments knows; the block renders as plain text"
    ]


def test_no_language_and_indented_blocks_are_plain() -> None:
    assert render("```\n<x>\n```\n") == ('<pre class="code" tabindex="0"><code>&lt;x&gt;\n</code></pre>\n', [])
    assert render("    <x>\n")[0] == '<pre class="code" tabindex="0"><code>&lt;x&gt;\n</code></pre>\n'
