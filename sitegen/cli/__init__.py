"""cli: the command line (``kvpage-book build|serve``, ``python build.py``) → arguments parsed, then a build,
``serve`` or ``serve``'s build worker run, its progress and errors printed (exit status 1 on a content error).
"""
