"""Built-in HTTP criteria, against a real local server (no mocks)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rewardkit.criteria import http

ROUTES: dict[str, tuple[int, bytes]] = {
    "/": (200, b"<h1>hello world</h1>"),
    "/created": (201, b"made"),
    "/missing": (404, b"hello from the 404 page"),
    "/broken": (500, b"boom"),
    "/latin1": (200, b"caf\xe9 ok"),
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path == "/slow":
            time.sleep(2)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/created")
            self.end_headers()
            return
        status, body = ROUTES.get(self.path, (200, b"slow"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that timed out leaves a broken pipe behind; that is expected


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = QuietServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.delenv(var, raising=False)


def run(crit: str, *args: object, **kwargs: object) -> object:
    return getattr(http, crit).make_check(args, kwargs).evaluate(Path("."))


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def test_http_status_equals(base_url: str) -> None:
    assert run("http_status_equals", base_url + "/") is True
    assert run("http_status_equals", base_url + "/created") is False  # default 200
    assert run("http_status_equals", base_url + "/created", 201) is True
    assert run("http_status_equals", base_url + "/redirect", 201) is True  # follows redirects


@pytest.mark.parametrize(("route", "status"), [("/missing", 404), ("/broken", 500)])
def test_error_statuses_are_compared_too(base_url: str, route: str, status: int) -> None:
    assert run("http_status_equals", base_url + route, status) is True
    assert run("http_status_equals", base_url + route) is False


def test_http_response_contains(base_url: str) -> None:
    assert run("http_response_contains", base_url + "/", "hello world") is True
    assert run("http_response_contains", base_url + "/", "goodbye") is False
    assert run("http_response_contains", base_url + "/latin1", "caf\ufffd ok") is True


def test_error_status_body_does_not_count(base_url: str) -> None:
    assert run("http_response_contains", base_url + "/missing", "hello") is False


@pytest.mark.parametrize("crit", ["http_status_equals", "http_response_contains"])
def test_unreachable_is_false(crit: str) -> None:
    args = (closed_port_url(),) if crit == "http_status_equals" else (closed_port_url(), "x")
    assert run(crit, *args) is False
    bad = ("http://exa mple.invalid:99999/", *args[1:])
    assert run(crit, *bad) is False


@pytest.mark.parametrize("crit", ["http_status_equals", "http_response_contains"])
def test_timeout_is_false(base_url: str, crit: str) -> None:
    started = time.monotonic()
    args = () if crit == "http_status_equals" else ("slow",)
    assert run(crit, base_url + "/slow", *args, timeout=0.3) is False
    assert time.monotonic() - started < 1.5


@pytest.mark.parametrize("url", ["file:///etc/hostname", "ftp://127.0.0.1/", "127.0.0.1:80"])
@pytest.mark.parametrize("crit", ["http_status_equals", "http_response_contains"])
def test_only_http_urls(crit: str, url: str) -> None:
    args = (url,) if crit == "http_status_equals" else (url, "x")
    with pytest.raises(ValueError, match=rf"^{crit}: url must start with http:// or https://"):
        run(crit, *args)


def test_descriptions() -> None:
    check = http.http_status_equals.make_check(("http://h/x",))
    assert check.description == "HTTP GET http://h/x returns status 200"
    assert check.name == "http_status_equals:http://h/x"
    assert check.arguments["timeout"] == 10
    check = http.http_response_contains.make_check(("http://h/", "ok"), {"timeout": 3})
    assert check.description == "HTTP GET http://h/ response contains 'ok'"
