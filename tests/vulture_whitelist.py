"""Names in kvpage/ and sitegen/ that are used where vulture cannot see (``make check``'s dead-code step).

vulture reads only the Python it is given; each name below is called or read by something else:
the standard library calling a method we override, the page's JavaScript reading a field of the JSON
the build writes, or the tests using a helper that exists for them. Each says who. A name that
nothing uses is deleted, not listed here. Never imported or run: ``_`` stands for any object.
"""

# html.parser.HTMLParser calls its handle_* methods as it reads (sitegen/markdown/ids.py,
# sitegen/search/text.py).
_.handle_startendtag
_.handle_endtag
_.handle_data

# xml.parsers.expat calls the handler set on its parser (sitegen/book/svg.py).
_.StartElementHandler

# zipfile reads a ZipInfo's attributes when it writes the member (sitegen/site/output.py).
_.external_attr
_.compress_type

# http.server reads these class attributes and calls these methods (sitegen/serve/http_server.py).
_.server_version
_.daemon_threads
_.log_message
_.do_HEAD
_.do_GET
_.handle_one_request
_.close_connection
_.request_queue_size

# The runtime's fields are read by the page's worker from the JSON the build writes
# (site_template/static/kvpage/python-worker.js, spawn.js; typed in config.d.ts).
_.index_url
_.snapshot_size
_.fresh_model

# tests/sitegen/site/test_page_contract.py holds the templates' and the scripts' ARIA roles to this list.
_.ROLES

# The page's script alone, without the editor's (tests/sitegen/site/test_page_script.py,
# tests/e2e/test_lab_wiring.py, and bench/run.py's stock page).
_.page_script

# The chapter's rule as it states it (kvpage/prefix.py): the next-request lab counts reuse by the
# dependency rule (reused_count); the tests hold the two together (tests/kvpage/test_prefix_property.py)
# and compute their expectations with it (tests/chapter_labs.py).
shared_prefix_length

# The template of a lab's Python disclosure reads it (site_template/labs/python.html: data-opens-at).
_.opens_at
