"""search (stage "search"): the rendered pages → the book's search index, every section indexed at build time by the
pinned MiniSearch under Node, shipped as one classic script.
"""
