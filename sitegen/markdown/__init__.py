"""markdown (stages "chapters" and "pages"): the chapters' Markdown → chapters parsed (labs placed, headings'
ids, links, formulas as MathML) → each page's HTML fragment, table of contents and description; the
markdown-it-py plugins that parse the book's constructs are in ``plugins/``.
"""
