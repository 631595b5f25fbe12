"""The bench's server sends a folder as GitHub Pages would: text gzipped, runtime files cached for a year."""

from __future__ import annotations

import gzip
import http.client
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from serving import serve


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "pyodide").mkdir()
    (tmp_path / "cache.html").write_text("<p>" + "text " * 200 + "</p>", encoding="utf-8")
    (tmp_path / "pyodide" / "pyodide.asm.0123abcd.wasm.bin").write_bytes(b"\x1f\x8b" + bytes(1000))
    (tmp_path / "pyodide" / "pyodide.0123abcd.js").write_text("var x = 1;\n" * 100, encoding="utf-8")
    return tmp_path


def get(base: str, path: str, **headers: str) -> tuple[http.client.HTTPResponse, bytes]:
    where = urlsplit(base)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=10)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response, response.read()


def test_text_is_gzipped_and_binaries_are_sent_as_they_are(site: Path) -> None:
    with serve(site) as base:
        page, body = get(base, "/cache.html", **{"Accept-Encoding": "gzip, br"})
        assert page.getheader("Content-Encoding") == "gzip"
        assert gzip.decompress(body) == (site / "cache.html").read_bytes()
        assert page.getheader("Cache-Control") == "no-cache" and page.getheader("ETag")
        plain, body = get(base, "/cache.html")  # a client that does not accept gzip gets the file
        assert plain.getheader("Content-Encoding") is None and body == (site / "cache.html").read_bytes()
        wasm, body = get(base, "/pyodide/pyodide.asm.0123abcd.wasm.bin", **{"Accept-Encoding": "gzip"})
        assert wasm.getheader("Content-Encoding") is None and body == b"\x1f\x8b" + bytes(1000)


def test_content_addressed_files_are_immutable_and_etags_revalidate(site: Path) -> None:
    with serve(site) as base:
        script, _ = get(base, "/pyodide/pyodide.0123abcd.js", **{"Accept-Encoding": "gzip"})
        assert script.getheader("Cache-Control") == "public, max-age=31536000, immutable"
        again, body = get(base, "/cache.html", **{"If-None-Match": get(base, "/cache.html")[0].getheader("ETag") or ""})
        assert (again.status, body) == (304, b"")
        missing, _ = get(base, "/nothing.html")
        assert missing.status == 404
