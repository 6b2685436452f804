"""`engine._workers.in_worker`: a forked child that returns, raises, or is ended for good."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
import warnings
from pathlib import Path

import pytest

from rewardkit.engine._workers import WorkerFailed, WorkerLimits, in_worker

QUICK = WorkerLimits(timeout=5, memory_mb=1024)


def run(call: object, limits: WorkerLimits = QUICK) -> object:
    return asyncio.run(in_worker(call, limits))  # type: ignore[arg-type]


def test_returns_the_value_and_keeps_the_parent_untouched(tmp_path: Path) -> None:
    here = os.getcwd()

    def wander() -> int:
        os.chdir(tmp_path)
        os.environ["REWARDKIT_TEST_LEAK"] = "1"
        return os.getpid()

    assert run(wander) != os.getpid()
    assert os.getcwd() == here
    assert "REWARDKIT_TEST_LEAK" not in os.environ


def test_exceptions_and_warnings_come_back() -> None:
    def noisy() -> None:
        warnings.warn("careful", UserWarning, stacklevel=1)
        raise ValueError("bad input")

    with pytest.warns(UserWarning, match="careful"), pytest.raises(ValueError, match="bad input"):
        run(noisy)


def test_a_hang_is_killed_at_the_deadline_with_everything_it_started(tmp_path: Path) -> None:
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
def test_a_worker_that_dies_is_a_failure(action: object, message: str) -> None:
    with pytest.raises(WorkerFailed, match=message) as caught:
        run(action)
    assert caught.value.status == "error"


def test_the_memory_cap_holds() -> None:
    with pytest.raises(MemoryError):
        run(lambda: bytearray(2 << 30))


def test_system_exit_is_reraised_not_fatal_to_the_worker_pool() -> None:
    with pytest.raises(SystemExit):
        run(lambda: exit(3))


def test_workers_and_what_they_started_die_with_a_killed_driver(tmp_path: Path) -> None:
    """`kill -9` of the grading process ends its judges' processes and their commands."""
    import sys

    pids = tmp_path / "pids"
    driver = f"""
import asyncio, os, subprocess, time
from rewardkit.engine._workers import WorkerLimits, in_worker

def hang():
    child = subprocess.Popen(["sleep", "1000"], process_group=0)
    with open({str(pids)!r}, "w") as f:
        f.write(f"{{os.getpid()}} {{child.pid}}")
    while True:
        time.sleep(0.05)

asyncio.run(in_worker(hang, WorkerLimits(timeout=600, memory_mb=None)))
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
