"""JSON request bodies parsed on a worker thread, and bounded in nesting depth.

`JsonRoute` is the service's FastAPI route class: its requests parse a body over 16 KiB with
`parse_json` on a thread instead of on the event loop (a smaller one takes at most ~3 ms). A
body nested deeper than the app's `max_json_depth` (`app.state`) gets 400 before any model sees
it; so does one too deep for the parser itself (`RecursionError`), which otherwise would crash
a handler or a serializer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import HTTPException, Request, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

__all__ = ["JsonRoute", "parse_json"]

_INLINE_BYTES = 16 * 1024
"""Smaller bodies parse on the loop: cheaper than a round trip to a thread."""


def parse_json(body: bytes, max_depth: int) -> Any:
    """`json.loads(body)`, refused (400) when arrays and objects nest deeper than `max_depth`.

    Raises:
        json.JSONDecodeError: not JSON (FastAPI answers 422).
        HTTPException: 400, too deeply nested.

    Example:
        >>> parse_json(b'[[1], {"a": 2}]', 2)
        [[1], {'a': 2}]
        >>> try:
        ...     parse_json(b"[[[]]]", 2)
        ... except HTTPException as exc:
        ...     print(exc.status_code, exc.detail[:51])
        400 request body nests arrays and objects deeper than 2
    """
    try:
        value = json.loads(body)
    except RecursionError:
        raise _too_deep(max_depth) from None
    if _nests_deeper(value, max_depth):
        raise _too_deep(max_depth)
    return value


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether lists and dicts nest deeper than `limit` in `value` (by levels: no recursion)."""
    level = [value] if isinstance(value, list | dict) else []
    for _ in range(limit):
        level = [
            child
            for node in level
            for child in (node.values() if isinstance(node, dict) else node)
            if isinstance(child, list | dict)
        ]
        if not level:
            return False
    return bool(level)


def _too_deep(max_depth: int) -> HTTPException:
    return HTTPException(
        400,
        f"request body nests arrays and objects deeper than {max_depth} levels; flatten it, "
        "or raise the server's --max-json-depth",
    )


class _JsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            depth = self.app.state.max_json_depth
            if len(body) <= _INLINE_BYTES:
                self._json = parse_json(body, depth)
            else:
                self._json = await run_in_threadpool(parse_json, body, depth)
        return self._json


class JsonRoute(APIRoute):
    """An `APIRoute` whose requests parse JSON with `parse_json`, off the event loop."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def bounded(request: Request) -> Response:
            return await handler(_JsonRequest(request.scope, request.receive))

        return bounded
