"""`Guard` at the ASGI level: how much of a request it reads before it answers, and when."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Any

import pytest

from rewardkit.server._guard import Guard

Message = dict[str, Any]
CAP = 1000


class Recorder:
    """An app that records the body it is handed and answers 200."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.bodies.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


def _guard(app: Recorder, *, token: str | None = "s3cret", timeout: float = 5) -> Guard:
    return Guard(app, token=token, public=frozenset({"/healthz"}), max_bytes=CAP, timeout=timeout)


def _scope(path: str = "/score", **headers: str) -> dict[str, Any]:
    raw = [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    return {"type": "http", "method": "POST", "path": path, "headers": raw}


def _chunk(body: bytes, more: bool = True) -> Message:
    return {"type": "http.request", "body": body, "more_body": more}


def _call(guard: Guard, scope: dict[str, Any], client: list[Message]) -> tuple[list[Message], int]:
    """Run `guard`; the client sends `client`, then stalls. Return what was sent and reads."""
    sent: list[Message] = []
    reads = 0

    async def receive() -> Message:
        nonlocal reads
        reads += 1
        if reads > len(client):
            await asyncio.sleep(3600)
        return client[reads - 1]

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(guard(scope, receive, send))
    return sent, reads


def _answer(sent: list[Message]) -> tuple[int, dict[bytes, bytes], str]:
    start, body = sent
    return start["status"], dict(start["headers"]), json.loads(body["body"])["detail"]


WRONG_BASIC = [
    "Basic s3cret",  # not base64 of user:password
    "Basic " + base64.b64encode(b"s3cret:wrong").decode(),  # the token as the user name
    "Basic " + base64.b64encode(b"rewardkit:").decode(),
    "Basic " + base64.b64encode(b"rewardkit:s3cre").decode(),
    "Digest " + base64.b64encode(b"rewardkit:s3cret").decode(),
]


@pytest.mark.parametrize(
    "header", [None, "Bearer wrong", "Bearer s3cre", "Bearer", "s3cret", *WRONG_BASIC]
)
def test_a_wrong_or_missing_token_is_401_before_the_body_is_read(header: str | None) -> None:
    app = Recorder()
    scope = _scope() if header is None else _scope(authorization=header)
    sent, reads = _call(_guard(app), scope, [_chunk(b"{}", more=False)])
    status, headers, detail = _answer(sent)
    assert (status, reads, app.bodies) == (401, 0, [])
    assert headers[b"www-authenticate"] == b"Bearer"
    assert headers[b"connection"] == b"close"  # its body is never read: the connection ends
    problem = "missing" if header is None else "wrong"
    assert detail == (
        f"{problem} bearer token; send 'Authorization: Bearer <token>' with the server's "
        "--token (env REWARDKIT_SERVER_TOKEN), or put it in the URL as the password "
        "(http://rewardkit:<token>@host/...)"
    )


def test_the_right_token_passes_the_whole_body_at_once() -> None:
    app = Recorder()
    client = [_chunk(b'{"a": '), _chunk(b"1"), _chunk(b"}", more=False)]
    sent, reads = _call(_guard(app), _scope(authorization="bearer s3cret"), client)
    assert (sent[0]["status"], reads, app.bodies) == (200, 3, [b'{"a": 1}'])


def test_the_token_as_a_urls_password_passes() -> None:
    """A client that can only put credentials in the URL (OpenRLHF's): Basic, any user."""
    app = Recorder()
    basic = "Basic " + base64.b64encode(b"rewardkit:s3cret").decode()
    sent, _ = _call(_guard(app), _scope(authorization=basic), [_chunk(b"{}", more=False)])
    assert (sent[0]["status"], app.bodies) == (200, [b"{}"])


def test_public_paths_and_no_token_need_none() -> None:
    app = Recorder()
    _call(_guard(app), _scope("/healthz"), [_chunk(b"", more=False)])
    _call(_guard(app, token=None), _scope(), [_chunk(b"{}", more=False)])
    assert app.bodies == [b"", b"{}"]


def test_a_declared_length_over_the_cap_is_413_unread() -> None:
    app = Recorder()
    scope = _scope(authorization="Bearer s3cret", content_length=str(CAP + 1))
    sent, reads = _call(_guard(app), scope, [_chunk(b"x" * (CAP + 1), more=False)])
    status, headers, detail = _answer(sent)
    assert (status, reads, app.bodies, headers[b"connection"]) == (413, 0, [], b"close")
    assert detail == (
        f"request body exceeds the limit of {CAP} bytes; send a smaller body (split a batch), "
        "or raise the server's --max-body-bytes"
    )


def test_a_streamed_body_is_read_only_up_to_the_cap() -> None:
    app = Recorder()
    client = [_chunk(b"x" * 600) for _ in range(10)]
    sent, reads = _call(_guard(app), _scope(authorization="Bearer s3cret"), client)
    assert (sent[0]["status"], reads, app.bodies) == (413, 2, [])


def test_a_stalled_body_is_408_at_the_timeout() -> None:
    app = Recorder()
    start = time.perf_counter()
    guard = _guard(app, timeout=0.1)
    sent, reads = _call(guard, _scope(authorization="Bearer s3cret"), [_chunk(b'{"a')])
    status, headers, detail = _answer(sent)
    assert 0.1 <= time.perf_counter() - start < 1
    assert (status, reads, app.bodies, headers[b"connection"]) == (408, 2, [], b"close")
    assert detail == (
        "request body not received within 0.1s; send it at once, or raise the server's "
        "--body-timeout (env REWARDKIT_SERVER_BODY_TIMEOUT)"
    )


def test_a_client_gone_midway_gets_nothing() -> None:
    app = Recorder()
    client = [_chunk(b"{"), {"type": "http.disconnect"}]
    sent, _ = _call(_guard(app), _scope(authorization="Bearer s3cret"), client)
    assert (sent, app.bodies) == ([], [])


def test_other_scopes_pass_through() -> None:
    seen: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    guard = Guard(app, token="t", public=frozenset(), max_bytes=1, timeout=1)
    asyncio.run(guard({"type": "lifespan"}, None, None))  # type: ignore[arg-type]
    assert seen == ["lifespan"]
