"""The book's command line: ``kvpage-book build|serve`` (and ``python build.py``, the same).

Parsing is :mod:`sitegen.cli.arguments`'s (every option and its help in one place); this turns the parsed
arguments into :class:`sitegen.pipeline.Options` and runs the build, ``serve`` or ``serve``'s
build worker (the hidden ``worker`` command, which ``serve`` starts as ``build.py worker``).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sitegen.cli.arguments import WORKER, parse
from sitegen.cli.progress import SILENT, Progress
from sitegen.errors import BuildError, tallied
from sitegen.labs.discovery import enabled_labs
from sitegen.memo import Memo, digest
from sitegen.pipeline import ROOT, SINGLE_FILE, ZIP_TOP, Options, build, render
from sitegen.runtime.cache import runtime_key
from sitegen.serve import builder as serve_builder
from sitegen.serve import server as serving
from sitegen.serve.lint import model_lint
from sitegen.site.assemble import Site
from sitegen.site.output import recover, refresh

ENTRY = ROOT / "build.py"
"""The project's own entry point, which ``serve`` runs as its build worker."""
PRELOAD = (
    "numpy",
    "pyodide_lock.spec",
    "pyodide_lock.utils",
    "hatchling.builders.wheel",
    "jinja2",
    "markupsafe",
    "markdown_it",
    "mdit_py_plugins.anchors",
    "mdit_py_plugins.container",
    "mdit_py_plugins.deflist",
    "mdit_py_plugins.dollarmath",
    "mdit_py_plugins.footnote",
    "mdit_py_plugins.front_matter",
    "mdit_py_plugins.gfm_autolink",
    "mdit_py_plugins.tasklists",
    "pygments.formatters",
    "pygments.lexers",
    "yaml",
)
"""The third-party modules the build imports: serve's standby builder imports them ahead of time."""


def options_from(args: argparse.Namespace) -> Options:
    """The Options a parsed command line asks for (paths made absolute)."""
    out = getattr(args, "out", None)
    dist = getattr(args, "dist", None)
    return Options(
        content=args.content.resolve(),
        out=out.resolve() if out is not None else ROOT / "site",
        dist=dist.resolve() if dist is not None else ROOT / "dist",
        strict=args.strict,
        sweep=args.sweep,
        single_file=getattr(args, "single_file", False),
        publish_zip=getattr(args, "publish_zip", False),
        cache=args.cache,
    )


def run_build(options: Options, progress: Progress) -> int:
    """``build``: the whole pipeline, its errors printed as ``path:line: message``."""
    started = time.perf_counter()
    try:
        site = build(options, progress)
    except BuildError as error:
        for warning in tallied(error.warnings):
            print(f"warning: {warning}", file=sys.stderr)
        for problem in error.errors:
            print(f"error: {problem}", file=sys.stderr)
        print(f"build failed: {len(error.errors)} error(s); nothing was written", file=sys.stderr)
        return 1
    size = sum(len(data) for data in site.files.values())
    elapsed = time.perf_counter() - started
    print(f"built {len(site.files)} files ({size / 1e6:.1f} MB) in {options.out} in {elapsed:.1f} s")
    outputs = [options.dist / f"{ZIP_TOP}.zip"] + ([options.dist / SINGLE_FILE] if options.single_file else [])
    for written in outputs:
        print(f"wrote {written} ({written.stat().st_size / 1e6:.1f} MB)")
    return 0


@dataclass
class Kept:
    """What serve's worker keeps between its builds of one book: each step's last result, and the site
    it last published, whose files changed it then rewrites alone (decision 0064)."""

    memo: Memo
    tools: str
    """The npm packages installed (Temml, MiniSearch, esbuild): an ``npm ci`` under serve drops the memo."""
    site: Site | None = None


KEPT: dict[Options, Kept] = {}
"""The worker's book (its options but ``hot_base``) and what it keeps of it."""


def npm_tools(root: Path) -> str:
    """What npm installed in ``root`` (its lock files), for :class:`Kept`."""
    locks = (root / "package-lock.json", root / "node_modules" / ".package-lock.json")
    return digest(lock.read_bytes() if lock.is_file() else b"" for lock in locks)


def rebuild_for_serve(options: Options, progress: Progress, hot_base: str = "") -> serve_builder.Report:
    """One build of ``serve``'s worker: the site into ``options.out``, no zip, no single file.

    ``hot_base`` is serve's word that only the model changed since the build whose runtime had that
    key: the runtime stage then builds only the wheel. The report names the runtime whose snapshot
    the site holds, for serve's next such word.
    """
    started = time.perf_counter()
    kept, tools = KEPT.get(options), npm_tools(options.root)
    if kept is None or hot_base or kept.tools != tools:  # a new book, model or tools: nothing kept holds
        KEPT.clear()
        kept = KEPT[options] = Kept(Memo(), tools)
    options = replace(options, hot_base=hot_base)
    recover(options.out, ())  # serve writes no zip: dist/ is a command-line build's, left alone
    try:
        rendered = render(options, progress, kept.memo)
        last, kept.site = kept.site, None  # a publish cut short is followed by a whole one
        refresh(rendered.site, options.out, last)
        kept.site = rendered.site
        kept.memo.forget_unused()
    except BuildError as error:
        return serve_builder.Report(
            ok=False,
            errors=[str(problem) for problem in error.errors],
            warnings=tallied(error.warnings) + model_lint(options.root),
        )
    seconds = time.perf_counter() - started
    runtime = rendered.runtime
    if runtime is None:
        snapshot = ""
    else:
        snapshot = runtime.snapshot_key or runtime_key(options.root, enabled_labs(rendered.book.experimental_labs))
    warnings = tallied(rendered.warnings) + model_lint(options.root)  # lint warns, never fails (sitegen.serve.lint)
    return serve_builder.Report(ok=True, seconds=seconds, warnings=warnings, runtime=snapshot)


def serve_config(options: Options, port: int) -> serving.Config:
    """What ``serve`` watches and how it starts its worker (``build.py worker``)."""
    flags = ["--content", str(options.content)]
    flags += ["--strict"] if options.strict else []
    flags += [] if options.sweep else ["--no-sweep"]
    flags += [] if options.cache else ["--no-cache"]
    return serving.Config(
        port=port,
        worker=[sys.executable, str(ENTRY), WORKER, *flags],
        book=[options.content, options.templates],
        model=options.root / "kvpage",
        preload=PRELOAD,
        code=[
            options.root / "kvpage",
            options.root / "sitegen",
            ENTRY,
            options.root / "pyproject.toml",
            options.root / "kvpage" / "pyproject.toml",
        ],
        root=options.root,
    )


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv, ROOT, prog)
    options = options_from(args)
    if args.command == "serve":
        return serving.serve(serve_config(options, args.port))
    if args.command == WORKER:
        return serve_builder.run_worker(lambda hot_base: rebuild_for_serve(options, Progress(sys.stderr), hot_base))
    return run_build(options, SILENT if args.quiet else Progress(sys.stderr))
