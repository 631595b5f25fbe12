"""The two renderers of a lab's trees give the same DOM: the build's HTML and the page's builder.

A view's pictures, tables and lists are element trees (kvpage/tree.py). The build writes the
starting view's as HTML (sitegen/labs/trees.py), for the reader before Python starts and without
JavaScript; the page builds every later view's with createElementNS (static/kvpage/draw.js).
Here, in Chromium, on the chapter page and the single file (``DOCUMENTS``): each part the build
printed is rebuilt in place from the same view by the page's builder, and must come out the same
DOM (element by element: namespace, name, attributes in order, text); and for views the page
reaches later (a run finished, a dense grid, hostile request text), the HTML the build would write,
parsed by the browser, must equal what the builder makes of the tree.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from kvpage.labs import decode, next_request
from sitegen import pipeline
from sitegen.labs.trees import to_html
from sitegen.markdown.ids import prefixed
from tests.browser_fixtures import DOCUMENTS, Where
from tests.e2e.conftest import PYTHON_READY_MS

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("site_url", DOCUMENTS, indirect=True)]


DESCRIBE = """(node) => {
  const describe = (n) => n.nodeType === Node.TEXT_NODE ? ["#text", n.data]
    : [n.namespaceURI, n.localName, [...n.attributes].map((a) => [a.name, a.value]), [...n.childNodes].map(describe)];
  return [...node.childNodes].map(describe);
}"""
REBUILT = f"""([container, nodes]) => {{
  kvpageDraw.renderTree(container, nodes);
  return ({DESCRIBE})(container);
}}"""
BOTH = f"""([html, nodes]) => {{
  const parsed = document.createElement("template");
  parsed.innerHTML = html;
  const built = document.createElement("div");
  kvpageDraw.renderTree(built, nodes);
  return [({DESCRIBE})(parsed.content), ({DESCRIBE})(built)];
}}"""


def later_views() -> list[tuple[str, dict[str, Any]]]:
    run = {"prompt": 16, "tokens": 16, "state": {"steps": 0}}
    hostile = '<script>alert(1)</script> & "quotes" \u202e 👩‍👩‍👧 <b>'
    return [
        ("decode finished with the cache", decode.finish({**run, "mode": "kv"})),
        ("decode finished recomputing", decode.finish({**run, "mode": "recompute"})),
        ("decode dense, three steps in", decode.view(decode.DecodeRun(128, 64, "kv", 3))),
        ("next-request, hostile text", next_request.compare({"request1": hostile, "request2": hostile + "x"})),
        ("next-request, empty", next_request.compare({"request1": "", "request2": ""})),
    ]


def test_the_build_and_the_page_draw_every_tree_as_the_same_dom(
    audited: tuple[Page, str], site_url: Where, rendered: pipeline.Rendered
) -> None:
    # The chapter as the build rendered it (a fixture: rendering at import would cost every test worker).
    (chapter,) = [page for page in rendered.pages.pages if page.url == "cache.html"]
    page, url = audited
    page.goto(url)
    single = site_url.chapter == site_url.origin
    checked = 0
    # The starting views, in place: what the build printed, rebuilt from the same trees.
    for use in chapter.labs:
        heading = prefixed("cache", use.heading_id) if single else use.heading_id
        region = page.get_by_role("region").filter(has=page.locator(f"#{heading}"))
        for name, nodes in use.view.get("parts", {}).items():  # type: ignore[union-attr]
            container = region.locator(f'[data-part="{name}"]').element_handle()
            printed = page.evaluate(DESCRIBE, container)
            assert printed, f"{use.kind.name}: part {name!r} is empty in the page"
            assert page.evaluate(REBUILT, [container, nodes]) == printed, f"{use.kind.name}: part {name!r}"
            checked += 1
    assert checked == sum(len(use.kind.parts) for use in chapter.labs)
    # Views the page reaches later: the build's HTML for them, parsed, against the page's DOM.
    for case, view in later_views():
        for name, nodes in view["parts"].items():
            parsed, built = page.evaluate(BOTH, [to_html(nodes), json.loads(json.dumps(nodes))])
            assert parsed == built, f"{case}: part {name!r}"
    expect(page.locator("html")).to_have_attribute("data-python", "ready", timeout=PYTHON_READY_MS)
