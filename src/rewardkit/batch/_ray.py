"""`rewardkit score --backend ray`: the JSONL runner with samples scored by Ray actors.

The driver keeps everything the local runner does (resume, line checks and reports, the
progress bar, one flushed line per sample) through `run_jsonl`; only the scoring moves. A pool
of `workers` actors, spread over the nodes (one CPU each, `SPREAD`), each `load()` the config
once and score chunks of samples, returning the result lines as plain dicts. At most two chunks
per actor are in flight, so a long input is never held in memory and no actor waits on the
driver.

A lost actor or node loses nothing: its unfinished chunks go back to the queue, split into
single samples, for the actors left (a fresh one is started only when none is left, sized to
what the cluster has then). A sample whose actor dies `MAX_ATTEMPTS` times is written as
invalid with the reason, so one poisoned sample cannot sink the run; every sample is written
exactly once.
"""

from __future__ import annotations

import importlib
import os
import socket
from collections import deque
from collections.abc import Callable, Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.batch._chunks import CHUNK_SIZE, Chunk, Loader, chunks, score_chunk
from rewardkit.batch._result import SampleResult
from rewardkit.batch._runner import (
    MAX_LINE_BYTES,
    BadLine,
    Emit,
    Items,
    Progress,
    Row,
    RunCounts,
    result_row,
    run_jsonl,
)
from rewardkit.batch._scorer import MEMORY_MIB
from rewardkit.core._errors import ConfigError

if TYPE_CHECKING:
    from rewardkit.batch._scorer import Scorer

__all__ = [
    "CONNECT_TIMEOUT",
    "INSTALL",
    "MAX_ATTEMPTS",
    "RayMissing",
    "actor_options",
    "connect",
    "require_ray",
    "score_jsonl_ray",
]

INSTALL = "pip install 'rewardkit[ray]'"
CONNECT_TIMEOUT = 30.0
"""Seconds to reach the cluster (`REWARDKIT_RAY_CONNECT_TIMEOUT`) before giving up."""
MAX_ATTEMPTS = 3
"""Times a sample's actor may die while scoring it before the sample is written as invalid."""
_AUTH_FIX = (
    "it requires token authentication: give this driver the cluster's token "
    "(RAY_AUTH_MODE=token with RAY_AUTH_TOKEN, or the token file ~/.ray/auth_token; see "
    "`ray get-auth-token`)"
)


class RayMissing(ConfigError):
    """`--backend ray` without Ray installed."""

    def __init__(self) -> None:
        super().__init__(f"--backend ray needs Ray. Install it with: {INSTALL}")


def require_ray() -> Any:
    """The `ray` module.

    Raises:
        RayMissing: Ray is not installed.
    """
    try:  # by name: mypy and the import stay optional, like the extra
        return importlib.import_module("ray")
    except ImportError:
        raise RayMissing() from None


class ChunkScorer:
    """A Ray actor's body: the config loaded once, then chunks of samples scored on threads.

    A config that fails to load is kept as the actor's answer to `ready()`, so the driver can
    say which node could not load it.
    """

    def __init__(self, loader: Loader) -> None:
        self.node = socket.gethostname()
        self.error: str | None = None
        try:
            self.scorer: Scorer | None = loader.load()
        except ConfigError as exc:
            self.scorer, self.error = None, str(exc)

    def ready(self) -> tuple[str, str | None]:
        """This actor's node (address and id) and its config error, if it has one."""
        try:
            ray = importlib.import_module("ray")
            node = (
                f"{ray.util.get_node_ip_address()} ({ray.get_runtime_context().get_node_id()[:8]})"
            )
        except Exception:  # outside Ray (tests call the class directly)
            node = self.node
        return node, self.error

    def score(self, chunk: Chunk) -> list[Row]:
        assert self.scorer is not None, self.error  # `ready()` is checked first
        return score_chunk(self.scorer, chunk)


def connect(ray: Any, timeout: float | None = None) -> None:
    """`ray.init()` (`RAY_ADDRESS` picks the cluster), or one clear error within `timeout`.

    Raises:
        ConfigError: nothing answers at the address, it wants a token we don't have, or it
            did not accept us within `timeout` seconds.
    """
    timeout = timeout or float(os.environ.get("REWARDKIT_RAY_CONNECT_TIMEOUT", CONNECT_TIMEOUT))
    address = os.environ.get("RAY_ADDRESS", "")
    where = f"the Ray cluster at {address}" if address else "a local Ray instance"
    host, _, port = address.rpartition(":")
    if host and port.isdigit() and "://" not in address:
        try:
            socket.create_connection((host, int(port)), timeout=timeout).close()
        except OSError as exc:
            raise ConfigError(
                f"nothing answers at RAY_ADDRESS={address} ({exc.strerror or exc}). Start the "
                f"cluster (ray start --head) or point RAY_ADDRESS at its head node."
            ) from None
    # Ray's own wait for the cluster's control store; `ray.init` must run on the main thread
    # (initialized from another one, the driver dies at its first call).
    os.environ.setdefault("RAY_gcs_rpc_server_connect_timeout_s", str(max(1, round(timeout))))
    try:
        ray.init(logging_level="ERROR", log_to_driver=False)
    except Exception as exc:
        text = f"{exc} {exc.__cause__ or ''}"
        why = _AUTH_FIX if "InvalidAuthToken" in text else _first_line(exc)
        raise ConfigError(f"could not connect to {where}: {why}") from None


def score_jsonl_ray(
    config: Path | str,
    rollouts: Path,
    out: Path,
    *,
    workers: int,
    deadline: float | None = None,
    max_concurrent: int = 8,
    memory_mib: int = MEMORY_MIB,
    chunk_size: int = CHUNK_SIZE,
    on_bad_line: BadLine,
    on_result: Progress | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    retry_invalid: bool = False,
) -> RunCounts:
    """`score_jsonl` on a Ray cluster: `workers` actors, each scoring `max_concurrent` at once.

    Unless Ray is already initialized, connects (`connect`) once there is something to
    score, and shuts down at the end. `config` must be readable at the same path on every node.

    Raises:
        RayMissing: Ray is not installed.
        ConfigError: two rollouts share an id; the cluster cannot be reached; a node cannot
            load `config` (named) or has no rewardkit installed.
    """
    ray = require_ray()
    started = False
    actors: list[Any] = []
    source = config if isinstance(config, str) else str(config.resolve())  # str: module:function
    loader = Loader(source, deadline, max_concurrent, memory_mib)

    def spawn() -> Any:
        actor = ray.remote(ChunkScorer).options(**actor_options(ray, workers)).remote(loader)
        actors.append(actor)
        return actor

    def write(items: Items, emit: Emit) -> None:
        nonlocal started
        pending = chunks(items, chunk_size)
        if (first := next(pending, None)) is None:
            return  # nothing left to score (e.g. a finished run resumed): Ray is not needed
        if not ray.is_initialized():
            connect(ray)
            started = True
        pool = [spawn() for _ in range(workers)]
        _check_ready(ray, pool, config)
        for row in _Pool(ray, pool, spawn).scored(chain([first], pending)):
            emit([row])

    try:
        return run_jsonl(
            write,
            rollouts,
            out,
            on_bad_line=on_bad_line,
            on_result=on_result,
            max_line_bytes=max_line_bytes,
            retry_invalid=retry_invalid,
        )
    finally:
        for actor in actors:
            ray.kill(actor)
        if started:  # a local instance (or connection) of our own: close it with the run
            ray.shutdown()


def actor_options(ray: Any, workers: int) -> dict[str, Any]:
    """Where actors go: spread over the nodes, one CPU each, or an equal share of the cluster's
    CPUs when there are fewer CPUs than `workers` (so every actor can start)."""
    cpus = float(ray.cluster_resources().get("CPU", workers))
    return {"num_cpus": min(1.0, cpus / workers), "scheduling_strategy": "SPREAD"}


def _check_ready(ray: Any, pool: list[Any], config: Path | str) -> None:
    """Every actor loaded the config, or one error naming the node and the cause."""
    for actor in pool:
        try:
            node, error = ray.get(actor.ready.remote())
        except ray.exceptions.RayError as exc:
            if "No module named 'rewardkit'" in str(exc):
                raise ConfigError(
                    "rewardkit is not installed on a Ray node. Install it there (the same "
                    "version), or start the job with a runtime_env that pip-installs it."
                ) from None
            raise ConfigError(
                f"a Ray worker failed to start ({type(exc).__name__}: {_first_line(exc)})"
            ) from None
        if error is not None:
            raise ConfigError(
                f"the Ray node {node} could not load the config: {error}. Make it readable "
                f"at the same path on every node.",
                path=config,
            )


class _Pool:
    """Chunks in flight on the live actors, two each; a dead actor's chunks are split and
    re-queued for the others (see the module docstring)."""

    def __init__(self, ray: Any, actors: list[Any], spawn: Callable[[], Any]) -> None:
        self.ray, self.live, self.spawn = ray, list(actors), spawn
        self.retry: deque[tuple[Chunk, int]] = deque()
        self.owner: dict[Any, tuple[Any, Chunk, int]] = {}

    def scored(self, todo: Iterator[Chunk]) -> Iterator[Row]:
        """Rows as chunks finish, every sample exactly once."""
        lost = (self.ray.exceptions.RayActorError, self.ray.exceptions.ActorUnavailableError)
        while self._top_up(todo):
            [ready], _ = self.ray.wait(list(self.owner), num_returns=1)
            actor, chunk, failures = self.owner.pop(ready)
            try:
                yield from self.ray.get(ready)
            except lost:
                yield from self._lost(chunk, failures)
                if actor in self.live:  # its other chunk fails over on its own
                    self.live.remove(actor)
                    self.ray.kill(actor)

    def _top_up(self, todo: Iterator[Chunk]) -> bool:
        """Give every live actor two chunks in flight; False when all is done."""
        if not self.live and (self.retry or self.owner):
            self.live.append(self.spawn())  # every actor was lost: start afresh
        for actor in self.live:
            while sum(a is actor for a, _, _ in self.owner.values()) < 2:
                chunk, failures = self.retry.popleft() if self.retry else (next(todo, None), 0)
                if chunk is None:
                    break
                self.owner[actor.score.remote(chunk)] = (actor, chunk, failures)
        return bool(self.owner)

    def _lost(self, chunk: Chunk, failures: int) -> Iterator[Row]:
        """Re-queue a dead actor's chunk one sample at a time; give up on a sample at last."""
        if failures + 1 < MAX_ATTEMPTS:
            self.retry.extend(([item], failures + 1) for item in chunk)
            return
        reason = (
            f"its Ray worker died {MAX_ATTEMPTS} times while scoring it (a lost node, or the "
            f"sample kills its worker)"
        )
        for key, _ in chunk:
            yield result_row(*key, SampleResult(reward=None, error=reason))


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
