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

import asyncio
import os
import pickle
import resource
import signal
import struct
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from rewardkit.engine._lifeline import end_session, kill_session, watch_parent

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT",
    "WorkerFailed",
    "WorkerLimits",
    "cap_memory",
    "in_worker",
    "run_inline",
]

T = TypeVar("T")

DEFAULT_TIMEOUT = 300.0
"""Seconds a programmatic judge may run unless it sets its own `timeout`."""
DEFAULT_MEMORY_MB = 4096
"""Address space a programmatic judge's process may use, in MiB."""
MAX_RESULT_BYTES = 64 << 20
"""The most a worker may send back."""
_HEADER = struct.Struct("!Q")
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


class WorkerFailed(Exception):
    """The worker ended without a result: killed at its deadline, or died.

    Attributes:
        status: `timeout` or `error`, as the judge's outcome records it.
    """

    def __init__(self, message: str, status: Literal["timeout", "error"] = "error") -> None:
        super().__init__(message)
        self.status: Literal["timeout", "error"] = status


async def in_worker(call: Callable[[], T], limits: WorkerLimits) -> T:
    """Run `call()` in a forked child under `limits`; return what it returned.

    Raises:
        WorkerFailed: the deadline passed (the child's session is killed), or the child
            exited or was killed without sending a result.
        BaseException: whatever `call` raised, re-raised here.
    """
    if _inline:
        return call()
    parent = os.getpid()
    read_fd, write_fd = os.pipe()
    for stream in (sys.stdout, sys.stderr):  # or the child would print the parent's buffer
        stream.flush()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; its effects are asserted by the tests
        os.close(read_fd)
        _child(call, write_fd, limits.memory_mb, parent)
    os.close(write_fd)
    try:
        payload = await asyncio.wait_for(_receive(read_fd), limits.timeout)
    except TimeoutError:
        kill_session(pid)
        await _reap(pid)
        raise WorkerFailed(
            f"exceeded its {limits.timeout:g} s deadline; its process was killed", "timeout"
        ) from None
    except BaseException:
        kill_session(pid)
        await _reap(pid)
        raise
    finally:
        os.close(read_fd)
    status = await _reap(pid)
    if payload is None:
        raise WorkerFailed(_death(status))
    kind, value, caught = pickle.loads(payload)
    for message, category, filename, lineno in caught:  # as if the call had run here
        warnings.warn_explicit(message, category, filename, lineno)
    if kind == "raised":
        raise value
    return value  # type: ignore[no-any-return]


def _child(call: Callable[[], Any], fd: int, memory_mb: int | None, parent: int) -> None:
    """Run `call` and send its result on `fd`; never returns."""
    try:
        os.setsid()  # one session: the parent ends it, and all it started, at the deadline
        signal.set_wakeup_fd(-1)  # the parent's event loop owns that pipe
        watch_parent(parent, end_session)
        if memory_mb is not None:
            cap_memory(memory_mb)
        with warnings.catch_warnings(record=True) as caught:  # the parent's filters still apply
            try:
                result: tuple[str, Any] = ("ok", call())
            except BaseException as exc:  # sys.exit() and KeyboardInterrupt included
                result = ("raised", _portable(exc))
        payload = _dumps((*result, [_warning(w) for w in caught]))
        os.write(fd, _HEADER.pack(len(payload)))
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
    finally:
        os._exit(0)


def cap_memory(mib: int) -> None:
    """Let this process's address space grow by at most `mib` MiB from what it inherited.

    Counting from the inherited size keeps the cap meaningful in a parent that maps a lot
    up front (a Ray worker reserves gigabytes it never touches). The hard limit is set too,
    so nothing the process starts can raise it. No-op without `/proc` (macOS does not
    enforce `RLIMIT_AS` either).
    """
    try:
        with open("/proc/self/statm", "rb") as handle:
            inherited = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = inherited + (mib << 20)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run_inline() -> None:
    """From now on, run `in_worker` calls in this process.

    For a process that is itself a disposable worker under a deadline (a `Scorer` sample's
    worker): forking again per judge would only cost time.
    """
    global _inline
    _inline = True


def _warning(caught: warnings.WarningMessage) -> tuple[str, type[Warning], str, int]:
    category = caught.category
    try:
        pickle.dumps(category)
    except Exception:  # a category defined where the parent cannot import it
        category = UserWarning
    return str(caught.message), category, caught.filename, caught.lineno


def _dumps(result: tuple[str, Any, list[Any]]) -> bytes:
    try:
        return pickle.dumps(result)
    except Exception as exc:  # an unpicklable result or exception
        error = RuntimeError(f"result could not be sent back: {exc}")
        return pickle.dumps(("raised", error, result[2]))


def _portable(exc: BaseException) -> BaseException:
    """`exc` if it pickles (with its traceback text kept), else a `RuntimeError` saying what."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


async def _receive(fd: int) -> bytes | None:
    """The child's length-prefixed payload, or None if it closed the pipe without one."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    buffer = bytearray()
    done: asyncio.Future[bytes | None] = loop.create_future()

    def readable() -> None:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            return
        buffer.extend(chunk)
        if len(buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(buffer)
            if size > MAX_RESULT_BYTES:
                done.set_exception(WorkerFailed(f"sent a result over {MAX_RESULT_BYTES} bytes"))
            elif len(buffer) >= _HEADER.size + size:
                done.set_result(bytes(buffer[_HEADER.size : _HEADER.size + size]))
        if not chunk and not done.done():
            done.set_result(None)
        if done.done():
            loop.remove_reader(fd)

    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)


async def _reap(pid: int) -> int:
    """Wait for the child to exit (killing it after a grace period); its wait status."""
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        return status
    try:
        await asyncio.wait_for(_exited(pid), _REAP_GRACE)
    except TimeoutError:
        kill_session(pid)
    return os.waitpid(pid, 0)[1]


async def _exited(pid: int) -> None:
    """Return once `pid` has exited (a pidfd where the kernel has them, else polling)."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        while not _zombie(pid):
            await asyncio.sleep(0.005)
        return
    loop = asyncio.get_running_loop()
    gone: asyncio.Future[None] = loop.create_future()
    loop.add_reader(fd, lambda: None if gone.done() else gone.set_result(None))
    try:
        await gone
    finally:
        loop.remove_reader(fd)
        os.close(fd)


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] == b"Z"


def _death(status: int) -> str:
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        return f"its process was killed by {name} before returning a result"
    code = os.WEXITSTATUS(status)
    return f"it ended its process (exit code {code}) before returning a result"
