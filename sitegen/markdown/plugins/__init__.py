"""plugins: a markdown-it-py parser → the same parser, with the rules of one construct of the book added.

Each is a function ``plugin(md, ...)`` that adds rules. Plugins keep no state of their own; per-document
data (the chapter's path, the errors found) travels in markdown-it's ``env``, see :mod:`sitegen.markdown.plugins.env`.
"""
