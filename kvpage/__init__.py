"""kvpage: the cost model behind the Cache chapter's labs.

Everything in this package is pure standard library and does no I/O, so the
very same code computes the numbers at build time (CPython) and in the reader's
browser (Pyodide). The browser talks to it only through :mod:`kvpage.bridge`.
"""

__version__ = "0.1.0"
