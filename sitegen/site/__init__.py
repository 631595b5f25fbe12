"""site (stages "site" and "files"): the pages, the runtime, the search index and the templates → every file of
the site (and the single-file book) as bytes in memory → ``site/`` and ``dist/`` written atomically.
"""
