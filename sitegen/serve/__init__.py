"""serve: the book's folder → the book on 127.0.0.1, rebuilt by a warm build worker as its files change, and the open
pages reloaded (``build.py serve``).
"""
