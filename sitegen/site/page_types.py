"""The page config's types and each lab's schema's, written as TypeScript for the page's script.

:class:`sitegen.site.assemble.PageConfig`, :class:`sitegen.runtime.bundle.Loader` and the TypedDicts of
:mod:`kvpage.schema` written into ``site_template/static/kvpage/config.d.ts``, which tsc checks the page
against, so a field one side lacks fails ``make check``; ``--check`` there: the file is current (decision 0060).
"""

from __future__ import annotations

import sys
import types
import typing
from pathlib import Path

from kvpage import schema
from sitegen.runtime.bundle import Loader
from sitegen.site.assemble import PageConfig

TARGET = Path(__file__).resolve().parents[2] / "site_template" / "static" / "kvpage" / "config.d.ts"
HEADER = "// Written by sitegen/site/page_types.py from kvpage/schema.py, PageConfig and Loader: edit those.\n"
ALIASES: dict[str, object] = {"ControlSchema": schema.ControlSchema, "OutputKind": schema.OutputKind}
"""Unions written once, by name, and referred to by it."""
SCALARS: dict[object, str] = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}


def script_type(hint: object) -> str:
    """``hint`` (a resolved annotation) as a TypeScript type."""
    named = next((name for name, alias in ALIASES.items() if hint == alias), None)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if named is not None:
        return named
    if hint in SCALARS:
        return SCALARS[hint]
    if hint is typing.Any:
        return "unknown"
    if isinstance(hint, type):
        return hint.__name__
    if origin is typing.Literal:
        return " | ".join(f'"{value}"' for value in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(script_type(arg) for arg in args)
    if origin is list:
        return f"{script_type(args[0])}[]"
    if origin is dict:
        return f"Record<string, {script_type(args[1])}>"
    raise TypeError(f"page_types: no TypeScript for {hint!r}")


def doc(cls: type) -> str:
    """The first line of ``cls``'s docstring, as a comment."""
    return f"/** {(cls.__doc__ or cls.__name__).strip().splitlines()[0]} */\n"


def interface(cls: type) -> str:
    """``cls`` (a dataclass or a TypedDict) as an interface, every field as it is (JSON has them all)."""
    fields = "".join(f"  {name}: {script_type(hint)};\n" for name, hint in typing.get_type_hints(cls).items())
    return f"{doc(cls)}interface {cls.__name__} {{\n{fields}}}\n"


def declarations() -> str:
    """The whole of ``config.d.ts``."""
    aliases = [f"type {name} = {script_type_of_alias(alias)};\n" for name, alias in ALIASES.items()]
    interfaces = [interface(cls) for cls in (*schema.SCHEMAS, Loader, PageConfig)]
    return "\n".join([HEADER, *aliases, *interfaces])


def script_type_of_alias(alias: object) -> str:
    """An alias's own union (not its name)."""
    args = typing.get_args(alias)
    if typing.get_origin(alias) is typing.Literal:
        return " | ".join(f'"{value}"' for value in args)
    return " | ".join(script_type(arg) for arg in args)


def main(argv: list[str]) -> int:
    """Write ``config.d.ts``; with ``--check``, only say whether it is current (exit status 1 if not)."""
    wanted = declarations()
    if "--check" in argv:
        if TARGET.read_text(encoding="utf-8") == wanted:
            return 0
        print(f"{TARGET}: out of date: run python -m sitegen.site.page_types", file=sys.stderr)
        return 1
    TARGET.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
