"""runtime (stage "runtime"): ``kvpage/``, the pinned Pyodide and the book's enabled labs → a
:class:`sitegen.runtime.bundle.Runtime` (Pyodide checked, the wheel built, a memory snapshot warmed, every binary
packed), reused from ``.cache/runtime/`` when its inputs are unchanged.
"""
