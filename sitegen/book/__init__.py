"""book (stage "source"): the book's folder → :class:`sitegen.book.source.Book` (``book.toml``), every chapter's
front matter and Markdown, and the book's other files (images checked, SVG made safe), reading nothing outside it.
"""
