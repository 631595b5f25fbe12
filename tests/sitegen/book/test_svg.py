"""SVG files: their size from width, height and viewBox; anything that could run code refused at its line."""

from __future__ import annotations

import pytest

from sitegen.book.svg import read_svg

NS = 'xmlns="http://www.w3.org/2000/svg"'


@pytest.mark.parametrize(
    ("attributes", "size"),
    [
        ('viewBox="0 0 320 120"', (320, 120)),
        ('viewBox="0,0,32.4,12.6"', (32, 13)),
        ('width="200" height="100"', (200, 100)),
        ('width="200px" height="100px" viewBox="0 0 20 10"', (200, 100)),
        ('width="1in" height="2.54cm"', (96, 96)),
        ('width="72pt" height="6pc"', (96, 96)),
        ('width="100%" height="100%" viewBox="0 0 40 30"', (40, 30)),
        ('width="80" viewBox="0 0 40 30"', (80, 60)),
        ('height="60" viewBox="0 0 40 30"', (80, 60)),
        ('width="2em" height="1em" viewBox="0 0 40 20"', (40, 20)),
    ],
)
def test_the_size_the_root_asks_for(attributes: str, size: tuple[int, int]) -> None:
    found = read_svg(f"<svg {NS} {attributes}><rect/></svg>".encode())
    assert (found.size, found.problems) == (size, [])


@pytest.mark.parametrize("attributes", ["", 'width="100%" height="50%"', 'viewBox="0 0 0 10"', 'width="10"'])
def test_an_svg_without_a_size_is_a_problem(attributes: str) -> None:
    found = read_svg(f"<svg {NS} {attributes}/>".encode())
    assert found.size is None
    assert [line for line, _ in found.problems] == [1]
    assert "gives no size" in found.problems[0][1]


HOSTILE = f"""<?xml version="1.0"?>
<svg {NS} xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 10 10">
  <script>alert(1)</script>
  <rect width="10" height="10" onclick="alert(2)"/>
  <a xlink:href="java&#x09;script:alert(3)"><text>x</text></a>
  <foreignObject width="10" height="10"><p>html</p></foreignObject>
  <h:iframe/>
  <animate attributeName="href" to=" JavaScript:alert(4)"/>
  <SCRIPT/>
</svg>
"""


def test_everything_that_could_run_code_is_refused_at_its_line() -> None:
    found = read_svg(HOSTILE.encode())
    assert [(line, message.split(";")[0]) for line, message in found.problems] == [
        (3, "the SVG holds a <script> element"),
        (4, "<rect> has the event-handler attribute 'onclick'"),
        (5, "<a> href= holds a javascript: URL"),
        (6, "the SVG holds a <foreignObject> (HTML inside the image)"),
        (7, "the SVG holds an HTML element <iframe>"),
        (8, "<animate> to= holds a javascript: URL"),
        (9, "the SVG holds a <script> element"),
    ]
    assert all("refused" in message for _, message in found.problems)
    assert found.size is None  # a refused file is not measured


def test_styles_links_and_titles_are_fine() -> None:
    text = f"""<svg {NS} viewBox="0 0 10 10"><title>A box</title>
<style>rect {{ fill: #0b6e69 }} @media (prefers-color-scheme: dark) {{ rect {{ fill: #5cc8c0 }} }}</style>
<a href="https://example.org/"><rect width="10" height="10"/></a></svg>"""
    assert read_svg(text.encode()).problems == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<svg", (1, "not a well-formed SVG file: unclosed token")),
        (f"<svg {NS}>\n<g>\n</svg>", (3, "not a well-formed SVG file: mismatched tag")),
        ("<html/>", (1, "not an SVG image: its root element is <html>, not <svg>")),
    ],
)
def test_a_file_that_is_not_svg(text: str, problem: tuple[int, str]) -> None:
    assert read_svg(text.encode()).problems[:1] == [problem]


def test_entity_expansion_cannot_hang_the_build() -> None:
    """A "billion laughs" file: expat refuses to amplify it, quickly, and it is reported."""
    entities = '<!ENTITY a0 "lol">' + "".join(f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">' for i in range(1, 10))
    text = f'<?xml version="1.0"?><!DOCTYPE svg [{entities}]><svg {NS} viewBox="0 0 1 1"><text>&a9;</text></svg>'
    found = read_svg(text.encode())
    assert found.size is None
    assert found.problems and found.problems[0][1].startswith("not a well-formed SVG file")
