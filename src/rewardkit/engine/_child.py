"""A forked worker child: what runs inside it (`serve`: each call in turn, its result sent back
length-prefixed and capped), and the parent's view of it (`Child`: the fork, the pipe's
payloads, the reaping).
"""

from __future__ import annotations

import os
import pickle
import resource
import select
import signal
import struct
import sys
import time
import warnings
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from rewardkit.engine._lifeline import die_with_pipe, end_session, kill_session

__all__ = [
    "MAX_RESULT_BYTES",
    "PENDING",
    "Child",
    "Finished",
    "WorkerFailed",
    "cap_memory",
    "exited",
    "wait_exit",
]

T = TypeVar("T")

MAX_RESULT_BYTES = 64 << 20
"""The most a worker may send back."""
_HEADER = struct.Struct("!Q")
"""A payload's length, before it."""


class WorkerFailed(Exception):
    """The worker ended without a result: killed at its deadline, or died.

    Attributes:
        status: `timeout` or `error`, as the judge's outcome records it.
    """

    def __init__(self, message: str, status: Literal["timeout", "error"] = "error") -> None:
        super().__init__(message)
        self.status: Literal["timeout", "error"] = status


@dataclass(frozen=True)
class Finished(Generic[T]):
    """One call's end: its value, or what it raised (a `WorkerFailed` if its process ended)."""

    value: T | None = None
    error: BaseException | None = None

    def get(self) -> T:
        """The value, or raise the error."""
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


PENDING = object()
"""`Child.take` before the next payload has arrived."""


class Child:
    """A forked child running `calls`, and what it has sent back so far.

    Its payloads arrive length-prefixed on a non-blocking pipe: `read` takes what is there,
    `take` hands them out one at a time, `took` turns each into a `Finished`.
    """

    def __init__(self, calls: Sequence[Callable[[], Any]], memory_mb: int | None) -> None:
        parent = os.getpid()
        read_fd, write_fd = os.pipe()
        life_read, life_write = os.pipe()  # held open by us: its closing tells the child we died
        for stream in (sys.stdout, sys.stderr):  # or the child would print the parent's buffer
            stream.flush()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
            pid = os.fork()
        if pid == 0:  # pragma: no cover - the child; its effects are asserted by the tests
            os.close(read_fd)
            os.close(life_write)
            serve(calls, write_fd, memory_mb, (parent, life_read))
        os.close(write_fd)
        os.close(life_read)
        os.set_blocking(read_fd, False)
        self.pid, self.fd, self._lifeline = pid, read_fd, life_write
        self._calls = len(calls)
        self._buffer = bytearray()
        self._ready: deque[bytes | None] = deque()
        self.done: list[Finished[Any]] = []
        self._ended = False
        """The pipe has closed."""

    def read(self) -> bool:
        """Take what the pipe holds; True once a payload (or the pipe's end) is ready."""
        if self._ended:
            return True
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return False
        self._buffer += chunk
        while len(self._buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buffer)
            if size > MAX_RESULT_BYTES:
                self._buffer.clear()
                too_big = WorkerFailed(f"sent a result over {MAX_RESULT_BYTES} bytes")
                self._ready.append(_dumps(("raised", too_big, [])))
                return True
            if len(self._buffer) < _HEADER.size + size:
                break
            self._ready.append(bytes(self._buffer[_HEADER.size : _HEADER.size + size]))
            del self._buffer[: _HEADER.size + size]
        if not chunk:
            self._ready.append(None)
            self._ended = True
        return bool(self._ready)

    def take(self) -> bytes | object | None:
        """The next payload; None once the child closed the pipe without one; else `PENDING`."""
        return self._ready.popleft() if self._ready else PENDING

    def took(self, payload: bytes | None) -> bool:
        """Record `payload`'s call; False when the child ended without one."""
        if payload is None:
            return False
        self.done.append(_unpack(payload))
        return True

    def timed_out(self, timeout: float) -> None:
        """The call in progress overran `timeout`: end the child's session, record it."""
        kill_session(self.pid)
        deadline = f"exceeded its {timeout:g} s deadline; its process was killed"
        self.done.append(Finished(error=WorkerFailed(deadline, "timeout")))

    def reap(self) -> None:
        """Wait for the child, killing its session unless it has exited; when it ended
        without a result, record how."""
        done, status = os.waitpid(self.pid, os.WNOHANG)
        if not done:
            kill_session(self.pid)
            status = os.waitpid(self.pid, 0)[1]
        if self._ended and len(self.done) < self._calls:  # it ended without a result
            self.done.append(Finished(error=WorkerFailed(_death(status))))

    def close(self) -> None:
        """Close our ends of its pipes (the lifeline's closing ends a child still running)."""
        os.close(self.fd)
        os.close(self._lifeline)


def _unpack(payload: bytes) -> Finished[Any]:
    kind, value, caught = pickle.loads(payload)
    for message, category, filename, lineno in caught:  # as if the call had run here
        warnings.warn_explicit(message, category, filename, lineno)
    return Finished(error=value) if kind == "raised" else Finished(value=value)


def serve(
    calls: Sequence[Callable[[], Any]],
    fd: int,
    memory_mb: int | None,
    lifeline: tuple[int, int],
) -> None:
    """Run `calls` in turn, sending each result on `fd` as it ends; never returns.

    `lifeline` is the parent's pid and the read end of a pipe it holds open: when the
    parent dies, the child ends its session (it and what it started) at once.
    """
    try:
        os.setsid()  # one session: the parent ends it, and all it started, at the deadline
        signal.set_wakeup_fd(-1)  # the parent's event loop owns that pipe
        die_with_pipe(lifeline[1], lifeline[0], end_session)
        if memory_mb is not None:
            cap_memory(memory_mb)
        # `''` and relative entries name the working directory of the moment, which a judge
        # may move into the workspace: nothing may be imported from there.
        sys.path[:] = [entry for entry in sys.path if os.path.isabs(entry)]
        home = os.open(".", os.O_RDONLY)
        for call in calls:
            _send(fd, _run(call))
            os.fchdir(home)  # a call's chdir must not move the next one
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
    finally:
        os._exit(0)


def _run(call: Callable[[], Any]) -> bytes:
    with warnings.catch_warnings(record=True) as caught:  # the parent's filters still apply
        try:
            result: tuple[str, Any] = ("ok", call())
        except BaseException as exc:  # sys.exit() and KeyboardInterrupt included
            result = ("raised", _portable(exc))
    return _dumps((*result, [_warning(w) for w in caught]))


def _send(fd: int, payload: bytes) -> None:
    view = memoryview(_HEADER.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


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


async def exited(pid: int) -> None:
    """Return once `pid` has exited (a pidfd where the kernel has them, else polling)."""
    import asyncio

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


def wait_exit(pid: int, timeout: float) -> None:
    """Return once `pid` has exited or `timeout` seconds have passed, whichever is first."""
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        deadline = time.monotonic() + timeout
        while not _zombie(pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        return
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        poller.poll(timeout * 1000)
    finally:
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
