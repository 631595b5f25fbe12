"""Lab state machines: plain data in, plain data out, no I/O.

Each lab module exposes the parameter ranges the build validates against and
functions that turn a JSON request into the JSON view the page renders.
"""
