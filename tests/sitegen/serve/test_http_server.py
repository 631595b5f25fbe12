"""serve's HTTP server without a browser: the injected script, the files and their caching, the events.

The whole command, with a page open in Chromium, is tested in tests/e2e/test_serve.py.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import resource
import selectors
import socket
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.serve.http_server import Hub, Server, Status, host_allowed, inject, make_server, site_name


def test_the_reload_script_goes_at_the_end_of_the_head() -> None:
    page = b"<html><head><title>x</title></head><body>x</body></html>"
    tag = b'<script src="/__kvpage/reload.js" data-build="s-1" defer></script>\n'
    assert inject(page, "s-1") == b"<html><head><title>x</title>" + tag + b"</head><body>x</body></html>"
    assert inject(b"<p>no head</p>", "s-1") == b"<p>no head</p>" + tag


def test_the_build_id_is_escaped() -> None:
    assert b'data-build="&quot;&gt;"' in inject(b"</head>", '">')


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/", "index.html"),
        ("/static/", "static/index.html"),
        ("/a/../b.html", "b.html"),
        ("/../secret", "secret"),  # normalised from the root: the site's own folder
        ("/..\\secret", None),
    ],
)
def test_a_url_names_a_file_of_the_site_or_none(path: str, name: str | None) -> None:
    assert site_name(path) == name


SEARCH_SCRIPT = b'globalThis.kvpageSearch = {terms: ["the book\'s text"]};\n' * 1000
"""A stand-in for the book's search index: a script any page could run, if serve let it load it."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Server, Hub, Path]]:
    folder = tmp_path / "site"
    (folder / "static").mkdir(parents=True)
    (folder / "index.html").write_bytes(b"<!doctype html><html><head><title>i</title></head><body>i</body></html>")
    (folder / "static" / "a.css").write_bytes(b"p{}")
    (folder / "pyodide").mkdir()
    (folder / "pyodide" / "pyodide.asm.0123abcd.wasm.bin").write_bytes(b"\x1f\x8b")
    (folder / "pyodide" / "pyodide-lock.json").write_bytes(b"{}")
    (folder / "search").mkdir()
    (folder / "search" / "index.js").write_bytes(SEARCH_SCRIPT)
    hub = Hub()
    server = make_server(0, folder, hub)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield server, hub, folder
    hub.close()
    server.shutdown()
    server.server_close()


def get(server: Server, path: str, **headers: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    connection.request("GET", path, headers=headers)
    return connection.getresponse()


def test_it_listens_on_the_loopback_interface_only(server: tuple[Server, Hub, Path]) -> None:
    assert server[0].server_address[0] == "127.0.0.1"


def test_before_the_first_good_build_every_page_shows_the_errors(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("", False, ("content/a.md:3: <bad> lab",)))
    response = get(http_server, "/index.html")
    body = response.read()
    assert response.status == 503
    assert b"content/a.md:3: &lt;bad&gt; lab" in body
    assert b'src="/__kvpage/reload.js" data-build=""' in body


def test_pages_get_the_reload_script_and_files_an_etag(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    page = get(http_server, "/")
    assert page.status == 200
    assert page.getheader("Cache-Control") == "no-store"
    assert b'<script src="/__kvpage/reload.js" data-build="s-1" defer></script>\n</head>' in page.read()

    style = get(http_server, "/static/a.css")
    etag = style.getheader("ETag")
    assert (style.status, style.read(), style.getheader("Content-Type")) == (200, b"p{}", "text/css; charset=utf-8")
    assert style.getheader("Cache-Control") == "no-cache"
    assert etag
    again = get(http_server, "/static/a.css", **{"If-None-Match": etag})
    assert (again.status, again.read()) == (304, b"")


def test_content_addressed_runtime_files_are_kept_for_a_year(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    hashed = get(http_server, "/pyodide/pyodide.asm.0123abcd.wasm.bin")
    assert (hashed.status, hashed.read()) == (200, b"\x1f\x8b")
    assert hashed.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    again = get(http_server, "/pyodide/pyodide.asm.0123abcd.wasm.bin", **{"If-None-Match": hashed.getheader("ETag")})
    assert again.status == 304 and again.getheader("Cache-Control") == "public, max-age=31536000, immutable"
    lock = get(http_server, "/pyodide/pyodide-lock.json")  # not named after its content: revalidated
    assert lock.getheader("Cache-Control") == "no-cache" and lock.getheader("ETag")


def test_a_changed_file_gets_a_new_etag(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, folder = server
    hub.publish(Status("s-1", True))
    first = get(http_server, "/static/a.css").getheader("ETag")
    (folder / "static" / "a.css").write_bytes(b"p{color:red}")
    response = get(http_server, "/static/a.css", **{"If-None-Match": first or ""})
    assert response.status == 200
    assert response.read() == b"p{color:red}"


@pytest.mark.parametrize("path", ["/missing.html", "/../secret", "/static/", "/%2e%2e/secret"])
def test_nothing_outside_the_site_is_served(server: tuple[Server, Hub, Path], path: str) -> None:
    http_server, hub, folder = server
    (folder.parent / "secret").write_text("no", encoding="utf-8")
    hub.publish(Status("s-1", True))
    assert get(http_server, path).status == 404


def test_a_missing_page_links_the_index_and_reloads_with_the_next_build(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    response = get(http_server, "/renamed.html")
    body = response.read()
    assert response.status == 404
    assert b"This build has no page renamed.html" in body
    assert b'<a href="/">the list of chapters</a>' in body
    assert b'data-build="s-1"' in body


def test_the_reload_client_is_served(server: tuple[Server, Hub, Path]) -> None:
    response = get(server[0], "/__kvpage/reload.js")
    assert response.status == 200
    assert b'new EventSource("/__kvpage/events")' in response.read()


def test_the_event_stream_sends_the_status_now_and_every_change(server: tuple[Server, Hub, Path]) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    stream = get(http_server, "/__kvpage/events")
    assert stream.getheader("Content-Type") == "text/event-stream"

    def event() -> dict[str, object]:
        lines = [stream.readline(), stream.readline(), stream.readline()]
        assert lines[0] == b"event: status\n" and lines[2] == b"\n"
        return dict(json.loads(lines[1].removeprefix(b"data: ")))

    assert event() == {"build": "s-1", "ok": True, "errors": [], "kind": "page", "previous": ""}
    hub.publish(Status("s-1", False, ("content/a.md:1: broken",)))
    assert event() == {
        "build": "s-1",
        "ok": False,
        "errors": ["content/a.md:1: broken"],
        "kind": "page",
        "previous": "",
    }
    hub.publish(Status("s-2", True, kind="model", previous="s-1"))
    assert event() == {"build": "s-2", "ok": True, "errors": [], "kind": "model", "previous": "s-1"}


def raw(server: Server, request: bytes) -> bytes:
    """The whole answer to ``request`` sent as it is (b"" if the connection was dropped)."""
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as connection:
        connection.sendall(request)
        return read_all(connection)


def read_all(connection: socket.socket) -> bytes:
    """What ``connection`` receives until it is closed (a reset after the answer ends it too)."""
    answer = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    ("target", "code"),
    [
        (b"/%00", 400),
        (b"/cache.html%00.txt", 400),
        (b"/%0a.html", 400),
        (b"/" + b"a" * 5000, 404),
        (b"/" + b"a/" * 2500 + b"b.html", 404),
        (b"/%zz", 400),
        (b"/a%", 400),
        (b"/%C3%28.html", 400),  # not UTF-8
        (b"http://evil.example/", 400),  # not a path
    ],
)
def test_a_malformed_path_gets_a_status_and_no_traceback(
    server: tuple[Server, Hub, Path], capfd: pytest.CaptureFixture[str], target: bytes, code: int
) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    host = f"127.0.0.1:{http_server.server_address[1]}".encode()
    answer = raw(http_server, b"GET " + target + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 %d " % code), answer[:200]
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "request_line",
    [
        b"HELLO",
        b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03",
        b"GET",
        b"GET / HTTP/1.1 extra",
        b"GET / SPDY/3",
        b"",  # a blank request line: the standard library closes the connection without a status
        b" \t ",
        b"\x85\xa0",  # white space to the library, which reads the line as Latin-1
        b"GET / x HTTP/0.9",  # the library's 400 for it came as HTTP/0.9 would: no status line
    ],
)
def test_a_request_line_that_is_not_http_gets_400(
    server: tuple[Server, Hub, Path], capfd: pytest.CaptureFixture[str], request_line: bytes
) -> None:
    answer = raw(server[0], request_line + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 400 "), answer[:200]
    assert "Traceback" not in capfd.readouterr().err


def get_with_host(server: Server, path: str, host: str | None) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    connection.putrequest("GET", path, skip_host=True)
    if host is not None:
        connection.putheader("Host", host)
    connection.endheaders()
    return connection.getresponse()


REFUSED_HOSTS = (
    "evil.example",
    "evil.example:{port}",  # DNS rebinding: the attacker's name, pointed at 127.0.0.1
    "localhost.evil.example:{port}",
    "127.0.0.1:{port}.evil.example",
    "127.0.0.2:{port}",
    "127.0.0.1:{other}",
    "localhost",  # no port: only on port 80, where a browser leaves it out
    "",
    None,
)


@pytest.mark.parametrize("path", ["/", "/static/a.css", "/__kvpage/reload.js", "/__kvpage/events"])
def test_only_the_loopback_names_with_the_port_are_served(server: tuple[Server, Hub, Path], path: str) -> None:
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    port = http_server.server_address[1]
    for name in ("127.0.0.1", "localhost", "LocalHost", "[::1]"):
        response = get_with_host(http_server, path, f"{name}:{port}")
        assert response.status == 200, name
        response.close()
    for host in REFUSED_HOSTS:
        response = get_with_host(http_server, path, None if host is None else host.format(port=port, other=port + 1))
        assert response.status == 403, host
        assert f"it answers only http://127.0.0.1:{port}/".encode() in response.read()


def test_without_a_port_a_loopback_host_means_port_80() -> None:
    assert host_allowed("localhost", 80) and host_allowed("[::1]:80", 80)
    assert not host_allowed("localhost", 8000) and not host_allowed("localhost:80", 8000)


def test_two_host_headers_get_400(server: tuple[Server, Hub, Path]) -> None:
    """Which one would the check read? Neither: a browser never sends two."""
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    host = f"127.0.0.1:{http_server.server_address[1]}".encode()
    answer = raw(http_server, b"GET / HTTP/1.1\r\nHost: " + host + b"\r\nHost: evil.example\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 400 "), answer[:200]


@pytest.mark.parametrize("start", [b"GET /ind", b"GET / HTTP/1.1\r\nHost: 127.0.0.1"])
def test_a_request_that_stops_coming_gets_408_and_a_silent_connection_is_closed(
    server: tuple[Server, Hub, Path], monkeypatch: pytest.MonkeyPatch, start: bytes
) -> None:
    """Neither holds a thread past the timeout (here made short; REQUEST_SECONDS in serve)."""
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    monkeypatch.setattr(http_server.RequestHandlerClass, "timeout", 0.5)
    address = ("127.0.0.1", http_server.server_address[1])
    with socket.create_connection(address, timeout=10) as silent, socket.create_connection(address, timeout=10) as slow:
        slow.sendall(start)
        assert read_all(slow).startswith(b"HTTP/1.0 408 ")
        assert read_all(silent) == b""


METHODS = (b"GET", b"HEAD", b"POST", b"OPTIONS", b"get", b"")
SEPARATORS = (b" ", b"  ", b"\t", b"")
TARGETS = (b"/", b"/index.html", b"/static/a.css", b"/search/", b"?q", b"#x", b"%", b"%00", b"%zz", b"..", b"*")
VERSIONS = (b"HTTP/1.1", b"HTTP/1.0", b"HTTP/0.9", b"HTTP/2.0", b"HTTP/1.1.1", b"HTTP/", b"")
HEADERS = (
    *(b"Host: localhost", b"Host:", b"Host: 127.0.0.1", b"Connection: keep-alive", b"Content-Length: 5"),
    *(b"If-None-Match: x", b"Transfer-Encoding: chunked", b"X: " + b"a" * 300, b" folded", b":", b""),
)
ODD = (b"\x00", b"\x85", b"\xa0", b"\xff", b"\xc3\x28", b"\r", b"\n", b"\r\n")


def request_heads(host: bytes) -> st.SearchStrategy[bytes]:
    """Request heads, right and wrong: a request line of pieces (or odd bytes) and header lines, with
    this server's ``Host`` among them so that some are answered 200."""
    odd = st.sampled_from(ODD) | st.binary(max_size=8)

    def piece(*choices: bytes) -> st.SearchStrategy[bytes]:
        return st.lists(st.sampled_from(choices) | odd, min_size=1, max_size=3).map(b"".join)

    line = st.tuples(piece(*METHODS), piece(*SEPARATORS), piece(*TARGETS), piece(*SEPARATORS), piece(*VERSIONS))
    headers = st.lists(st.sampled_from((*HEADERS, host)) | odd, max_size=6)
    return st.tuples(line.map(b"".join), headers).map(lambda head: b"\r\n".join((head[0], *head[1])))


def test_any_request_head_gets_a_status(server: tuple[Server, Hub, Path], capfd: pytest.CaptureFixture[str]) -> None:
    """Whatever bytes a head holds, the answer starts with a status line, and serve prints no traceback."""
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    heads = request_heads(f"Host: 127.0.0.1:{http_server.server_address[1]}".encode())

    @settings(
        max_examples=300,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(heads)
    def answered(head: bytes) -> None:
        answer = raw(http_server, head + b"\r\n\r\n")
        assert re.match(rb"HTTP/1\.0 [1-5][0-9][0-9] ", answer), (head, answer[:200])

    answered()
    assert "Traceback" not in capfd.readouterr().err


def resource_policy(answer: bytes) -> bytes | None:
    found = re.search(rb"\r\nCross-Origin-Resource-Policy: ([^\r]*)\r\n", answer.partition(b"\r\n\r\n")[0] + b"\r\n")
    return found[1] if found else None


def test_every_answer_is_for_serve_s_own_pages_only(server: tuple[Server, Hub, Path]) -> None:
    """``Cross-Origin-Resource-Policy: same-origin`` on every kind of answer, errors and 304 included:
    a file:// page or another port's may not load any of it (tests/e2e/test_serve.py, in Chromium)."""
    http_server, hub, _ = server
    host = f"127.0.0.1:{http_server.server_address[1]}".encode()

    def answer(target: bytes, *headers: bytes, method: bytes = b"GET", to: bytes = host) -> bytes:
        head = b"".join(header + b"\r\n" for header in (b"Host: " + to, b"Connection: close", *headers))
        return raw(http_server, method + b" " + target + b" HTTP/1.1\r\n" + head + b"\r\n")

    answers = {"before the first build": answer(b"/")}
    hub.publish(Status("s-1", True))
    style = answer(b"/static/a.css")
    etag = re.search(rb"\r\nETag: ([^\r]*)", style)
    assert etag
    answers |= {
        "page": answer(b"/"),
        "file": style,
        "unchanged file": answer(b"/static/a.css", b"If-None-Match: " + etag[1]),
        "search index": answer(b"/search/index.js"),
        "reload script": answer(b"/__kvpage/reload.js"),
        "missing page": answer(b"/gone.html"),
        "missing file": answer(b"/gone.css"),
        "bad path": answer(b"/%00"),
        "other host": answer(b"/", to=b"evil.example"),
        "other method": answer(b"/", method=b"POST"),
        "not http": raw(http_server, b"HELLO\r\n\r\n"),
        "blank": raw(http_server, b"\r\n\r\n"),
    }
    events = get(http_server, "/__kvpage/events")
    assert events.getheader("Cross-Origin-Resource-Policy") == "same-origin"
    events.close()
    assert {kind: (found[9:12], resource_policy(found)) for kind, found in answers.items()} == {
        kind: (found[9:12], b"same-origin") for kind, found in answers.items()
    }
    assert {found[9:12] for found in answers.values()} == {b"200", b"304", b"400", b"403", b"404", b"501", b"503"}


LOAD = 500
IDLE = 100
LOAD_SECONDS = 10.0
"""A deadline for all LOAD answers, with room for a loaded machine: about a second here. With the
standard library's backlog of 5, the kernel dropped most of their first packets, and the clients
retried for 30 s and more, or were reset."""


def test_500_simultaneous_connections_are_all_answered_beside_idle_ones(server: tuple[Server, Hub, Path]) -> None:
    """LOAD clients connect at once, while IDLE connections hold threads asking nothing: each gets
    the whole file, none is reset, within seconds."""
    http_server, hub, _ = server
    hub.publish(Status("s-1", True))
    port = http_server.server_address[1]
    enough_files(2 * (LOAD + IDLE) + 100)
    request = f"GET /search/index.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(IDLE)]
    try:
        answers = all_at_once(port, request, LOAD, LOAD_SECONDS)
    finally:
        for connection in idle:
            connection.close()
    outcomes = Counter(
        "whole" if answer.startswith(b"HTTP/1.0 200 ") and answer.endswith(b"\r\n\r\n" + SEARCH_SCRIPT) else answer[:40]
        for answer in answers
    )
    assert outcomes == {"whole": LOAD}


def enough_files(wanted: int) -> None:
    """This process may open ``wanted`` files (it holds both ends of every connection)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(
            resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
        )


def all_at_once(port: int, request: bytes, count: int, seconds: float) -> list[bytes]:
    """``count`` connections opened at once, each sending ``request``: what each received, or
    b"reset", or b"unanswered" if it was not whole when ``seconds`` were up."""
    selector = selectors.DefaultSelector()
    connections = [socket.socket() for _ in range(count)]
    for connection in connections:
        connection.setblocking(False)
        connection.connect_ex(("127.0.0.1", port))
        selector.register(connection, selectors.EVENT_WRITE)
    answers: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + seconds
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            assert isinstance(key.fileobj, socket.socket)
            step(selector, key.fileobj, request, answers)
    pending = selector.get_map()
    found = [b"unanswered" if connection in pending else answers[connection] for connection in connections]
    for connection in connections:
        connection.close()
    return found


def step(
    selector: selectors.BaseSelector, connection: socket.socket, request: bytes, answers: dict[socket.socket, bytes]
) -> None:
    """What ``connection`` is ready for: the request once it is connected, then its answer until it closes."""
    try:
        if connection not in answers:
            connection.sendall(request)  # raises if the connection was refused or reset
            answers[connection] = b""
            selector.modify(connection, selectors.EVENT_READ)
            return
        chunk = connection.recv(65536)
    except OSError:
        chunk, answers[connection] = b"", b"reset"
    if chunk:
        answers[connection] += chunk
    else:
        selector.unregister(connection)
