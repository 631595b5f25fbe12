"""labs (stage "labs"): the labs the chapters place and the model in ``kvpage/`` → every placement's starting view
and every action's warm-up call, each run in a model process stopped after the book's ``build_timeout``, with
the model's failures said at the chapter's or the model's line; and the labs' Python shown to the reader.
"""
