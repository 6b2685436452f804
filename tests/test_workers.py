"""`engine._workers`: a forked child that returns, raises, or is ended for good, waited on from
an event loop (`in_worker_sequence`) or from a plain thread (`in_worker_sequence_blocking`)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from rewardkit.engine._workers import (
    Finished,
    WorkerFailed,
    WorkerLimits,
    in_worker_sequence,
    in_worker_sequence_blocking,
)

QUICK = WorkerLimits(timeout=5, memory_mb=1024)
Sequence = Callable[[list[Callable[[], object]], WorkerLimits], list[Finished[object]]]


@pytest.fixture(params=["event loop", "blocking"])
def in_sequence(request: pytest.FixtureRequest) -> Sequence:
    """Both ways of waiting on the workers."""
    if request.param == "blocking":
        return in_worker_sequence_blocking
    return lambda calls, limits: asyncio.run(in_worker_sequence(calls, limits))


@pytest.fixture
def run(in_sequence: Sequence) -> Callable[..., object]:
    def one(call: Callable[[], object], limits: WorkerLimits = QUICK) -> object:
        (done,) = in_sequence([call], limits)
        return done.get()

    return one


def test_returns_the_value_and_keeps_the_parent_untouched(
    run: Callable[..., object], tmp_path: Path
) -> None:
    here = os.getcwd()

    def wander() -> int:
        os.chdir(tmp_path)
        os.environ["REWARDKIT_TEST_LEAK"] = "1"
        return os.getpid()

    assert run(wander) != os.getpid()
    assert os.getcwd() == here
    assert "REWARDKIT_TEST_LEAK" not in os.environ


def test_exceptions_and_warnings_come_back(run: Callable[..., object]) -> None:
    def noisy() -> None:
        warnings.warn("careful", UserWarning, stacklevel=1)
        raise ValueError("bad input")

    with pytest.warns(UserWarning, match="careful"), pytest.raises(ValueError, match="bad input"):
        run(noisy)


def test_a_hang_is_killed_at_the_deadline_with_everything_it_started(
    run: Callable[..., object], tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"

    def hang() -> None:
        child = subprocess.Popen(["sleep", "1000"], process_group=0)
        pid_file.write_text(str(child.pid))
        while True:
            time.sleep(0.01)

    start = time.monotonic()
    with pytest.raises(WorkerFailed, match=r"exceeded its 0\.5 s deadline") as caught:
        run(hang, WorkerLimits(timeout=0.5, memory_mb=None))
    assert caught.value.status == "timeout"
    assert time.monotonic() - start < 3
    time.sleep(0.1)
    assert not _alive(int(pid_file.read_text()))


def _alive(pid: int) -> bool:
    """Running (a killed process may linger as a zombie until init reaps it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda: os._exit(0), "ended its process \\(exit code 0\\)"),
        (lambda: os.kill(os.getpid(), signal.SIGSEGV), "killed by SIGSEGV"),
    ],
)
def test_a_worker_that_dies_is_a_failure(
    run: Callable[..., object], action: object, message: str
) -> None:
    with pytest.raises(WorkerFailed, match=message) as caught:
        run(action)
    assert caught.value.status == "error"


def test_the_memory_cap_holds(run: Callable[..., object]) -> None:
    with pytest.raises(MemoryError):
        run(lambda: bytearray(2 << 30))


def test_system_exit_is_reraised_not_fatal_to_the_worker_pool(run: Callable[..., object]) -> None:
    with pytest.raises(SystemExit):
        run(lambda: exit(3))


@pytest.mark.parametrize(
    "wait",
    [
        "asyncio.run(in_worker_sequence([hang], limits))",
        "in_worker_sequence_blocking([hang], limits)",
    ],
)
def test_workers_and_what_they_started_die_with_a_killed_driver(tmp_path: Path, wait: str) -> None:
    """`kill -9` of the grading process ends its judges' processes and their commands."""
    import sys

    pids = tmp_path / "pids"
    driver = f"""
import asyncio, os, subprocess, time
from rewardkit.engine._workers import WorkerLimits, in_worker_sequence, in_worker_sequence_blocking

def hang():
    child = subprocess.Popen(["sleep", "1000"], process_group=0)
    with open({str(pids)!r}, "w") as f:
        f.write(f"{{os.getpid()}} {{child.pid}}")
    while True:
        time.sleep(0.05)

limits = WorkerLimits(timeout=600, memory_mb=None)
{wait}
"""
    proc = subprocess.Popen([sys.executable, "-c", driver])
    try:
        for _ in range(200):
            if pids.exists() and pids.read_text():
                break
            time.sleep(0.05)
        worker, command = map(int, pids.read_text().split())
        proc.kill()
        proc.wait()
        for _ in range(40):
            if not _alive(worker) and not _alive(command):
                break
            time.sleep(0.05)
        assert not _alive(worker)
        assert not _alive(command)
    finally:
        proc.kill()


def test_a_sequence_goes_on_in_a_fresh_child_after_a_call_ends_its_own(
    in_sequence: Sequence,
) -> None:
    """A hang, a death, and a result too big for one read of the pipe, among good calls."""
    big = "x" * (1 << 20)

    def hang() -> None:
        time.sleep(1000)

    calls = [os.getpid, hang, lambda: os._exit(3), lambda: big, os.getpid]
    ended = in_sequence(calls, WorkerLimits(timeout=0.5, memory_mb=None))  # type: ignore[arg-type]
    assert len(ended) == len(calls)
    first, hung, died, long, last = ended
    assert first.get() != os.getpid()
    assert isinstance(hung.error, WorkerFailed)
    assert hung.error.status == "timeout"
    assert isinstance(died.error, WorkerFailed)
    assert "exit code 3" in str(died.error)
    assert long.get() == big
    assert last.get() not in (os.getpid(), first.get())  # a third child took the rest
