"""`verify_latex`: math-verify's verdict under a deadline that holds on any thread.

math-verify times out with `SIGALRM`, which only the main thread may use (elsewhere it
runs with no deadline, and `9^{9^{9^9}}` holds a thread for good), and no signal ends code
stuck inside a C call. So the work runs in single-threaded worker processes
(`_symbolic_worker.py`, started with `python -I` in `/`, its environment `PATH` and
`LANG`, none of the caller's secrets), and the caller waits for the answer at most
`timeout` seconds: then it kills the worker (`SIGKILL`) and answers None, and the next
call starts a fresh one.

Workers: a pool of up to `min(4, os.cpu_count())`, started on demand (a call that finds
none idle starts one; at the cap, it waits for one to be free, and its deadline starts
when its worker gets the request). Measured with `benchmarks/symbolic_overhead.py` on 2
cores: 8 threads get 1.3 times the throughput of one worker behind a lock from a pool of 2;
a call costs about what math-verify costs in-process (1.7-1.9 ms for `\\frac{k}{2}` vs
a decimal; the pipe round trip itself is ≈25 µs), on any thread. A worker's start (about
0.5 s of imports, 60 MiB) does not count toward the deadline of the call that waits for
it. A forked process starts its own workers; all end at interpreter exit.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import json
import math
import os
import select
import subprocess
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from rewardkit.functions.builtin._extras import missing

__all__ = ["verify_latex"]

_WORKER = Path(__file__).with_name("_symbolic_worker.py")
_POOL_SIZE = min(4, os.cpu_count() or 1)
_MAX_CHARS = 2_000
"""The longest side compared; longer is not decided (an answer is short; a long one is
an attempt to make sympy work)."""
_MAX_REPLY = 4_096
"""The longest answer line read from a worker."""
_START_SECONDS = 60.0
"""How long a worker may take to import math-verify (its own bound, not the call's)."""
_CACHE_SIZE = 4_096


def verify_latex(gold: str, answer: str, *, timeout: float = 5.0) -> bool | None:
    """math-verify's verdict on two LaTeX answers, each already extracted.

    Each side is read as LaTeX only (in `$...$`; never math-verify's expression reader,
    which hands text to sympy's `parse_expr`, an `eval`). Decided verdicts are cached
    (4,096 pairs), since RL scores many responses per reference. Thread-safe.

    Args:
        gold: The reference, e.g. `"\\\\frac{1}{2}"`, `"(0, 9]"`, `"x^2+1"`.
        answer: The answer to compare with it.
        timeout: Seconds to wait for the verdict; then the worker is killed.

    Returns:
        True or False; None when it could not be decided: a side is empty, longer than
        2,000 characters or not LaTeX math-verify can parse, or the deadline passed.

    Raises:
        ImportError: math-verify is not installed (the `math` extra).
        ValueError: `timeout` is not a positive number.

    Example:
        >>> verify_latex("\\\\frac{1}{2}", "0.5"), verify_latex("(0, 9]", "[0, 9]")
        (True, False)
    """
    if not (isinstance(timeout, int | float) and 0 < timeout < math.inf):
        raise ValueError(f"verify_latex: timeout must be a positive number (got {timeout!r})")
    if not _installed():
        raise _missing()
    if not gold.strip() or not answer.strip() or max(len(gold), len(answer)) > _MAX_CHARS:
        return None
    key = (gold, answer)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    reply = _pool().ask({"gold": gold, "answer": answer, "budget": _budget(timeout)}, timeout)
    verdict = reply.get("verdict") if reply else None
    if reply is not None and reply.get("why") in ("verified", "unparsed gold", "unparsed answer"):
        with _cache_lock:
            _cache[key] = verdict
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return verdict if isinstance(verdict, bool) else None


def _budget(timeout: float) -> float:
    """The worker's own time limit: within the caller's, so that a worker that can still
    stop itself answers None in time and is kept, rather than killed and replaced."""
    return max(0.8 * timeout, timeout - 1.0)


@functools.cache
def _installed() -> bool:
    return importlib.util.find_spec("math_verify") is not None


def _missing() -> ImportError:
    return missing(package="math-verify", extra="math", function="verify_latex")


def _environment() -> dict[str, str]:
    """What a worker inherits: the executable search path and an encoding, no secrets."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
    if "LD_LIBRARY_PATH" in os.environ:  # some Python builds need it to start at all
        env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    return env


class _Worker:
    """One worker process: a JSON line to its stdin, a JSON line back from its stdout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(_WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_environment(),
            cwd="/",
            start_new_session=True,  # a Ctrl-C at the terminal is the caller's to handle
        )
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._buffer = bytearray()
        hello = self._read(time.monotonic() + _START_SECONDS)
        if hello is None or "ready" not in hello:
            self.kill()
            if hello is not None and "missing" in hello:
                raise _missing()
            raise RuntimeError(
                f"verify_latex: the math-verify worker did not start (exit status "
                f"{self.proc.returncode}); run `{sys.executable} -I {_WORKER}` to see why"
            )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """The worker's answer, or None if it gave none in `timeout` seconds."""
        deadline = time.monotonic() + timeout
        if not self._write(json.dumps(request).encode() + b"\n", deadline):
            return None
        return self._read(deadline)

    def _write(self, data: bytes, deadline: float) -> bool:
        view = memoryview(data)
        while view:
            if not _wait(self._in, select.POLLOUT, deadline):
                return False
            try:
                view = view[os.write(self._in, view) :]
            except BlockingIOError:
                continue
            except OSError:  # the worker is gone
                return False
        return True

    def _read(self, deadline: float) -> dict[str, Any] | None:
        while b"\n" not in self._buffer:
            if len(self._buffer) > _MAX_REPLY or not _wait(self._out, select.POLLIN, deadline):
                return None
            chunk = os.read(self._out, _MAX_REPLY)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, rest = self._buffer.partition(b"\n")
        self._buffer = bytearray(rest)
        try:
            message = json.loads(line)
        except ValueError:
            return None
        return message if isinstance(message, dict) else None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        self.forget()

    def forget(self) -> None:
        """Close this process's ends of the pipes (after a fork: the parent keeps its own)."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


def _wait(fd: int, event: int, deadline: float) -> bool:
    """Whether `fd` is ready for `event` (or has hung up) before `deadline`."""
    poller = select.poll()
    poller.register(fd, event)
    remaining = deadline - time.monotonic()
    return remaining > 0 and bool(poller.poll(math.ceil(remaining * 1000)))


class _Pool:
    """Up to `size` workers, started on demand, each serving one call at a time."""

    def __init__(self, size: int) -> None:
        self.owner = os.getpid()
        self._size = size
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._starting = 0
        self._free = threading.Condition()

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        worker = self._take()
        reply = None
        try:
            reply = worker.ask(request, timeout)
        finally:
            self._give(worker, keep=reply is not None)
        return reply

    def pids(self) -> list[int]:
        with self._free:
            return [worker.proc.pid for worker in self._all]

    def _take(self) -> _Worker:
        with self._free:
            while True:
                while self._idle:
                    worker = self._idle.pop()
                    if worker.alive():
                        return worker
                    self._all.discard(worker)
                    worker.kill()
                if len(self._all) + self._starting < self._size:
                    self._starting += 1
                    break
                self._free.wait()
        try:
            worker = _Worker()
        finally:
            with self._free:
                self._starting -= 1
                self._free.notify()
        with self._free:
            self._all.add(worker)
        return worker

    def _give(self, worker: _Worker, *, keep: bool) -> None:
        if not keep:
            worker.kill()
        with self._free:
            if keep:
                self._idle.append(worker)
            else:
                self._all.discard(worker)
            self._free.notify()

    def close(self) -> None:
        """Kill every worker (busy ones too: their callers get None)."""
        with self._free:
            workers, self._idle = list(self._all), []
            self._all.clear()
        for worker in workers:
            worker.kill()

    def forget(self) -> None:
        """In a forked child: drop the parent's workers without touching them."""
        for worker in self._all:
            worker.forget()


_cache: OrderedDict[tuple[str, str], bool | None] = OrderedDict()
_cache_lock = threading.Lock()
_pool_lock = threading.Lock()
_the_pool: _Pool | None = None


def _pool() -> _Pool:
    """This process's pool (a forked child's is its own)."""
    global _the_pool
    with _pool_lock:
        if _the_pool is None or _the_pool.owner != os.getpid():
            _the_pool = _Pool(_POOL_SIZE)
        return _the_pool


def _close() -> None:
    if _the_pool is not None and _the_pool.owner == os.getpid():
        _the_pool.close()


def _forget() -> None:
    global _the_pool, _pool_lock, _cache_lock
    _pool_lock, _cache_lock = threading.Lock(), threading.Lock()  # another thread may hold one
    if _the_pool is not None:
        _the_pool.forget()
    _the_pool = None


os.register_at_fork(after_in_child=_forget)
atexit.register(_close)
