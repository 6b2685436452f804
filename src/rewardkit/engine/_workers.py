"""Run a programmatic judge in a forked worker process that can really be ended.

Each call runs in a child forked from the grading process, so it inherits the loaded plan
and nothing but its result crosses back (length-prefixed, capped). The child leads its own
session, gets a memory cap (`RLIMIT_AS`), and is killed with everything it started at its
deadline. Whatever the judge does — hang, `os._exit`, `os.chdir`, exhaust memory, crash the
interpreter — only its own outcome is affected; the parent owns the outputs.

Forking a process that has threads is safe enough here: the interpreter re-creates its own
locks in the child, and a child stuck on a lock another thread held is ended at its
deadline like any other hang.
"""

from __future__ import annotations

import contextlib
import select
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rewardkit.engine._child import (
    PENDING,
    Child,
    Finished,
    WorkerFailed,
    cap_memory,
    exited,
    wait_exit,
)
from rewardkit.engine._lifeline import kill_session

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT",
    "Finished",
    "WorkerFailed",
    "WorkerLimits",
    "cap_memory",
    "in_worker",
    "in_worker_sequence",
    "in_worker_sequence_blocking",
    "run_inline",
    "runs_inline",
]

T = TypeVar("T")


DEFAULT_TIMEOUT = 300.0
"""Seconds a programmatic judge may run unless it sets its own `timeout`."""


DEFAULT_MEMORY_MB = 4096
"""Address space a programmatic judge's process may use, in MiB."""


_inline = False
"""Set by `run_inline` in a process that is already a disposable worker."""


_REAP_GRACE = 2.0
"""Seconds a worker that has sent its result gets to exit before it is killed."""


@dataclass(frozen=True, kw_only=True)
class WorkerLimits:
    """What one worker may use."""

    timeout: float = DEFAULT_TIMEOUT
    """Seconds before the worker and everything it started are killed."""
    memory_mb: int | None = DEFAULT_MEMORY_MB
    """Its address-space cap in MiB; None: no cap."""


async def in_worker(call: Callable[[], T], limits: WorkerLimits) -> T:
    """Run `call()` in a forked child under `limits`; return what it returned.

    Raises:
        WorkerFailed: the deadline passed (the child's session is killed), or the child
            exited or was killed without sending a result.
        BaseException: whatever `call` raised, re-raised here.
    """
    (done,) = await in_worker_sequence([call], limits)
    return done.get()


async def in_worker_sequence(
    calls: Sequence[Callable[[], T]], limits: WorkerLimits
) -> list[Finished[T]]:
    """Run `calls` one after another in forked children, each under its own deadline.

    One child runs them all while they behave (a process per call would cost a fork each);
    when a call hangs past its deadline or ends its process, that call fails and a fresh
    child takes the rest. The working directory is restored between calls.
    """
    if _inline:
        return [_inline_call(call) for call in calls]
    done: list[Finished[T]] = []
    while len(done) < len(calls):
        done += await _one_child(calls[len(done) :], limits)
    return done


def in_worker_sequence_blocking(
    calls: Sequence[Callable[[], T]], limits: WorkerLimits
) -> list[Finished[T]]:
    """`in_worker_sequence` for a caller without an event loop: this thread waits."""
    if _inline:
        return [_inline_call(call) for call in calls]
    done: list[Finished[T]] = []
    while len(done) < len(calls):
        done += _one_child_blocking(calls[len(done) :], limits)
    return done


def _inline_call(call: Callable[[], T]) -> Finished[T]:
    try:
        return Finished(value=call())
    except Exception as exc:
        return Finished(error=exc)


async def _one_child(calls: Sequence[Callable[[], T]], limits: WorkerLimits) -> list[Finished[T]]:
    """Run `calls` in one child until one fails it; the results so far (at least one)."""
    import asyncio

    child = Child(calls, limits.memory_mb)
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def readable() -> None:
        if child.read():
            woken.set()

    loop.add_reader(child.fd, readable)

    async def payload() -> bytes | None:
        while (ready := child.take()) is PENDING:
            woken.clear()
            await woken.wait()
        return ready  # type: ignore[return-value]

    try:
        for _ in calls:
            try:
                ready = await asyncio.wait_for(payload(), limits.timeout)
            except TimeoutError:
                child.timed_out(limits.timeout)
                break
            if not child.took(ready):
                break
    except BaseException:
        kill_session(child.pid)
        raise
    finally:
        loop.remove_reader(child.fd)
        child.close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(exited(child.pid), _REAP_GRACE)
        child.reap()
    return child.done


def _one_child_blocking(
    calls: Sequence[Callable[[], T]], limits: WorkerLimits
) -> list[Finished[T]]:
    """`_one_child`, waiting on the child's pipe in this thread."""
    child = Child(calls, limits.memory_mb)
    poller = select.poll()
    poller.register(child.fd, select.POLLIN)
    try:
        for _ in calls:
            deadline = time.monotonic() + limits.timeout
            while (ready := child.take()) is PENDING:
                left = deadline - time.monotonic()
                if left <= 0 or not poller.poll(left * 1000):
                    break
                child.read()
            if ready is PENDING:
                child.timed_out(limits.timeout)
                break
            if not child.took(ready):  # type: ignore[arg-type]
                break
    except BaseException:
        kill_session(child.pid)
        raise
    finally:
        child.close()
        wait_exit(child.pid, _REAP_GRACE)
        child.reap()
    return child.done


def runs_inline() -> bool:
    """True in a process where `run_inline` was called."""
    return _inline


def run_inline() -> None:
    """From now on, run `in_worker` calls in this process.

    For a process that is itself a disposable worker under a deadline (a `Scorer` sample's
    worker): forking again per judge would only cost time.
    """
    global _inline
    _inline = True
