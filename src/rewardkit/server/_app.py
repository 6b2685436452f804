"""`create_app`: a FastAPI reward service over one loaded `Scorer`.

Endpoints: `POST /score`, `POST /score/batch`, `POST /validate`, `GET /healthz`, and the
OpenAPI schema at `/openapi.json`. Every error is JSON `{"detail": "<message>"}` (422s add
`errors`, pydantic's list). Scoring runs on the scorer's worker threads through its async API,
so the event loop is never blocked.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, TypeVar

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rewardkit._errors import ConfigError
from rewardkit.batch import SampleResult, Scorer

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY_BYTES",
    "BatchIn",
    "ErrorOut",
    "ResultOut",
    "SampleIn",
    "ValidateIn",
    "ValidateOut",
    "create_app",
]

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_BATCH = 1024
DEFAULT_DEADLINE = 60.0

T = TypeVar("T")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatMessage(BaseModel):
    """One chat turn; extra keys (`tool_calls`, `name`, ...) are kept."""

    model_config = ConfigDict(extra="allow")
    role: str
    content: Any
    """Text, content parts, or `null` (e.g. with `tool_calls`)."""


class SampleIn(_Strict):
    """One rollout; every field optional, each reward reads what it needs."""

    messages: list[ChatMessage] | None = None
    prompt: str | list[ChatMessage] | None = None
    completion: str | list[ChatMessage] | None = None
    ground_truth: Any = None
    workspace: str | None = Field(default=None, description="a directory on the server")
    trajectory: Any = None
    metadata: dict[str, Any] | None = Field(
        default=None, description="echoed back in the result (e.g. an `id`)"
    )


class BatchIn(_Strict):
    """Samples scored concurrently; results come back in the same order."""

    samples: list[SampleIn]


class ValidateIn(_Strict):
    """A configuration to check, as a path on the server."""

    config: str = Field(
        min_length=1, description="a tests directory or an eval.yaml, on the server"
    )


class ResultOut(BaseModel):
    """One sample's result; `reward` is `null` when the sample is invalid (never a silent 0)."""

    reward: float | None
    valid: bool
    judges: dict[str, float | None]
    rewards: dict[str, float]
    error: str | None
    reason: str | None
    metadata: dict[str, Any]
    duration_s: float


class ValidateOut(BaseModel):
    """A valid configuration and what it will compute."""

    valid: bool
    kind: str
    plan: str


class ErrorOut(BaseModel):
    """Every error response."""

    detail: str
    errors: list[dict[str, Any]] | None = None


_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 413, 422, 504)
}


def create_app(
    scorer: Scorer,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_batch: int = DEFAULT_MAX_BATCH,
    deadline: float | None = DEFAULT_DEADLINE,
    validate_root: Path | str | None = None,
) -> FastAPI:
    """Build the reward service for `scorer`.

    Args:
        scorer: the loaded reward (`rewardkit.load(...)`).
        token: when set, every endpoint but `/healthz` and `/openapi.json` needs
            `Authorization: Bearer <token>` (compared in constant time); else 401.
        max_body_bytes: larger request bodies get 413 (Content-Length or streamed).
        max_batch: `/score/batch` with more samples gets 413.
        deadline: seconds a request may take before it gets 504; `None` for no limit. For a
            per-sample limit (an invalid result instead), load the scorer with `deadline=`.
        validate_root: `/validate` only loads configs inside this directory (loading one
            imports its Python files); `None` (the default) turns `/validate` off (403).

    Raises:
        ConfigError: a limit is not positive.

    Example:
        >>> import rewardkit as rk
        >>> from fastapi.testclient import TestClient
        >>> @rk.reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> client = TestClient(create_app(rk.load([exact])))
        >>> client.post("/score", json={"completion": "4", "ground_truth": "4"}).json()["reward"]
        1.0
    """
    _check_limits(max_body_bytes=max_body_bytes, max_batch=max_batch, deadline=deadline)
    from rewardkit import __version__

    guard = [] if token is None else [Depends(_BearerToken(token))]
    app = FastAPI(
        title="rewardkit",
        version=__version__,
        description="Score RL rollouts with one reward definition.",
    )
    app.add_middleware(_BodyLimit, max_bytes=max_body_bytes)
    _add_error_handlers(app)

    async def within_deadline(work: Awaitable[T]) -> T:
        try:
            return await asyncio.wait_for(work, deadline)
        except TimeoutError:
            raise HTTPException(504, f"request deadline of {deadline:g}s exceeded") from None

    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, str]:
        """Liveness: 200 while the service runs (no auth)."""
        return {"status": "ok"}

    @app.post("/score", dependencies=guard, responses=_ERRORS, tags=["scoring"])
    async def score(sample: SampleIn) -> ResultOut:
        """Score one sample."""
        return _result_out(await within_deadline(scorer.ascore(_mapping(sample))), sample)

    @app.post("/score/batch", dependencies=guard, responses=_ERRORS, tags=["scoring"])
    async def score_batch(batch: BatchIn) -> list[ResultOut]:
        """Score samples concurrently; results in input order."""
        if len(batch.samples) > max_batch:
            raise HTTPException(
                413,
                f"batch of {len(batch.samples)} samples exceeds the limit of {max_batch}; "
                "split it into smaller batches",
            )
        samples = [_mapping(s) for s in batch.samples]
        results = await within_deadline(scorer.score_batch_async(samples))
        return [_result_out(r, s) for r, s in zip(results, batch.samples, strict=True)]

    root = Path(validate_root).resolve() if validate_root is not None else None

    @app.post("/validate", dependencies=guard, responses=_ERRORS, tags=["service"])
    async def validate(body: ValidateIn) -> ValidateOut:
        """Check a tests directory or an eval.yaml and describe its plan; 422 if invalid."""
        if root is None:
            raise HTTPException(
                403, "/validate is off; start the server with --validate-root DIR to allow it"
            )
        target = (root / body.config).resolve()
        if target != root and root not in target.parents:
            raise HTTPException(403, f"config must be inside the validate root {str(root)!r}")
        try:
            kind, plan = await within_deadline(asyncio.to_thread(_describe, target))
        except ConfigError as exc:
            raise HTTPException(422, str(exc)) from None
        return ValidateOut(valid=True, kind=kind, plan=plan)

    return app


def _check_limits(*, max_body_bytes: int, max_batch: int, deadline: float | None) -> None:
    if max_body_bytes < 1:
        raise ConfigError(f"max_body_bytes must be at least 1 (got {max_body_bytes})")
    if max_batch < 1:
        raise ConfigError(f"max_batch must be at least 1 (got {max_batch})")
    if deadline is not None and not deadline > 0:
        raise ConfigError(f"deadline must be a positive number of seconds (got {deadline})")


class _BearerToken(HTTPBearer):
    """`Authorization: Bearer <token>`, compared in constant time; 401 otherwise."""

    def __init__(self, token: str) -> None:
        super().__init__(scheme_name="bearer", description="the server's --token", auto_error=False)
        self._expected = token.encode()

    async def __call__(self, request: HTTPConnection) -> HTTPAuthorizationCredentials | None:
        credentials = await super().__call__(request)
        given = b"" if credentials is None else credentials.credentials.encode()
        if not hmac.compare_digest(given, self._expected):
            problem = "missing" if credentials is None else "wrong"
            raise HTTPException(
                401,
                f"{problem} bearer token; send 'Authorization: Bearer <token>' with the "
                "server's --token (env REWARDKIT_SERVER_TOKEN)",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return credentials


def _add_error_handlers(app: FastAPI) -> None:
    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [_error_entry(e) for e in exc.errors()]
        detail = "; ".join(f"{e['field']}: {e['msg']}" for e in errors) or "invalid request"
        return JSONResponse({"detail": detail, "errors": errors}, status_code=422)

    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(
            {"detail": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500
        )

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(Exception, crashed)


def _error_entry(error: Any) -> dict[str, Any]:
    field = ".".join(str(part) for part in error.get("loc", ()))
    return {"field": field, "msg": str(error.get("msg", "")), "type": str(error.get("type", ""))}


def _mapping(sample: SampleIn) -> dict[str, Any]:
    return sample.model_dump(exclude_unset=True)


def _result_out(result: SampleResult, sample: SampleIn) -> ResultOut:
    return ResultOut(
        reward=result.reward,
        valid=result.valid,
        judges=result.judges,
        rewards=result.rewards,
        error=result.error,
        reason=result.reason,
        metadata=sample.metadata or {},
        duration_s=result.duration_s,
    )


def _describe(path: Path) -> tuple[str, str]:
    """`(kind, plan text)` for a tests dir or an eval.yaml, as `rewardkit check` prints it."""
    from rewardkit.outputs.plan import describe_plan, describe_suite
    from rewardkit.sources.eval_yaml import load_suite
    from rewardkit.sources.tests_dir import discover

    try:
        exists = path.exists()
    except (OSError, ValueError) as exc:  # e.g. an embedded NUL byte, a name too long
        raise ConfigError(f"config is not a usable path: {exc}", path=path) from None
    if not exists:
        raise ConfigError("config not found. Pass a tests directory or an eval.yaml.", path=path)
    if path.name.endswith((".yaml", ".yml")) or (path / "eval.yaml").is_file():
        return "eval.yaml", describe_suite(load_suite(path))
    return "tests_dir", describe_plan(discover(path))


class _BodyLimit:
    """Answer 413 to a body over `max_bytes`: by its Content-Length, or as it streams in."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = f"request body exceeds the limit of {self.max_bytes} bytes"
        await JSONResponse({"detail": detail}, status_code=413)(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the buffered body over once, then waits for the disconnect."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
