"""Samples in forked processes that a deadline really ends (`Scorer` with a `deadline`).

`ForkedPool` has one *slot* per chunk of samples scored at once. A slot is a supervisor
process, forked from the driver when the pool starts, which forks a long-lived worker: both
inherit the loaded reward, so only the samples and their results cross a pipe, one pickled
frame per chunk each way (the supervisor passes frames on without reading them); a caller
may have each result turned into something cheaper to send (`finish`) in the worker. The worker
scores the chunk's samples in turn, writing which sample it is on and since when to a word
of memory it shares with its supervisor, so the supervisor watches each sample's deadline
without a message per sample. A worker whose sample outlives its deadline is killed, and one
that exits or is killed is reaped; that sample gets an invalid result saying why, and the
rest of its chunk is scored again by a fresh worker (their results died with the old one).
Supervisors run no reward code, so they always answer. They also do the forking of
replacement workers, being single-threaded, where the driver may have threads.

Nothing outlives the driver: a supervisor checks for its parent every 0.1 s and kills its
worker once the driver is gone; on Linux a worker is also SIGKILLed when its supervisor dies
(`PR_SET_PDEATHSIG`), and what a killed worker had started (a command, a judge's own worker)
is re-parented to the supervisor (`PR_SET_CHILD_SUBREAPER`), which ends it too.

A worker's address space may grow by `memory_mib` MiB over its size at fork (`RLIMIT_AS`,
Linux): relative, because a driver such as a Ray worker or a trainer may already map more
than any absolute cap. A sample that exhausts memory fails in its worker alone.

Over 350 lines: the driver's, the supervisor's and the worker's sides of one pipe protocol, so
that a frame's shape is written once.
"""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import pickle
import queue
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from multiprocessing.connection import Connection, Pipe, wait
from typing import Any, NoReturn

from rewardkit.batch._result import SampleResult
from rewardkit.engine._child import cap_memory
from rewardkit.engine._lifeline import adopt_orphans, die_with_parent, end_children
from rewardkit.engine._workers import run_inline

__all__ = ["Finish", "ForkedPool", "Run", "Ticket"]

Run = Callable[[Any], SampleResult]
"""Scores one sample, never raising (inherited by the workers)."""
Finish = Callable[[Any, SampleResult], Any]
"""Turns a sample's key and result into what is sent back (picklable; never a `SampleResult`)."""
_POLL_S = 0.1
"""How often a supervisor checks that the driver is still there."""
_MAX_REPLY = 256 << 20
"""The largest pickled chunk of results a worker may send back."""
_NOW = struct.Struct("=Q")
"""The shared word: (1 + the index of the sample being scored) << 40 | its start in ms."""
_MS = (1 << 40) - 1
_FORKING = threading.Lock()
"""Held from a slot's pipe to the close of its child's end in the driver."""


class ForkedPool:
    """`size` slots, each scoring one chunk at a time in a worker that the deadline ends."""

    def __init__(self, run: Run, *, size: int, deadline: float, memory_mib: int) -> None:
        self.size = size
        self.deadline = deadline
        self._spec = (run, deadline, memory_mib)
        self._slots: list[_Slot] = []
        self._idle: queue.SimpleQueue[_Slot] = queue.SimpleQueue()
        self._owner = os.getpid()
        self._closed = False
        try:
            for _ in range(size):
                self._idle.put(self._fork())
        except BaseException:  # e.g. out of processes: none of ours may linger
            self.close()
            raise

    def score(self, sample: Any) -> SampleResult:
        """Score `sample` in a free slot (see `score_chunk`)."""
        (result,) = self.score_chunk([sample])
        return result  # type: ignore[no-any-return]  # no `finish`: a SampleResult

    def score_chunk(
        self,
        samples: list[Any],
        *,
        ticket: Ticket | None = None,
        retry: bool = True,
        keys: Sequence[Any] = (),
        finish: Finish | None = None,
    ) -> list[Any]:
        """Score `samples` in turn in a free slot, each under the deadline; in order.

        Blocking: call it from one of `size` threads. A supervisor killed from outside is
        replaced, and its chunk sent to the new one once; `abandon(ticket)` ends the chunk.
        With `finish`, each result comes back as `finish(key, result)`, `key` being the
        sample's in `keys`: applied in the worker, or here to a result made outside it.
        """
        items = list(zip(keys, samples, strict=True) if finish else zip(repeat(None), samples))
        results = self._score(items, finish, ticket or Ticket(), retry)
        if finish is None:
            return results
        return [
            finish(key, result) if isinstance(result, SampleResult) else result
            for (key, _), result in zip(items, results, strict=True)
        ]

    def _score(
        self, items: list[tuple[Any, Any]], finish: Finish | None, ticket: Ticket, retry: bool
    ) -> list[Any]:
        if os.getpid() != self._owner:
            raise RuntimeError("this Scorer was inherited by a forked process; load one there")
        try:
            frame = pickle.dumps((finish, items))
        except Exception as exc:  # one sample cannot be pickled: the others still can
            if len(items) > 1:
                return [r for one in items for r in self._score([one], finish, Ticket(), True)]
            return [_invalid(f"the sample cannot be sent to a worker process ({_describe(exc)})")]
        slot = self._idle.get()
        with ticket.lock:
            ticket.slot = None if ticket.abandoned else slot
        try:
            if ticket.slot is None:
                return [_invalid("abandoned by its caller")] * len(items)
            return _spread(pickle.loads(slot.ask(frame)), len(items))
        except (EOFError, OSError):  # closed meanwhile, or the supervisor killed
            if self._closed:
                why = "the scorer was closed while this sample was being scored"
                return [_invalid(why)] * len(items)
            self._stop(slot)
            slot = self._fork()
        finally:
            with ticket.lock:
                ticket.slot = None
            self._idle.put(slot)
        if ticket.abandoned:
            return [_invalid("abandoned by its caller")] * len(items)
        if retry:  # under the same ticket: its caller can still abandon the chunk
            return self._score(items, finish, ticket, retry=False)
        why = "the process supervising this sample's worker died twice; score it again"
        return [_invalid(why)] * len(items)

    def abandon(self, ticket: Ticket) -> None:
        """End the chunk scored under `ticket` now (its slot gets fresh processes)."""
        with ticket.lock:
            ticket.abandoned = True
            if ticket.slot is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(ticket.slot.pid, signal.SIGTERM)  # it kills its worker, then exits

    def close(self) -> None:
        """Stop every slot (supervisor and worker); nothing in a forked child of the driver."""
        self._closed = True
        while self._slots and os.getpid() == self._owner:
            self._stop(self._slots[-1])

    def _fork(self) -> _Slot:
        run, deadline, memory_mib = self._spec
        inherited = [slot.conn for slot in self._slots]  # so that each sees its driver go

        def supervise(conn: Connection) -> None:
            _Supervisor(conn, run, deadline, memory_mib).serve()

        slot = _Slot(*fork(supervise, close=inherited))
        self._slots.append(slot)
        return slot

    def _stop(self, slot: _Slot) -> None:
        self._slots.remove(slot)
        slot.conn.close()
        _end(slot.pid)


@dataclass
class Ticket:
    """Names one `score_chunk` call, so that another thread can `abandon` it."""

    slot: _Slot | None = None
    abandoned: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class _Slot:
    """The driver's handle on one supervisor."""

    pid: int
    conn: Connection

    def ask(self, frame: bytes) -> bytes:
        self.conn.send_bytes(frame)
        return self.conn.recv_bytes()


def fork(
    child: Callable[[Connection], None], *, close: Iterable[Connection] = ()
) -> tuple[int, Connection]:
    """Fork a process that runs `child(its end of a pipe)`, then exits; return its pid and ours.

    The child closes `close` (inherited ends of other pipes) and ignores Ctrl-C, which is the
    driver's to handle; it never returns into the caller's code. A SIGTERM ends it until
    `child` says otherwise, even one sent the instant it exists: the driver's own handler
    (uvicorn's only sets a flag) is never run in it.
    """
    with _FORKING:  # no other thread's fork inherits `theirs`, which would hold it open
        ours, theirs = Pipe()
        _flush()  # or the child would print what is buffered again
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        pid = os.fork()
        if pid:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            theirs.close()
            return pid, ours
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a SIGTERM sent meanwhile ends us now
        ours.close()
        for conn in close:
            conn.close()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # reap our own children
        child(theirs)
        code = 0
    finally:
        os._exit(code)


@dataclass(frozen=True)
class _Worker:
    """A supervisor's handle on its worker."""

    pid: int
    conn: Connection

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def reap(self) -> int:
        """Wait for the (dying) worker; its exit code, or minus the signal that ended it."""
        self.conn.close()
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


class _Supervisor:
    """Runs in a slot's process: one sample at a time to the worker, under the deadline."""

    def __init__(self, conn: Connection, run: Run, deadline: float, memory_mib: int) -> None:
        self.conn = conn
        self.run = run
        self.deadline = deadline
        self.memory_mib = memory_mib
        self.driver = os.getppid()
        self.worker: _Worker | None = None
        self.dying: list[_Worker] = []
        self.clock = mmap.mmap(-1, _NOW.size)
        """The word the worker writes its progress to (shared: mapped before the fork)."""

    def serve(self) -> None:
        signal.signal(signal.SIGTERM, self._quit)
        adopt_orphans()  # what a killed worker started becomes ours to end
        self.worker = self._start()
        while (frame := self._receive()) is not None:
            self.conn.send_bytes(self._score(frame))
        self._quit()

    def _receive(self) -> bytes | None:
        """The next sample, or None once the driver is gone."""
        while not wait([self.conn], _POLL_S):
            if os.getppid() != self.driver:
                return None
        try:
            return self.conn.recv_bytes()
        except (EOFError, OSError):
            return None

    def _score(self, frame: bytes) -> bytes:
        """The results of a chunk: passed on as the worker sent them when every sample ended
        in time; else the lost sample's invalid result, and the rest scored again."""
        reply, lost = self._attempt(frame)
        if lost is None:
            return reply
        finish, items = pickle.loads(frame)
        results: list[Any] = [None] * len(items)
        todo = list(range(len(items)))
        while lost is not None:
            index, result = lost
            results[todo.pop(index)] = result  # the driver finishes it
            if not todo:
                break
            reply, lost = self._attempt(pickle.dumps((finish, [items[i] for i in todo])))
            if lost is None:
                for i, done in zip(todo, _spread(pickle.loads(reply), len(todo)), strict=True):
                    results[i] = done
        return pickle.dumps(results)

    def _attempt(self, frame: bytes) -> tuple[bytes, tuple[int, SampleResult] | None]:
        """Send one chunk to the worker: its reply, or which sample was lost and why."""
        if self.worker is None:
            self.worker = self._start()
        worker = self.worker
        sent = time.monotonic()
        try:
            worker.conn.send_bytes(frame)
            while True:
                index, started = self._now(sent)
                left = started + self.deadline - time.monotonic()
                if left <= 0:
                    break
                if wait([worker.conn], min(left, _POLL_S)):
                    return worker.conn.recv_bytes(_MAX_REPLY), None
                if os.getppid() != self.driver:
                    self._quit()
        except (EOFError, OSError):  # it died, or sent a reply over _MAX_REPLY
            index, started = self._now(sent)
            self.worker = None
            worker.kill()
            return b"", (index, _invalid(_died(worker.reap()), started))
        self.worker = None
        worker.kill()
        self.dying.append(worker)  # reaped before the next fork: answer first
        return b"", (index, _invalid(f"deadline of {self.deadline:g}s exceeded", started))

    def _now(self, sent: float) -> tuple[int, float]:
        """The sample the worker is on (0 before it starts the first) and since when."""
        (word,) = _NOW.unpack_from(self.clock)
        if not word:
            return 0, sent
        return (word >> 40) - 1, (word & _MS) / 1000

    def _start(self) -> _Worker:
        while self.dying:
            self.dying.pop().reap()
        end_children()  # what dead workers left running (our only children now)
        run, memory_mib, me, clock = self.run, self.memory_mib, os.getpid(), self.clock
        _NOW.pack_into(clock, 0, 0)

        def work(conn: Connection) -> None:
            _work(conn, run, memory_mib, me, clock)

        return _Worker(*fork(work, close=[self.conn]))

    def _quit(self, *_: object) -> NoReturn:
        for worker in self.dying + ([self.worker] if self.worker else []):
            worker.kill()
            with contextlib.suppress(ChildProcessError):  # a SIGTERM while it was reaped
                worker.reap()
        end_children()
        os._exit(0)


def _work(conn: Connection, run: Run, memory_mib: int, supervisor: int, clock: mmap.mmap) -> None:
    """A worker's loop: score each chunk it is sent, until its supervisor goes."""
    die_with_parent(supervisor)
    cap_memory(memory_mib)
    run_inline()  # this worker is the judges' sandbox: no process per judge inside it
    gc.freeze()  # what it inherited is never collected here: no scans of it, no copies
    while True:
        try:
            frame = conn.recv_bytes()
        except (EOFError, OSError):
            return
        conn.send_bytes(_reply(run, frame, memory_mib, clock))
        _flush()  # what the reward printed, in order


def _reply(run: Run, frame: bytes, memory_mib: int, clock: mmap.mmap) -> bytes:
    _NOW.pack_into(clock, 0, 0)
    try:
        finish, items = pickle.loads(frame)
    except Exception as exc:  # e.g. out of memory
        return pickle.dumps([_invalid(f"the sample could not be received ({_describe(exc)})")])
    results: list[Any] = []
    for number, (key, sample) in enumerate(items, 1):
        # the start time, then which sample, in one word: the supervisor never reads a mix
        _NOW.pack_into(clock, 0, number << 40 | int(time.monotonic() * 1000) & _MS)
        result = run(sample)
        if result.error is not None and "MemoryError" in result.error:
            note = f"a worker may grow by {memory_mib} MiB: raise memory_mib= or --memory-mib"
            result = replace(result, error=f"{result.error} ({note})")
        results.append(result if finish is None else finish(key, result))
    try:
        return pickle.dumps(results)
    except Exception:
        return pickle.dumps([_sendable(result) for result in results])


def _sendable(result: Any) -> Any:
    try:
        pickle.dumps(result)
    except Exception as exc:
        return _invalid(f"the result cannot be sent back ({_describe(exc)})")
    return result


def _spread(results: list[Any], n: int) -> list[Any]:
    """A chunk's `n` results; a worker that could not read the chunk sent one, for all."""
    return results if len(results) == n else results[:1] * n


def _end(pid: int) -> None:
    """Stop a supervisor (it kills its worker on SIGTERM) and reap it; SIGKILL after 2 s."""
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(200):
            if os.waitpid(pid, os.WNOHANG)[0]:
                return
            time.sleep(0.01)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):  # reaped by someone else already
        pass


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):  # None, or closed
            stream.flush()


def _died(code: int) -> str:
    if code < 0:
        name = signal.Signals(-code).name
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the worker process was killed by {name} while scoring this sample{hint}"
    return (
        f"the worker process exited with code {code} while scoring this sample (the reward "
        "or a judge ended its process, e.g. with os._exit)"
    )


def _invalid(error: str, started: float | None = None) -> SampleResult:
    took = 0.0 if started is None else time.monotonic() - started
    return SampleResult(reward=None, error=error, duration_s=took)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
