"""sitegen: the build side of kvpage (Markdown → pages → site → files).

Unlike :mod:`kvpage`, this package runs only at build time and may use
third-party libraries (markdown-it-py, Jinja2, pyodide-lock).
"""
