"""The command line of ``kvpage-book`` (and ``build.py``): ``build`` and ``serve``.

Only the parsing lives here, so that every option and its help text are in one place;
:mod:`sitegen.cli.commands` turns the result into :class:`sitegen.pipeline.Options` and runs it.
``build`` is the default command, and the top-level ``--help`` explains every option on one screen.
"""

from __future__ import annotations

import argparse
from pathlib import Path

COMMANDS = ("build", "serve")
WORKER = "worker"
"""The hidden command ``serve`` runs in a child process to keep the build warm."""
DEFAULT_PORT = 8000

SUMMARY = """\
Build the kvpage book (content/*.md) into a static site, or serve it while you write.
With no command, build.py builds: 'build.py --strict' is 'build.py build --strict'.
Each command's options follow.
"""

BUILD = """\
Build the book into site/ (open site/index.html from disk, or serve the folder) and
dist/kvpage-site.zip. Every content error is reported as path:line: message, all at
once, and nothing is written unless the whole build succeeds (exit status 1).
"""

SERVE = """\
Serve the book on 127.0.0.1 (never on other interfaces) while you write. Every change
to content/, site_template/ or kvpage/ (the Python model) rebuilds the book, and the
open page reloads by itself: no browser extension, only a small script that serve
adds to the pages it serves (never to site/ or the zip). A change to the model alone
does not reload the page: serve builds only the new wheel, the open page swaps it into
its running Python and computes every lab again at the values you left it at (a change
to which files a lab's Python disclosure shows reloads the page). A build that fails
keeps the last good pages and shows its errors over them, and in this terminal; ruff's
findings on the model are warnings here, never a failure. serve writes nothing into
site/ or dist/; Ctrl-C stops it.
"""


def add_book_options(parser: argparse.ArgumentParser, root: Path) -> None:
    """The options every command shares: which book, how strict, whether to reuse the runtime."""
    parser.add_argument(
        "--content",
        type=Path,
        default=root / "content",
        metavar="FOLDER",
        help="the book to build: a folder with book.toml and one Markdown file per chapter "
        "(default: content/; for instance tests/books/two-chapters/content, or a broken book under tests/invalid/)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="treat warnings as errors: a link to a chapter the book does not have yet fails the build",
    )
    parser.add_argument(
        "--no-sweep",
        dest="sweep",
        action="store_false",
        help="call each lab at its starting values only, not at every value its controls reach and each "
        "button (the sweep, on by default): a quicker preview that can miss a lab's failure",
    )
    parser.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        help="rebuild the in-browser runtime (Pyodide checked, kvpage wheel built) even when .cache/runtime/ "
        "holds one built from the same kvpage/, Pyodide and build code; and compile Pyodide's stdlib again "
        "instead of reusing the compiled one kept in .cache/",
    )


def make_parser(root: Path, prog: str | None = None) -> argparse.ArgumentParser:
    """The parser for ``build.py [COMMAND] [OPTIONS]``; ``root`` is the project, for the defaults."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(prog=prog, description=SUMMARY, formatter_class=raw)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = commands.add_parser(
        "build",
        help="build site/ and dist/kvpage-site.zip (the default command)",
        description=BUILD,
        formatter_class=raw,
    )
    add_book_options(build, root)
    build.add_argument(
        "--out", type=Path, default=root / "site", metavar="FOLDER", help="where the site goes (default: site/)"
    )
    build.add_argument(
        "--dist", type=Path, default=root / "dist", metavar="FOLDER", help="where the zip goes (default: dist/)"
    )
    build.add_argument(
        "--single-file",
        action="store_true",
        help="also write dist/kvpage.html: the whole book in one HTML file that opens anywhere",
    )
    build.add_argument(
        "--publish-zip",
        action="store_true",
        help="also put the zip into the site (site/kvpage-site.zip) and link it from the index page, "
        "as GitHub Pages publishes it; the index inside the zip has no such link",
    )
    build.add_argument(
        "--quiet", action="store_true", help="do not announce the long steps (runtime, zip, single file) as they run"
    )

    serve = commands.add_parser(
        "serve",
        help="serve the book on 127.0.0.1, rebuild on every change, reload the open page",
        description=SERVE,
        formatter_class=raw,
    )
    add_book_options(serve, root)
    serve.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port on 127.0.0.1 (default: {DEFAULT_PORT}; 0 picks a free one, printed at start)",
    )

    worker = commands.add_parser(WORKER)  # no help: internal, started by serve
    add_book_options(worker, root)
    worker.add_argument("--out", type=Path, required=True)

    shown = {"build": build, "serve": serve}
    parser.epilog = "\n".join(f"{name}:\n{sub.format_help()}" for name, sub in shown.items())
    return parser


def parse(argv: list[str], root: Path, prog: str | None = None) -> argparse.Namespace:
    """The parsed command line; with no command (``build.py --strict``), the command is ``build``."""
    first = argv[0] if argv else None
    if first not in (*COMMANDS, WORKER, "-h", "--help"):
        argv = ["build", *argv]
    return make_parser(root, prog).parse_args(argv)
