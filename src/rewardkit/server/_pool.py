"""`Workers`: score samples in processes, so that a deadline really ends a hung sample.

A thread cannot be stopped: with threads, a hung judge keeps its slot until it returns, and a
few hung samples take the whole service. Here each sample runs in a scoring process
(`_worker.py`, spawned: a fresh interpreter, safe next to the server's threads) that holds one
sample at a time. At the sample deadline, or when the request's deadline cancels the call, the
process is killed, and its slot goes to a fresh process. At most `size` processes exist; they
start on demand and are reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import socket
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from multiprocessing.process import BaseProcess
from typing import Any

from rewardkit._errors import ConfigError, RewardKitError
from rewardkit.batch import Scorer, load
from rewardkit.batch._backends import EvalBackend, TestsDirBackend
from rewardkit.engine._lifeline import descendants
from rewardkit.server._worker import HEADER, main

__all__ = ["Recipe", "WorkerError", "Workers", "recipe_for"]

Recipe = Callable[[], Scorer]
"""A picklable way to build the scorer again, in a scoring process."""

_SPAWN = multiprocessing.get_context("spawn")
_EXIT_WAIT_S = 1.0
"""How long to wait for a dead process's exit code."""
_MAIN_GUARD = "a script that builds the app must do so under `if __name__ == '__main__':`"
"""Spawned processes import the server's main script: without the guard, it runs again."""


class WorkerError(RewardKitError, RuntimeError):
    """A scoring process could not start (e.g. it could not load the reward)."""


def recipe_for(scorer: Scorer) -> Recipe:
    """How a scoring process rebuilds `scorer` (its config or functions, and its `on_error`),
    one sample at a time and without a deadline of its own: the pool enforces the deadline.

    Raises:
        ConfigError: its reward functions cannot be pickled (e.g. one is a lambda).
    """
    backend = scorer.backend
    if scorer.recipe is not None:
        spec = replace(scorer.recipe, deadline=None, max_concurrent=1, token=uuid.uuid4().hex)
        recipe: Recipe = spec.build
    elif isinstance(backend, EvalBackend):
        return partial(load, backend.suite.path, max_concurrent=1)
    elif isinstance(backend, TestsDirBackend):
        return partial(load, backend.plan.tests_dir, max_concurrent=1)
    else:
        recipe = partial(Scorer, backend, deadline=None, max_concurrent=1)
    try:
        pickle.dumps(recipe)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ConfigError(
            f"the reward functions cannot be sent to the scoring processes ({exc}); define "
            "each at the top level of a module the server can import"
        ) from None
    return recipe


class Workers:
    """Up to `size` scoring processes; a sample past `deadline` seconds ends its process.

    Args:
        recipe: how each process builds the scorer.
        size: processes at most, so samples scored at once.
        deadline: seconds per sample (then an invalid result); `None`: no limit.
    """

    def __init__(self, recipe: Recipe, *, size: int, deadline: float | None) -> None:
        self.recipe = recipe
        self.size = size
        self.deadline = deadline
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._slots: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    async def score(self, sample: Mapping[str, Any]) -> dict[str, Any]:
        """Score `sample` in a scoring process; return the fields of `ResultOut` but `metadata`.

        Raises:
            WorkerError: no scoring process could be started.
        """
        slots = self._semaphore()
        await slots.acquire()
        worker = await self._checkout(slots)
        keep = False
        try:
            result, keep = await self._run(worker, sample)
        finally:
            if keep:
                self._idle.append(worker)
            else:  # timed out, died, or cancelled by the request's deadline
                self._end(worker)
            slots.release()
        return result

    def close(self) -> None:
        """Kill every scoring process."""
        for worker in self._live:
            worker.kill()
        self._live.clear()
        self._idle.clear()

    async def _run(self, worker: _Worker, sample: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
        """The result, and whether `worker` can score again."""
        start = time.perf_counter()
        try:
            return await asyncio.wait_for(worker.call(sample), self.deadline), True
        except TimeoutError:
            return _invalid(f"deadline of {self.deadline:g}s exceeded", start), False
        except (EOFError, OSError):
            code = await worker.exit_code()
            error = (
                f"the scoring process ended while scoring this sample (exit code {code}); a "
                "judge may have crashed it or run out of memory"
            )
            return _invalid(error, start), False

    async def _checkout(self, slots: asyncio.Semaphore) -> _Worker:
        """An idle process, else a new one, for the holder of a slot (released if this fails).

        A start outlives a cancelled request (else a process slower to start than the deadline
        would never serve): it keeps the slot until the process is up and idle, so processes,
        starting ones included, never outnumber the slots.
        """
        if self._idle:
            return self._idle.pop()
        start = asyncio.ensure_future(_Worker.start(self.recipe))
        try:
            worker = await asyncio.shield(start)
        except asyncio.CancelledError:
            start.add_done_callback(lambda _: self._adopt(start, slots))
            raise
        except BaseException:
            slots.release()
            raise
        self._live.add(worker)
        return worker

    def _adopt(self, start: asyncio.Future[_Worker], slots: asyncio.Semaphore) -> None:
        if not start.cancelled() and start.exception() is None:  # else: nothing to keep
            self._live.add(start.result())
            self._idle.append(start.result())
        slots.release()

    def _end(self, worker: _Worker) -> None:
        worker.kill()
        self._live.discard(worker)

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            # asyncio primitives belong to one loop; a new loop (e.g. a test client without
            # `with`, which runs each request on its own) gets its own slots.
            self._slots = (loop, asyncio.Semaphore(self.size))
        return self._slots[1]


class _Worker:
    """One scoring process and our end of its socket."""

    def __init__(self, process: BaseProcess, sock: socket.socket) -> None:
        self.process = process
        self.sock = sock

    @classmethod
    async def start(cls, recipe: Recipe) -> _Worker:
        """Spawn a process and wait until it has loaded the reward.

        Raises:
            WorkerError: the process could not load the reward, or exited.
        """
        ours, theirs = socket.socketpair()
        process = _SPAWN.Process(
            target=main, args=(theirs, recipe), name="rewardkit-scorer", daemon=True
        )
        try:
            process.start()
        finally:
            theirs.close()
        ours.setblocking(False)
        worker = cls(process, ours)
        try:
            await worker._ready()
        except BaseException:  # could not load, or cancelled by the request's deadline
            worker.kill()
            raise
        return worker

    async def call(self, sample: Mapping[str, Any]) -> dict[str, Any]:
        """Send `sample`; return the process's answer."""
        data = pickle.dumps(dict(sample), protocol=pickle.HIGHEST_PROTOCOL)
        loop = asyncio.get_running_loop()
        await loop.sock_sendall(self.sock, HEADER.pack(len(data)))
        await loop.sock_sendall(self.sock, data)
        result: dict[str, Any] = await self._receive()
        return result

    async def exit_code(self) -> int | None:
        """The process's exit code once it has exited; `None` if it still runs after a second."""
        deadline = time.monotonic() + _EXIT_WAIT_S
        while self.process.exitcode is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return self.process.exitcode

    def kill(self) -> None:
        """Kill the process and all it started (reaped when the next one starts); close."""
        self.sock.close()
        if self.process.pid is not None and self.process.exitcode is None:
            tree = descendants(self.process.pid)  # read before the kill re-parents them
            self.process.kill()
            for pid in tree:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    async def _ready(self) -> None:
        try:
            status, message = await self._receive()
        except (EOFError, OSError):
            code = await self.exit_code()
            status, message = "error", f"it exited (exit code {code}; {_MAIN_GUARD})"
        if status != "ready":
            raise WorkerError(
                f"a scoring process could not load the reward: {message}. Check the config "
                "with `rewardkit check`, and the server's log"
            )

    async def _receive(self) -> Any:
        (size,) = HEADER.unpack(await self._exactly(HEADER.size))
        return pickle.loads(await self._exactly(size))

    async def _exactly(self, size: int) -> bytearray:
        loop = asyncio.get_running_loop()
        buffer = bytearray(size)
        view = memoryview(buffer)
        got = 0
        while got < size:
            count = await loop.sock_recv_into(self.sock, view[got:])
            if count == 0:
                raise EOFError("the scoring process closed its socket")
            got += count
        return buffer


def _invalid(error: str, start: float) -> dict[str, Any]:
    return {
        "reward": None,
        "valid": False,
        "judges": {},
        "rewards": {},
        "error": error,
        "reason": error,
        "duration_s": time.perf_counter() - start,
    }
