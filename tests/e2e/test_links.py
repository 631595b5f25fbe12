"""Every lab state is a link, in Chromium: the URL follows the reader, a copied link opens the same
lab, and a hostile or stale fragment is ignored field by field.

The round trip and the hostile link run on the two documents (tests/browser_fixtures.py,
DOCUMENTS, says why; from the unzipped zip they are the Firefox and WebKit link flow's,
tests/browsers/flows.py): the chapter page over http, and the single file of the book with a
second author's chapters added (tests/conftest.py's BOOKS). That single file holds content/'s
chapter and more, every chapter's labs on one page with their ids prefixed, where a link must still
reach the lab it names and no other: what content/'s own single file asks of a link, and more (a
chapter's own page is the same there as in content/). The checks over http alone share one page
(``one_page``), each starting from a link. Expected numbers are the page's own (what the first
page showed) or the model's, run in CPython (tests/browsers/flows.py, which the Firefox and WebKit
suites perform too).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, Route, expect

from kvpage.jsonvalue import LabInputError
from kvpage.lab import out_of_range
from kvpage.labs import decode
from kvpage.labs.next_request import MAX_REQUEST_CHARS
from tests.browser_fixtures import Server, Where
from tests.browsers.flows import DECODE_READOUTS, HOSTILE_FRAGMENT, LINK_FIELD, LINK_NOTE, NEXT_READOUTS, decode_view
from tests.chapter_labs import DECODE, NEXT, chapter_run, lab_params, next_readout, one_letter_changed
from tests.conftest import Built
from tests.e2e.conftest import PYTHON_READY_MS, audit_page, follow_link, in_books, lab_link

pytestmark = [pytest.mark.e2e, pytest.mark.book]

OTHER_MODE = next(value for value, _ in decode.MODE.options if value != decode.MODE.default)
OTHER_MODE_LABEL = dict(decode.MODE.options)[OTHER_MODE]
LINKED = "Python has not started yet: the controls show this link's values, and their numbers appear once it runs."


over_http = pytest.mark.parametrize("one_page", ["http"], indirect=True)


def at_the_chapters_values(page: Page, url: str) -> tuple[Locator, Locator]:
    """Both labs at the chapter's values, by a link followed on the module's page."""
    decode_values = lab_params("decode")
    requests = lab_params("next-request")
    decode_link = lab_link("decode", **decode_values, steps=0)
    next_link = lab_link("next-request", request1=requests["request1"], request2=requests["request2"])
    follow_link(page, url, f"{decode_link}&{next_link}")
    return live(page)


def live(page: Page) -> tuple[Locator, Locator]:
    """The two labs, once Python is live."""
    lab = page.get_by_role("region", name=DECODE)
    expect(lab.get_by_role("button", name="Forward")).to_be_enabled(timeout=PYTHON_READY_MS)
    return lab, page.get_by_role("region", name=NEXT)


def readouts(region: Locator, labels: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {label: region.get_by_label(label).inner_text() for label, _ in labels}


def expect_readouts(region: Locator, shown: dict[str, str]) -> None:
    for label, text in shown.items():
        expect(region.get_by_label(label)).to_have_text(text)


@in_books(["http"], ["single-file"])
def test_a_copied_lab_link_opened_in_a_new_context_shows_the_same_readouts(
    audited: tuple[Page, str], browser: Browser, site_url: Where
) -> None:
    page, url = audited
    page.goto(url)
    lab, other = live(page)
    seed = readouts(other, NEXT_READOUTS)
    entries = page.evaluate("history.length")

    lab.get_by_label("Prefix length").fill(str((decode.PROMPT.low + decode.PROMPT.high) // 2))
    lab.get_by_role("radio", name=OTHER_MODE_LABEL).check()
    for steps in range(1, 4):
        lab.get_by_role("button", name="Forward").click()
        expect(lab.get_by_text(re.compile(rf"^step {steps} of "))).to_be_visible()
    # Issue 34: 1,500 "😀" are 1,500 code points, within request 2's limit, but 3,000 UTF-16 units;
    # the link the page writes for them must give them back, as Python counts (kvpage.lab.TEXT_LENGTH).
    typed = "😀" * (MAX_REQUEST_CHARS * 3 // 4)
    assert len(typed) <= MAX_REQUEST_CHARS < len(typed.encode("utf-16-le")) // 2
    other.get_by_label("Request 2", exact=True).fill(typed)
    expect_readouts(other, {label: next_readout(label, request2=typed) for label, _ in NEXT_READOUTS})
    assert readouts(other, NEXT_READOUTS) != seed
    # The URL carries both labs, readably, and exploring added no history entry.
    expect(page).to_have_url(
        re.compile(
            rf"#decode:prompt=\d+,tokens=\d+,mode={OTHER_MODE},steps=3&next-request:.*request2=(%F0%9F%98%80){{1000}}"
        )
    )
    assert page.evaluate("history.length") == entries
    shown = readouts(lab, DECODE_READOUTS) | {"progress": lab.get_by_text(re.compile(r"^step \d+ of ")).inner_text()}
    shown_other = readouts(other, NEXT_READOUTS)

    lab.get_by_role("button", name="Copy link").click()
    expect(
        lab.get_by_role("status").filter(has_text=re.compile(r"^(Link copied\.|The link is selected)"))
    ).to_be_visible()
    link = lab.get_by_label(LINK_FIELD).input_value()
    whole = page.url

    context = browser.new_context()
    opened = context.new_page()
    with audit_page(opened, site_url.origin):
        opened.goto(link)
        again, its_other = live(opened)
        expect(again.get_by_text(shown.pop("progress"), exact=True)).to_be_visible()
        expect_readouts(again, shown)
        expect_readouts(its_other, seed)  # the copied link is decode's alone
        expect(again.get_by_label("Prefix length")).to_have_value(lab.get_by_label("Prefix length").input_value())
        expect(again).to_be_in_viewport()  # the link names the lab's heading: the page opens there

        opened.goto("about:blank")
        opened.goto(whole)  # the page's own URL: both labs
        again, its_other = live(opened)
        expect_readouts(again, shown)
        expect(its_other.get_by_label("Request 2", exact=True)).to_have_value(typed)
        expect_readouts(its_other, shown_other)
        expect(its_other.get_by_text(LINK_NOTE)).to_be_hidden()
    context.close()


@in_books(["http"], ["single-file"])
def test_a_hostile_or_stale_link_is_ignored_field_by_field_with_a_quiet_note(audited: tuple[Page, str]) -> None:
    page, url = audited
    page.goto(url + HOSTILE_FRAGMENT)
    lab, other = live(page)
    params = lab_params("decode")
    prompt, tokens = int(params["prompt"]), int(params["tokens"])
    expect_readouts(
        lab, {label: decode_view(prompt, tokens, decode.MODE.default, 2)[name] for label, name in DECODE_READOUTS}
    )
    note = lab.get_by_text(LINK_NOTE)
    expect(note).to_contain_text(f"prompt=9999 ({out_of_range(decode.PROMPT.label, decode.PROMPT, 9999)})")
    expect(note).to_contain_text("colour (this lab has no such setting)")
    expect(note).to_contain_text("turns (no such lab on this page)")
    expect(other.get_by_text(LINK_NOTE)).to_contain_text("characters; the lab takes at most 2,000")
    assert page.evaluate("window.__injected") is None
    assert page.locator("section.lab img, section.lab script").count() == 0
    # The URL keeps what the page shows, not what the link asked for.
    expect(page).to_have_url(
        re.compile(rf"#decode:prompt={prompt},tokens={tokens},mode={decode.MODE.default},steps=2$")
    )

    # A state its run cannot hold (more steps than tokens), followed within the page: refused by the
    # model, said in the note, and the run its values start.
    fewer = decode.TOKENS.low + 3
    with pytest.raises(LabInputError) as refused:
        decode.resume({"prompt": prompt, "tokens": fewer, "mode": "kv", "state": {"steps": fewer + 1}})
    page.goto(f"{url}#decode:tokens={fewer},steps={fewer + 1}")
    expect(lab.get_by_text(LINK_NOTE)).to_contain_text(f"steps={fewer + 1} ({refused.value})")
    expect(lab.get_by_text(f"step 0 of {fewer}", exact=True)).to_be_visible()

    # A heading beside a lab's state: the page goes to the heading, the lab takes the state; and a
    # heading's own link keeps the labs' state in the URL.
    # The chapter's own "In English", the last before its lab: the single file has one per chapter.
    heading = lab.locator("xpath=preceding::*[self::h2 or self::h3][normalize-space()='In English'][1]")
    anchor = heading.get_attribute("id")
    assert anchor
    page.goto(f"{url}#{anchor}&decode:prompt=24")
    expect(lab.get_by_label("Prefix length")).to_have_value("24")
    expect(heading).to_be_in_viewport()
    expect(page).to_have_url(re.compile(rf"#{re.escape(anchor)}&decode:prompt=24,"))
    other_heading = other.get_attribute("aria-labelledby") or ""
    page.goto(f"{url}#{other_heading}")
    expect(page).to_have_url(re.compile(rf"#{re.escape(other_heading)}&decode:prompt=24,"))
    expect(other).to_be_in_viewport()


def test_before_python_the_controls_show_the_link_and_the_readouts_no_numbers(
    browser: Browser, http_site: Server, built: Built
) -> None:
    page = browser.new_page()
    held: list[Route] = []
    failing = False
    wasm = built.packed("pyodide.asm.wasm")

    def hold(route: Route) -> None:
        """Held, not answered: Python cannot start until it is; once ``failing``, refused."""
        if failing:
            route.abort()
        else:
            held.append(route)

    page.route(f"**/{wasm}*", hold)
    with page.expect_request(lambda request: wasm in request.url):
        page.goto(http_site.base + f"cache.html#decode:prompt=24,mode={OTHER_MODE},steps=5")
    lab = page.get_by_role("region", name=DECODE)
    expect(lab.get_by_label("Prefix length")).to_have_value("24")
    expect(lab.get_by_role("radio", name=OTHER_MODE_LABEL)).to_be_checked()
    expect(lab.get_by_text(LINKED)).to_be_visible()
    for label, _ in DECODE_READOUTS:
        expect(lab.get_by_label(label)).to_have_text("—")
    for name in ("Generate", "Back", "Forward", "Reset"):  # nothing to click until Python can answer
        expect(lab.get_by_role("button", name=name)).to_be_disabled()
    # Copy link works without Python: the link is the one the page was opened with.
    lab.get_by_role("button", name="Copy link").click()
    expect(lab.get_by_label(LINK_FIELD)).to_have_value(
        re.compile(rf"decode:prompt=24,tokens=16,mode={OTHER_MODE},steps=5$")
    )

    expect(page.get_by_text(LINKED)).to_have_count(1)  # the other lab was not linked: it shows the build's numbers
    assert held, "the runtime's request was not held"
    failing = True
    for route in held:
        route.abort()
    expect(lab.get_by_text(re.compile(r"The labs could not start .*this link's values need Python"))).to_be_visible(
        timeout=PYTHON_READY_MS
    )
    expect(lab.get_by_label("Prefix length")).to_have_value(lab_params("decode")["prompt"])
    expect(lab.get_by_label("If every step recomputed")).to_have_text(chapter_run().readout("If every step recomputed"))
    page.close()


@over_http
def test_print_shows_each_lab_with_its_link(on_one_page: tuple[Page, str]) -> None:
    page, url = on_one_page
    lab, _ = at_the_chapters_values(page, url)
    lab.get_by_role("button", name="Forward").click()
    expect(lab.get_by_text(re.compile(r"^step 1 of \d+$"))).to_be_visible()
    printed = lab.get_by_text("Link to this state:")
    expect(printed).to_be_hidden()
    page.emulate_media(media="print")
    expect(printed).to_be_visible()
    expect(printed).to_contain_text(re.compile(r"#lab[^ ]*&decode:prompt=16,tokens=16,mode=kv,steps=1$"))
    expect(lab.get_by_role("button", name="Copy link")).to_be_hidden()
    expect(page.get_by_role("region", name=NEXT).get_by_text("Link to this state:")).to_contain_text(
        "next-request:request1="
    )


@over_http
def test_a_link_followed_while_the_page_writes_its_url_is_still_followed(on_one_page: tuple[Page, str]) -> None:
    """The page writes the labs' state into its URL (``history.replaceState``) a moment after each
    draw. A link followed in that moment had its fragment replaced before the page handled its
    ``hashchange``, which then applied the old state instead (seen under load: ``#In-English&decode:
    prompt=24`` left the slider at 16). Here both happen in one task, the rewrite after the link."""
    page, url = on_one_page
    lab, _ = at_the_chapters_values(page, url)
    prompt = int(lab_params("decode")["prompt"]) + 8
    page.evaluate(
        """(hash) => {
          const before = location.href;
          location.hash = hash;
          history.replaceState(history.state, "", before);
        }""",
        f"#decode:prompt={prompt}",
    )
    expect(lab.get_by_label("Prefix length")).to_have_value(str(prompt))


@over_http
def test_a_request_typed_key_by_key_is_in_the_url_once_its_readouts_show_it(on_one_page: tuple[Page, str]) -> None:
    """Issue 39, point 7: typed key by key, request 2's answers are drawn as they come, and each
    wrote the URL 200 ms after it was drawn. WebKit's link flow reloaded just after the readouts
    showed the whole request, and got the URL of a partial one (3 of 5 runs under load). The answer to
    the reader's last key is in the URL the moment it is drawn, so a reload right after keeps it."""
    page, url = on_one_page
    _, other = at_the_chapters_values(page, url)
    typed = one_letter_changed(lab_params("next-request")["request2"])
    box = other.get_by_label("Request 2", exact=True)
    box.select_text()
    box.press_sequentially(typed)  # key by key, as a reader (and WebKit's driver) types
    expect(other.get_by_label("Shared prefix")).to_have_text(next_readout("Shared prefix", request2=typed))
    page.reload()  # at once: the page has had no time to write a URL later
    _, other = live(page)
    expect(other.get_by_label("Request 2", exact=True)).to_have_value(typed)
    for label, _ in NEXT_READOUTS:
        expect(other.get_by_label(label)).to_have_text(next_readout(label, request2=typed))


NO_CLIPBOARD = """() => {
  Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
  document.execCommand = () => false;
}"""
"""A page that may not write the clipboard (as from a file) and whose copy command copies nothing."""
CLIPBOARD_BACK = "() => { delete navigator.clipboard; delete document.execCommand; }"
"""The page's own clipboard and copy command again (NO_CLIPBOARD shadowed them)."""


@over_http
def test_copy_link_without_a_clipboard_selects_the_link_for_the_reader(on_one_page: tuple[Page, str]) -> None:
    """Where the page may not write the clipboard (from a file, say), Copy link leaves the link in its
    field, selected and focused, and says how to copy it. The last test on the module's page: the
    field stays shown; the clipboard and copy command, taken away, are given back."""
    page, url = on_one_page
    lab, _ = at_the_chapters_values(page, url)
    page.evaluate(NO_CLIPBOARD)
    try:
        lab.get_by_role("button", name="Copy link").click()
        expect(lab.get_by_role("status").filter(has_text="press Ctrl+C")).to_have_text(
            "The link is selected: press Ctrl+C (⌘C on a Mac) to copy it."
        )
        field = lab.get_by_label(LINK_FIELD)
        expect(field).to_be_focused()
        value = field.input_value()
        assert value.startswith(url + "#") and "&decode:" in value
        assert field.evaluate("el => [el.selectionStart, el.selectionEnd]") == [0, len(value)]
    finally:
        page.evaluate(CLIPBOARD_BACK)
