"""``~~text~~`` renders as GFM renders it: ``<del>``."""

from sitegen.markdown.pages import make_markdown
from sitegen.markdown.plugins.env import new_env


def test_strikethrough_is_deleted_text() -> None:
    md = make_markdown({})
    env = new_env("x.md")
    assert md.render("Recompute ~~every step~~ only.\n", env) == "<p>Recompute <del>every step</del> only.</p>\n"
    assert env.errors == []
