"""The native providers' connections (`rewardkit.models._connections`), seen from the server:
keep-alive reuse, connections the server closed, TLS; and httpx where a proxy is configured.

Which way a request went shows in its `User-Agent`: `rewardkit` directly, `python-httpx/...`
through httpx.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from server import KEY, VALID, ChatServer, Reply
from tests.hostile import _model_server as hostile

from rewardkit.core._errors import JudgeBadReply, JudgeUnavailable
from rewardkit.models import CompletionRequest, ModelClient, _connections
from rewardkit.models._http import CAP_ENV, proxies_configured

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]
ANSWER = json.dumps({"choices": [{"message": {"content": "fine"}}]}).encode()


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy from the environment running the tests: requests go direct."""
    for name in list(os.environ):
        if name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)


@pytest.fixture
def proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy configured, which 127.0.0.1 bypasses: httpx sends, straight to the server."""
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


def one_after_another(drive: Drive, make: Make, n: int, pause: float = 0.0) -> list[Any]:
    async def main(client: ModelClient) -> list[Any]:
        results = []
        for i in range(n):
            results.append(await client.complete(make(f"criterion {i}")))
            await asyncio.sleep(pause)
        return results

    results: list[Any] = drive(main)
    return results


def test_calls_one_after_another_share_one_connection(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    results = one_after_another(drive, request_for, 5)
    assert [result.attempts for result, _ in results] == [1] * 5
    assert (server.count, server.connections) == (5, 1)
    assert {h["user-agent"] for h in server.request_headers} == {"rewardkit"}


def test_calls_at_once_open_one_connection_per_call_in_flight(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.05

    async def main(client: ModelClient) -> list[Any]:
        return await asyncio.gather(*(client.complete(request_for(f"c{i}")) for i in range(12)))

    drive(main, max_concurrent=4)  # a call's connection is back before its permit is
    assert (server.count, server.connections) == (12, 4)


def test_a_connection_the_server_closes_is_not_reused(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=Reply(headers={"Connection": "close"}))
    results = one_after_another(drive, request_for, 3)
    assert [result.attempts for result, _ in results] == [1] * 3
    assert (server.count, server.connections) == (3, 3)


def test_a_connection_dropped_while_idle_is_not_reused(drive: Drive, request_for: Make) -> None:
    def answer_then_hang_up(sock: socket.socket, stopping: threading.Event) -> None:
        hostile.body(ANSWER)(sock, stopping)
        sock.shutdown(socket.SHUT_RDWR)

    with hostile.ModelServer(answer_then_hang_up) as server:
        make: Make = lambda content: request_for(content, api_base=server.url)  # noqa: E731
        results = one_after_another(drive, make, 2, pause=0.1)
        assert server.count == 2  # the second call did not fail on the dead socket first
    assert [result.attempts for result, _ in results] == [1, 1]


def test_an_idle_connection_past_its_keep_alive_is_not_reused(
    drive: Drive, server: ChatServer, request_for: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_connections, "KEEP_IDLE", 0.0)
    one_after_another(drive, request_for, 3)
    assert (server.count, server.connections) == (3, 3)


# -- TLS -----------------------------------------------------------------------------------


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[ChatServer, Path]]:
    """A chat server on https with a self-signed certificate for 127.0.0.1, and the cert."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with ChatServer(tls=context) as chat:
        yield chat, cert


def test_https_with_a_trusted_certificate_keeps_its_connection(
    drive: Drive, tls_server: tuple[ChatServer, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, cert = tls_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # as httpx, the CAs to trust
    make = make_for(server)
    results = one_after_another(drive, make, 3)
    assert [result.text for result, _ in results] == [VALID] * 3
    assert (server.count, server.connections) == (3, 1)


def test_https_with_an_unknown_certificate_is_refused(
    drive: Drive, tls_server: tuple[ChatServer, Path]
) -> None:
    server, _ = tls_server
    with pytest.raises(JudgeUnavailable, match="CERTIFICATE_VERIFY_FAILED"):
        drive(lambda client: client.complete(make_for(server)("hi")))
    assert server.count == 0


# -- httpx, where a proxy is configured ----------------------------------------------------


def test_with_a_proxy_configured_httpx_sends(
    drive: Drive, server: ChatServer, request_for: Make, proxy: None
) -> None:
    results = one_after_another(drive, request_for, 2)
    assert [result.attempts for result, _ in results] == [1, 1]
    assert all(h["user-agent"].startswith("python-httpx/") for h in server.request_headers)


@pytest.mark.parametrize("way", ["direct", "httpx"])
def test_both_ways_refuse_a_redirect_and_an_answer_over_the_cap(
    drive: Drive, request_for: Make, monkeypatch: pytest.MonkeyPatch, way: str
) -> None:
    if way == "httpx":
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setenv(CAP_ENV, str(100 / (1 << 20)))
    refusals = [
        (hostile.redirect("http://127.0.0.1:9/v1/chat/completions"), r"redirected \(HTTP 307\)"),
        (hostile.huge(101), "exceeded 100 bytes"),
    ]
    for answer, refusal in refusals:
        with hostile.ModelServer(answer) as server:
            with pytest.raises(JudgeBadReply, match=refusal):
                drive(lambda client: client.complete(request_for(api_base=server.url)))
            assert server.count == 1


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="the system's settings count")
@pytest.mark.parametrize(
    ("env", "configured"),
    [
        ({}, False),
        ({"HTTPS_PROXY": "http://proxy:3128"}, True),
        ({"http_proxy": "proxy:3128"}, True),
        ({"ALL_PROXY": "socks5://proxy"}, True),
        ({"HTTPS_PROXY": ""}, False),
        ({"NO_PROXY": "*", "FTP_PROXY": "proxy"}, False),
        ({"HTTP": "not a proxy"}, False),
    ],
)
def test_which_environments_have_a_proxy(env: dict[str, str], configured: bool) -> None:
    assert proxies_configured(env) is configured


def test_importing_the_transport_imports_no_http_client() -> None:
    code = (
        "import sys, rewardkit, rewardkit.models\n"
        "print(sorted({'h11', 'httpx', 'httpcore', 'certifi'} & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "[]", done.stderr


def make_for(server: ChatServer) -> Make:
    """Requests to `server` without the fixtures' `request_for` (which starts its own)."""

    def make(content: str) -> CompletionRequest:
        messages = [{"role": "user", "content": content}]
        return CompletionRequest(
            model="openai/test-model", messages=messages, api_base=server.url, api_key=KEY
        )

    return make
