"""Images: alt text required, the file's size written in, and a figure when a caption is given.

An image's alt text is what a reader who cannot see it gets, so an image without one is an error at
its line, and one that only decorates says so; the size keeps its box while it loads. How each is
written: :func:`images_plugin`, :func:`figure_image`.
"""

from __future__ import annotations

import html
from collections.abc import MutableMapping, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from sitegen.markdown.plugins.env import report

DECORATIVE = '""'
"""The alt text that marks an image as decoration: written as two quote marks, rendered ``alt=""``."""


def figure_image(inline: Token) -> Token | None:
    """The image an inline token holds alone (whitespace aside), if it has a title: a figure's.

    An image alone in its paragraph, with a title, is a figure, the title its caption:
    ``![KV cache layout](img/layout.svg "The cache grows by one row per token.")`` becomes
    ``<figure><img …><figcaption>The cache grows…</figcaption></figure>``.
    """
    children = [child for child in inline.children or () if not (child.type == "text" and not child.content.strip())]
    if len(children) == 1 and children[0].type == "image" and str(children[0].attrs.get("title", "")).strip():
        return children[0]
    return None


def images_plugin(md: MarkdownIt) -> None:
    """Require alt text, turn a lone titled image into a figure, write each image's size.

    ``![KV cache layout](img/layout.svg)`` is an image; its alt text is what a reader who
    cannot see it gets instead, so an image without one is an error at its line. An image
    that only decorates says so: ``![""](img/rule.svg)`` (two quote marks) writes ``alt=""``,
    which tells screen readers to skip it.

    ``width`` and ``height`` come from the image file (:mod:`sitegen.markdown.links` checks the path
    and hangs the size on the token), so the page keeps the image's box while it loads.
    """

    def check(state: StateCore) -> None:
        tokens = state.tokens
        for index, block in enumerate(tokens):
            if block.type != "inline":
                continue
            for child in block.children or ():
                if child.type == "image" and not child.content.strip():
                    src = str(child.attrs.get("src", ""))
                    message = (
                        f"image {src!r} has no alt text: say what it shows, as in ![What it shows]({src}), "
                        f'or mark it decorative with ![""]({src})'
                    )
                    report(state.env, block, message, child=child)
            image = figure_image(block)
            if image is None or index == 0 or tokens[index - 1].type != "paragraph_open":
                continue
            opening, closing = tokens[index - 1], tokens[index + 1]
            opening.type, opening.tag, opening.hidden = "figure_open", "figure", False
            closing.type, closing.tag, closing.hidden = "figure_close", "figure", False
            closing.meta["caption"] = str(image.attrs.pop("title")).strip()

    def render_image(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        token = tokens[idx]
        alt = "" if token.content.strip() == DECORATIVE else self.renderInlineAsText(token.children, options, env)
        attrs = {key: value for key, value in token.attrs.items() if key != "alt"}
        size = token.meta.get("size")
        written = {"src": attrs.pop("src", ""), "alt": alt, **attrs}
        if size is not None:
            written |= {"width": size[0], "height": size[1]}
        return "<img" + "".join(f' {key}="{html.escape(str(value))}"' for key, value in written.items()) + ">"

    def render_figure(
        self: object, tokens: Sequence[Token], idx: int, _options: OptionsDict, env: MutableMapping[str, Any]
    ) -> str:
        token = tokens[idx]
        if token.nesting == 1:
            return '<figure class="figure">\n'
        return f"\n<figcaption>{html.escape(str(token.meta.get('caption', '')))}</figcaption>\n</figure>\n"

    md.core.ruler.push("images", check)
    md.add_render_rule("image", render_image)
    md.add_render_rule("figure_open", render_figure)
    md.add_render_rule("figure_close", render_figure)
