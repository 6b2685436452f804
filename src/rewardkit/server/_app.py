"""`create_app`: a FastAPI reward service over one loaded `Scorer`.

Endpoints: `POST /score`, `POST /score/batch`, `POST /validate`, `GET /healthz`, OpenRLHF's
`POST /get_reward` (`_openrlhf.py`), and the OpenAPI schema at `/openapi.json`. Every error is
JSON `{"detail": "<message>"}` (422s add `errors`, pydantic's list). Before a sample is
scored, `Guard` checks the token and reads the body under a size cap and a time limit,
`JsonRoute` parses it off the event loop under a depth bound, and its workspace must lie inside
the workspace root. `Workers` score it in a process that its deadline really ends.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPBearer

from rewardkit.batch import Scorer
from rewardkit.core._errors import ConfigError
from rewardkit.server._guard import Guard
from rewardkit.server._json import JsonRoute
from rewardkit.server._limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_JSON_DEPTH,
    Limits,
)
from rewardkit.server._models import (
    BatchIn,
    ErrorOut,
    ResultOut,
    SampleIn,
    ValidateIn,
    ValidateOut,
)
from rewardkit.server._openrlhf import add_openrlhf
from rewardkit.server._pool import WorkerError, Workers

__all__ = ["create_app"]

T = TypeVar("T")

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 403, 408, 413, 422, 503, 504)
}


def create_app(
    scorer: Scorer,
    *,
    token: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
    max_batch: int = DEFAULT_MAX_BATCH,
    deadline: float | None = DEFAULT_DEADLINE,
    sample_deadline: float | None = None,
    validate_root: Path | str | None = None,
    workspace_root: Path | str | None = None,
) -> FastAPI:
    """Build the reward service for `scorer`.

    Samples are scored `scorer.max_concurrent` at once in worker processes forked from the
    server at its first request (they inherit the loaded reward, so any function works, a
    lambda included). A request past its deadline has its samples' processes killed, so a
    hung sample frees its slot when its request is answered.

    Args:
        scorer: the loaded reward (`rewardkit.load(...)`), best without a deadline of its own
            (see `sample_deadline`).
        token: when set, every endpoint but `/healthz` and the OpenAPI schema and docs needs
            `Authorization: Bearer <token>` (compared in constant time), checked before the
            body is read; else 401.
        max_body_bytes: larger request bodies get 413 (by Content-Length, or as they stream).
        body_timeout: seconds to receive a whole body, else 408.
        max_json_depth: bodies nesting arrays and objects deeper get 400.
        max_batch: `/score/batch` with more samples gets 413.
        deadline: seconds a request may take before it gets 504 (and its samples' processes
            are killed); `None` for no limit.
        sample_deadline: seconds a sample may take once its process has it, else an invalid
            result (and the process is killed); `None`: `scorer.deadline`. The processes that
            a scorer with a deadline starts for itself are not used here.
        validate_root: `/validate` only loads configs inside this directory (loading one
            imports its Python files); `None` (the default) turns `/validate` off (403).
        workspace_root: every sample's `workspace` must resolve (symlinks followed) inside
            this directory, else 400; a relative one is taken from it. `None`: any directory
            the server can read.

    Raises:
        ConfigError: a limit is not positive, the token is empty, or `workspace_root` is not a
            directory.

    Example:
        >>> import rewardkit as rk
        >>> from fastapi.testclient import TestClient
        >>> from rewardkit.functions.builtin import exact_match_reward
        >>> sample = {"completion": "4", "ground_truth": "4"}
        >>> with TestClient(create_app(rk.load([exact_match_reward]))) as client:
        ...     client.post("/score", json=sample).json()["reward"]
        1.0
    """
    limits = Limits(
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
        max_json_depth=max_json_depth,
        max_batch=max_batch,
        deadline=deadline,
        sample_deadline=scorer.deadline if sample_deadline is None else sample_deadline,
    )
    if token is not None and not token.strip():
        raise ConfigError("token is empty; pass a non-empty secret, or None to serve without one")
    workspaces = None if workspace_root is None else _directory("workspace_root", workspace_root)
    workers = Workers(scorer, size=scorer.max_concurrent, deadline=limits.sample_deadline)
    from rewardkit import __version__

    app = FastAPI(
        title="rewardkit",
        version=__version__,
        description="Score RL rollouts with one reward definition.",
        lifespan=_closing(workers),
    )
    app.state.max_json_depth = limits.max_json_depth
    app.router.route_class = JsonRoute
    app.add_middleware(
        Guard,
        token=token,
        public=_public_paths(app),
        max_bytes=limits.max_body_bytes,
        timeout=limits.body_timeout,
    )
    _add_error_handlers(app)
    # `Guard` checks the token before the body is read; this only declares it in the schema.
    bearer = HTTPBearer(scheme_name="bearer", description="the server's --token", auto_error=False)
    auth = [] if token is None else [Depends(bearer)]
    _add_scoring(app, workers, limits, workspaces, auth)
    add_openrlhf(app, scorer, workers, limits, auth)
    validate = None if validate_root is None else Path(validate_root).resolve()
    _add_service(app, limits, validate, auth)
    return app


def _add_scoring(
    app: FastAPI, workers: Workers, limits: Limits, workspaces: Path | None, auth: list[Any]
) -> None:
    @app.post("/score", dependencies=auth, responses=_ERRORS, tags=["scoring"])
    async def score(sample: SampleIn) -> ResultOut:
        """Score one sample."""
        data = _scored_fields(sample, workspaces, "body")
        return _result_out(await _within(limits.deadline, workers.score(data)), sample)

    @app.post("/score/batch", dependencies=auth, responses=_ERRORS, tags=["scoring"])
    async def score_batch(batch: BatchIn) -> list[ResultOut]:
        """Score samples concurrently; results in input order."""
        if len(batch.samples) > limits.max_batch:
            raise HTTPException(
                413,
                f"batch of {len(batch.samples)} samples exceeds the limit of "
                f"{limits.max_batch}; split it into smaller batches",
            )
        data = [
            _scored_fields(s, workspaces, f"body.samples.{i}") for i, s in enumerate(batch.samples)
        ]
        scoring = asyncio.gather(*(workers.score(d) for d in data))
        results = await _within(limits.deadline, scoring)
        return [_result_out(r, s) for r, s in zip(results, batch.samples, strict=True)]


def _add_service(app: FastAPI, limits: Limits, root: Path | None, auth: list[Any]) -> None:
    @app.get("/healthz", tags=["service"])
    async def healthz() -> dict[str, str]:
        """Liveness: 200 while the service runs (no auth)."""
        return {"status": "ok"}

    @app.post("/validate", dependencies=auth, responses=_ERRORS, tags=["service"])
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
            kind, plan = await _within(limits.deadline, asyncio.to_thread(_describe, target))
        except ConfigError as exc:
            raise HTTPException(422, str(exc)) from None
        return ValidateOut(valid=True, kind=kind, plan=plan)


async def _within(deadline: float | None, work: Awaitable[T]) -> T:
    """`work`, or 504 past `deadline` (cancelling it ends its scoring processes)."""
    try:
        return await asyncio.wait_for(work, deadline)
    except TimeoutError:
        raise HTTPException(504, f"request deadline of {deadline:g}s exceeded") from None


def _closing(workers: Workers) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            workers.close()

    return lifespan


def _public_paths(app: FastAPI) -> frozenset[str]:
    """`/healthz` and the OpenAPI schema and docs: open without the token."""
    paths = ("/healthz", app.openapi_url, app.docs_url, app.redoc_url)
    return frozenset(p for p in (*paths, app.swagger_ui_oauth2_redirect_url) if p)


def _directory(name: str, path: Path | str) -> Path:
    resolved = Path(os.path.realpath(path))
    if not resolved.is_dir():
        raise ConfigError(f"{name} is not a directory; pass an existing one", path=Path(path))
    return resolved


def _scored_fields(sample: SampleIn, workspaces: Path | None, where: str) -> dict[str, Any]:
    """The fields the client set, as the scorer takes them; the workspace checked (else 400)."""
    data = {name: getattr(sample, name) for name in sample.model_fields_set}
    for name in ("messages", "prompt", "completion"):
        if isinstance(data.get(name), list):
            data[name] = [message.model_dump() for message in data[name]]
    if workspaces is not None and sample.workspace is not None:
        data["workspace"] = _inside(workspaces, sample.workspace, f"{where}.workspace")
    return data


def _inside(root: Path, workspace: str, field: str) -> str:
    """`workspace` resolved (from `root` when relative); 400 unless it lies inside `root`."""
    try:
        resolved = Path(os.path.realpath(root / workspace))
    except (OSError, ValueError) as exc:  # e.g. an embedded NUL byte
        raise HTTPException(400, f"{field}: not a usable path ({exc})") from None
    if not resolved.is_relative_to(root):
        raise HTTPException(
            400,
            f"{field}: {workspace!r} resolves outside the workspace root {str(root)!r}; send "
            "a directory inside it (the server's --workspace-root)",
        )
    return str(resolved)


def _add_error_handlers(app: FastAPI) -> None:
    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [_error_entry(e) for e in exc.errors()]
        detail = "; ".join(f"{e['field']}: {e['msg']}" for e in errors) or "invalid request"
        return JSONResponse({"detail": detail, "errors": errors}, status_code=422)

    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=503)

    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(
            {"detail": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500
        )

    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(WorkerError, unavailable)
    app.add_exception_handler(Exception, crashed)


def _error_entry(error: Any) -> dict[str, Any]:
    field = ".".join(str(part) for part in error.get("loc", ()))
    return {"field": field, "msg": str(error.get("msg", "")), "type": str(error.get("type", ""))}


def _result_out(fields: dict[str, Any], sample: SampleIn) -> ResultOut:
    return ResultOut(**fields, metadata=sample.metadata or {})


def _describe(path: Path) -> tuple[str, str]:
    """`(kind, plan text)` for a tests dir or an eval.yaml, as `rewardkit check` prints it."""
    from rewardkit.evalyaml._suite import load_suite
    from rewardkit.harbor._tests_dir import discover
    from rewardkit.outputs.plan import describe_plan, describe_suite

    try:
        exists = path.exists()
    except (OSError, ValueError) as exc:  # e.g. an embedded NUL byte, a name too long
        raise ConfigError(f"config is not a usable path: {exc}", path=path) from None
    if not exists:
        raise ConfigError("config not found. Pass a tests directory or an eval.yaml.", path=path)
    if path.name.endswith((".yaml", ".yml")) or (path / "eval.yaml").is_file():
        return "eval.yaml", describe_suite(load_suite(path))
    return "tests_dir", describe_plan(discover(path))
