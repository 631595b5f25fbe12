"""The names the page's HTML and its script share: every ``data-*`` attribute that wires a lab or search.

They are listed once, here, each with what it means (:data:`ATTRIBUTES`, which says what is not
listed), and ``tests/sitegen/site/test_page_contract.py`` holds the templates, the plugin and the
scripts to exactly this list: a name one side uses and the other does not is a broken wire.
"""

from __future__ import annotations

ATTRIBUTES: dict[str, str] = {
    "data-lab": "a lab's <section>: the lab's name, the key of its schema in the page's config",
    "data-state": "a lab's <section>: its starting view's state as JSON, when it has one (the next call carries it)",
    "data-control": "an input of a lab: the control's name (a radio group: each of its inputs)",
    "data-shows": "the number beside a slider: the id of the slider it shows",
    "data-places": "the number beside a decimal slider: how many decimal places it is printed with",
    "data-linked": "a lab's own control of its linked state (decode's step slider): the state's name",
    "data-action": "a lab's button: the button's name (what it calls is in the schema)",
    "data-field": "where a text output is shown: a readout, a status line, a [[field]] in the prose",
    "data-part": "the element a tree output fills: a picture's frame, a table, a list",
    "data-role": (
        "a lab's runtime line (runtime), its message (error), its loading bar (loading), its note on a link's"
        " ignored fields (note), its Copy link button (copy), the link's field (link), whether it was copied"
        " (copied), the link printed with the page (address); its Python disclosure (python), the disclosure's"
        " buttons (tools: edit, run, restore), the mark that it runs the reader's model (yours) and why a run"
        " failed (problem)"
    ),
    "data-python": "<html>: ready or failed, once Python has started or could not (CSS hides the loading bars)",
    "data-python-cache": (
        "<html>: hit when Python's binaries came unpacked from Cache Storage (a second visit over http),"
        " kept once a worker has put them there for the next visit"
    ),
    "data-phase": "a loading bar: the phase of the last progress event",
    "data-index": "the search box (partials/search.html): where static/search.js loads the index from",
    "data-file": "a file of a lab's Python disclosure: its path in the wheel (kvpage/costs.py), which Run replaces",
    "data-opens-at": (
        "a file of a lab's Python disclosure that Edit opens on: the line of the rule a reader changes first"
        " (kvpage/costs.py's paid_cells, sitegen/labs/sources.py), where the cursor is put"
    ),
    "data-kind": (
        "next-request: a token chip's kind (shared, differs, same, cold), drawn by the model; the lab's"
        " script scrolls the rows to the first chip not shared"
    ),
    "data-chip-info": "next-request: the line that tells a hovered or focused chip's index, for its list (data-part)",
}
"""Each name and what it means.

The templates and the Markdown plugin print these; ``static/kvpage/`` and the labs' own scripts find
elements by them. ``tests/sitegen/site/test_page_contract.py`` holds the templates, the plugin and the
scripts to exactly this list (a name one side uses and the other does not is a dead attribute or a
broken wire). The other half of the contract is typed in Python and read by name: the page's config
(``sitegen.site.assemble.PageConfig``, with ``sitegen.runtime.bundle.Loader``) and each lab's schema
(``kvpage.lab.Lab.schema``); the same test holds the script to their keys.

Not listed: the attributes inside a lab's pictures, tables and lists (``data-value``, …), which the
model draws (``kvpage/labs/``) and only CSS and the tests read (``data-kind`` is listed: the
next-request lab's script reads it); and serve's own.
"""
ROLES = (
    "runtime",
    "error",
    "loading",
    "note",
    "copy",
    "copied",
    "link",
    "address",
    "python",
    "tools",
    "edit",
    "run",
    "restore",
    "yours",
    "problem",
)
"""The values of ``data-role``."""
