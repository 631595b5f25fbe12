"""Every lab of ``kvpage/labs/``, found by looking, and the warm-up that calls each of their actions.

Finding the labs by looking lets a new lab be one new file, no list to extend (:func:`declared`);
the snapshot runs every action before Python's memory is saved for the page (:func:`warm_up`).
"""

from __future__ import annotations

import importlib
import json
import pkgutil

import kvpage.labs
from kvpage import bridge
from kvpage.jsonvalue import JSONObject
from kvpage.lab import LABS_PACKAGE, Lab


def declared() -> list[tuple[str, Lab]]:
    """(module, its ``LAB``) for every module of ``kvpage.labs`` that declares one, in module order.

    A lab is a module of ``kvpage.labs`` that defines ``LAB`` (a :class:`kvpage.lab.Lab`); other
    modules there (``chart``, ``grid``) are helpers. Finding them by looking is what lets a new lab be
    one new file: no list to extend.
    """
    found: list[tuple[str, Lab]] = []
    for info in sorted(pkgutil.iter_modules(kvpage.labs.__path__), key=lambda info: info.name):
        module = f"{LABS_PACKAGE}.{info.name}"
        lab = getattr(importlib.import_module(module), "LAB", None)
        if isinstance(lab, Lab):
            found.append((module, lab))
    return found


def find_labs() -> dict[str, Lab]:
    """Every lab by name, in module order; a module whose ``LAB`` is misnamed is left to ``misnamed``."""
    return {lab.name: lab for module, lab in declared() if lab.module == module}


def misnamed() -> list[tuple[str, str]]:
    """(module, lab name) of each ``LAB`` whose name is not its module's: the page could not find it."""
    return [(module, lab.name) for module, lab in declared() if lab.module != module]


def warm_up(names: list[str]) -> list[JSONObject]:
    """Call every action of the labs ``names`` through the bridge, as the page would; return the failures.

    The names come from the build (``find_labs`` in CPython): the page's Python
    finds each lab by name, as the bridge does, without listing a folder (which is what this
    avoids inside the page's Python). The build-time snapshot (Pyodide) runs this so that every
    action has run, and imported what it imports, before Python's memory is saved for the page. Each
    failure is ``{"lab", "action", "args", "error", "traceback"}``. One refused
    request at the end runs the bridge's own error path too.
    """
    failures: list[JSONObject] = []
    for lab in map(bridge.lab_named, names):
        for action, args in lab.warm_up_calls():
            reply = json.loads(bridge.handle(json.dumps({"lab": lab.name, "action": action, "args": args})))
            if not reply["ok"]:
                failures.append(
                    {
                        "lab": lab.name,
                        "action": action,
                        "args": args,
                        "error": reply["error"],
                        "traceback": reply.get("traceback", ""),
                    }
                )
    bridge.handle(json.dumps({"lab": "no-such-lab", "action": "none", "args": {}}))
    return failures
