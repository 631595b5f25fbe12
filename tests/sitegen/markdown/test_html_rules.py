"""Raw HTML in a chapter: the allow-list, the refused elements and attributes, and what never closes."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from sitegen.markdown.html_rules import EARLY, EMPTY, HIDES, NO_CODE, check_raw_html
from sitegen.markdown.html_tokens import tokenize
from sitegen.markdown.ids import start_tags
from tests.raw_html_fuzz import fragments


@pytest.mark.parametrize(
    "fragment",
    [
        '<div class="note" id="n1" role="note" aria-label="A note">Text</div>',
        "<details open><summary>More</summary>\n<p>Inside.</p>\n</details>",
        '<a href="files/costs.csv" download title="The numbers">costs</a> <abbr title="key-value">KV</abbr>',
        '<img src="img/x.svg" alt="A box" width="40" height="20" loading="lazy">',
        '<table><caption>C</caption><tr><th scope="col" colspan="2">h</th></tr><tr><td>1</td><td>2</td></tr></table>',
        "<kbd>Ctrl</kbd>+<kbd>C</kbd>, H<sub>2</sub>O, x<sup>2</sup>, <mark>new</mark>, line<br>break<wbr>",
        '<video controls src="files/run.webm"><track kind="captions" src="files/run.vtt" srclang="en"></video>',
        "<!-- a note to myself, closed -->",
        '<a href="https://example.org/?q=javascript:x">a search for it</a>',
    ],
)
def test_html_that_marks_up_text_passes(fragment: str) -> None:
    assert list(check_raw_html(fragment).problems) == []


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ('<script src="files/evil.js"></script>', f"raw HTML <script> is refused: {NO_CODE}"),
        ("<SCRIPT>alert(1)", f"raw HTML <script> is refused: {NO_CODE}"),
        ('<meta http-equiv="refresh" content="0;url=https://example.com/">', "raw HTML <meta> is refused: "),
        ('<base href="https://example.com/">', "raw HTML <base> is refused: it would change where every link"),
        ('<object data="x.swf"></object>', "raw HTML <object> is refused: it would load another document"),
        ('<svg onload="alert(1)"></svg>', "raw HTML <svg> is refused: not an element a chapter may use"),
        (
            '<img src="x.png" alt="" onerror="alert(1)">',
            f"raw HTML <img> has the event-handler attribute 'onerror': {NO_CODE}",
        ),
        ('<a href="JaVaScRiPt:alert(1)">x</a>', "raw HTML <a> href= holds a javascript: URL"),
        ('<a href="&#x6A;avascript:alert(1)">x</a>', "raw HTML <a> href= holds a javascript: URL"),
        ('<a href="\njava\tscript:alert(1)">x</a>', "raw HTML <a> href= holds a javascript: URL"),
        ('<a xlink:href="javascript:alert(1)">x</a>', "raw HTML <a> xlink:href= holds a javascript: URL"),
        (
            '<a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">x</a>',
            "raw HTML <a> href= holds a data: URL",
        ),
        ('<q cite="vbscript:msgbox(1)">x</q>', "raw HTML <q> cite= holds a vbscript: URL"),
        ('<a ping="https://example.com/" href="x.csv">x</a>', "raw HTML <a> may not have the attribute 'ping'"),
        ('<div data-field="paid">x</div>', "raw HTML <div> may not have the attribute 'data-field'"),
        ("<textarea>", f"raw HTML <textarea> is refused: {HIDES}"),
        ("<plaintext>", f"raw HTML <plaintext> is refused: {HIDES}"),
        ("<noscript>", f"raw HTML <noscript> is refused: {HIDES}"),
        ("<!-- never closed", "raw HTML comment '<!--' is not closed"),
        ("<!-- draft note -- >\nmore", "raw HTML comment '<!--' is not closed"),
        ('<!--><script src="files/p.txt"></script>-->', f"raw HTML <script> is refused: {NO_CODE}"),
        ("<!---><style>-->", f"raw HTML <style> is refused: {HIDES}"),
        ("<!-- x --!><textarea>-->", f"raw HTML comment '<!-- x --!>' ends at '--!>' {EARLY}"),
        ("<![CDATA[x]]>", "raw HTML <![CDATA[x]]> is refused: HTML reads it as a comment"),
        ("<?php echo 1 ?>", "raw HTML <?php echo 1 ?> is refused: HTML reads it as a comment"),
        ('<span aria-"x="1">x</span>', "raw HTML <span> may not have the attribute 'aria-\"x'"),
        ('<span title="never closed>', "raw HTML '<span title=\"never closed>' is not closed"),
        ("<!DOCTYPE html>", "raw HTML <!DOCTYPE html> is refused"),
        ("</body>", "raw HTML </body> is refused"),
    ],
)
def test_html_that_runs_loads_leaves_or_hides_is_refused(fragment: str, message: str) -> None:
    problems = list(check_raw_html(fragment).problems)
    assert {offset for offset, _ in problems} == {0}
    assert any(found.startswith(message) for _, found in problems), problems


def test_each_problem_is_at_its_line_in_the_fragment() -> None:
    fragment = '<div>\n<p>Fine</p>\n<p onclick="x">Not</p>\n\n<iframe src="x.html"></iframe>\n<!-- open\n'
    assert [offset for offset, _ in list(check_raw_html(fragment).problems)] == [2, 4, 5]


@pytest.mark.parametrize(
    ("fragment", "written"),
    [
        ("<!-- a note -->", "<!-- a note -->"),
        ("<!---->", "<!---->"),
        ("<!-- a -- b --->", "<!-- a -- b --->"),
        ("<!-- two\nlines -->", "<!-- two\nlines -->"),
        ('<span title="<!--">x</span>', '<span title="&lt;!--">x</span>'),
        (
            "<A HREF='files/a.csv' Title='say \"hi\"'>t &amp; <B>u</B></A>",
            '<a href="files/a.csv" title="say &quot;hi&quot;">t &amp; <b>u</b></a>',
        ),
        ("<br/><img src=x.png alt=''>", '<br><img src="x.png" alt>'),
        ('<div\n  class="x"\n  id="y">\n</div\n>', '<div class="x" id="y"\n\n>\n</div\n>'),
        ("a < b &lt c", "a &lt; b &lt; c"),
    ],
)
def test_the_page_gets_the_checked_tokens_written_out_on_the_lines_they_held(fragment: str, written: str) -> None:
    """Benign forms pass, and what the page gets is what the tokenizer read, never the author's text."""
    checked = check_raw_html(fragment)
    assert checked.problems == ()
    assert checked.html == written
    assert checked.html.count("\n") == fragment.count("\n")


@settings(max_examples=400, derandomize=True, database=None, deadline=None)
@given(fragments())
def test_what_passes_is_read_back_as_it_was_checked(fragment: str) -> None:
    """The page's HTML is a fixed point: checked again it passes unchanged, and Python's parser (which
    reads the page later for ids and links) reads the very start tags the standard's tokenizer read."""
    checked = check_raw_html(fragment)
    if checked.problems:
        return
    assert check_raw_html(checked.html) == replace(checked, warnings=())  # '<!-->' is written '<!---->'
    read = [
        (checked.html.count("\n", 0, token.start), token.name, list(token.attrs))
        for token in tokenize(checked.html).tokens
        if token.kind == "start"
    ]
    assert read == [(line, tag, [(n, v or "") for n, v in attrs]) for line, tag, attrs in start_tags(checked.html)]


@pytest.mark.parametrize("comment", ["<!-->", "<!--->"])
def test_an_empty_comment_is_a_comment_with_a_warning_and_what_follows_is_content(comment: str) -> None:
    """``<!-->`` and ``<!--->`` are complete comments to HTML and CommonMark (issue 46): accepted, written as
    the empty comment they are, and what follows is checked as the page's HTML; a warning says it ended there."""
    checked = check_raw_html(f"{comment} <b>shown</b>\n-->")
    assert checked.problems == ()
    assert checked.html == "<!----> <b>shown</b>\n--&gt;"
    assert checked.warnings == ((0, EMPTY.format(shown=comment)),)
    assert check_raw_html(f"<p>\n{comment}<style>").problems == ((1, f"raw HTML <style> is refused: {HIDES}"),)


def test_a_tag_left_open_at_the_end_is_reported_at_the_line_it_opens() -> None:
    fragment = '<div>\n<p>Fine</p>\n<p title="never\nclosed\n'
    assert list(check_raw_html(fragment).problems) == [
        (
            2,
            "raw HTML '<p title=\"never' is not closed: a browser would read the rest of the page into it; "
            "close it with '>'",
        )
    ]
