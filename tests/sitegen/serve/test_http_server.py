"""serve's HTTP server without a browser: the injected script, the files and their caching, the events.

The whole command, with a page open in Chromium, is tested in tests/e2e/test_serve.py.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

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


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Server, Hub, Path]]:
    folder = tmp_path / "site"
    (folder / "static").mkdir(parents=True)
    (folder / "index.html").write_bytes(b"<!doctype html><html><head><title>i</title></head><body>i</body></html>")
    (folder / "static" / "a.css").write_bytes(b"p{}")
    (folder / "pyodide").mkdir()
    (folder / "pyodide" / "pyodide.asm.0123abcd.wasm.bin").write_bytes(b"\x1f\x8b")
    (folder / "pyodide" / "pyodide-lock.json").write_bytes(b"{}")
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
        answer = b""
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
    [b"HELLO", b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", b"GET", b"GET / HTTP/1.1 extra", b"GET / SPDY/3"],
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
