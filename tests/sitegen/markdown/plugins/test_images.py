"""Images: alt text required (or decoration said out loud), a lone titled image is a figure, sizes written."""

from __future__ import annotations

from markdown_it import MarkdownIt

from sitegen.markdown.plugins.env import new_env
from sitegen.markdown.plugins.images import images_plugin
from sitegen.markdown.plugins.lines import inline_lines_plugin


def render(text: str, size: tuple[int, int] | None = None) -> tuple[str, list[str]]:
    md = MarkdownIt("commonmark").use(inline_lines_plugin).use(images_plugin)
    env = new_env("content/a.md")
    tokens = md.parse(text, env)
    for block in tokens:
        for child in block.children or ():
            if child.type == "image" and size is not None:
                child.meta["size"] = size  # what sitegen.markdown.links records from the file
    return md.renderer.render(tokens, md.options, env), [str(error) for error in env.errors]


def test_an_image_with_alt_text_and_its_size() -> None:
    html, errors = render('See ![The *KV* cache & its rows](img/a.svg "rows") here.\n', (320, 120))
    assert errors == []
    assert html == (
        '<p>See <img src="img/a.svg" alt="The KV cache &amp; its rows" title="rows" width="320" height="120">'
        " here.</p>\n"
    )


def test_an_image_without_alt_text_is_an_error_at_its_line() -> None:
    _, errors = render("Text,\nand ![](img/a.svg) and ![ ](img/b.png).\n")
    assert errors == [
        "content/a.md:2: image 'img/a.svg' has no alt text: say what it shows, as in "
        '![What it shows](img/a.svg), or mark it decorative with ![""](img/a.svg)',
        "content/a.md:2: image 'img/b.png' has no alt text: say what it shows, as in "
        '![What it shows](img/b.png), or mark it decorative with ![""](img/b.png)',
    ]


def test_a_decorative_image_says_so() -> None:
    html, errors = render('![""](img/rule.svg)\n', (240, 8))
    assert (html, errors) == ('<p><img src="img/rule.svg" alt="" width="240" height="8"></p>\n', [])


def test_a_lone_image_with_a_title_is_a_figure_with_its_caption() -> None:
    html, _ = render('![A grid](img/g.png "Figure 1. The <whole> triangle.")\n', (192, 192))
    assert html == (
        '<figure class="figure">\n<img src="img/g.png" alt="A grid" width="192" height="192">\n'
        "<figcaption>Figure 1. The &lt;whole&gt; triangle.</figcaption>\n</figure>\n"
    )


def test_an_image_with_text_or_without_a_title_stays_in_its_paragraph() -> None:
    assert render("![A grid](img/g.png)\n")[0] == '<p><img src="img/g.png" alt="A grid"></p>\n'
    assert "<figure" not in render('Look: ![A grid](img/g.png "t")\n')[0]
    assert "<figure" in render('- ![A grid](img/g.png "In a list.")\n')[0]
