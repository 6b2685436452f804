"""Run a command the way Harbor or a trainer would, and measure what it cost.

`measure` starts the command in its own session, kills the whole group at the time limit,
and reads the command's own peak RSS from `wait4` (the kernel's figure for that process and
the descendants it waited for), so a hostile case can assert bounded time *and* memory.

The kernel counts a process's size before its `exec` too, and a process forked from a big
pytest starts big: so a small launcher (`_LAUNCHER`) starts the command and reports its
figure, and the test process's own size never enters it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Measured", "assert_no_leak", "measure", "rewardkit_cmd", "running"]


@dataclass(frozen=True)
class Measured:
    returncode: int | None
    """None when the command was killed at the time limit."""
    wall_s: float
    peak_rss_mb: float
    stdout: str
    stderr: str


def rewardkit_cmd(*args: str | Path) -> list[str]:
    """`rewardkit ARGS` through this interpreter (no PATH lookup)."""
    return [sys.executable, "-m", "rewardkit", *map(str, args)]


def measure(
    cmd: list[str],
    *,
    limit_s: float = 60,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
) -> Measured:
    """Run `cmd`; kill its session at `limit_s`; return exit code, wall time and peak RSS."""
    out_path, err_path, report = _tmp("out"), _tmp("err"), _tmp("rss")
    with open(out_path, "w+b") as out, open(err_path, "w+b") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, json.dumps(cmd), str(report)],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=err,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            start_new_session=True,
        )
        if stdin is not None:
            assert proc.stdin is not None
            proc.stdin.write(stdin)
            proc.stdin.close()
        returncode: int | None = None
        rusage = None
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                returncode = os.waitstatus_to_exitcode(status)
                break
            if time.perf_counter() - start > limit_s:
                os.killpg(proc.pid, signal.SIGKILL)
                _, _, rusage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - start
        proc.returncode = returncode if returncode is not None else -9  # reaped above
        reported = report.read_text().strip()
        peak_kb = int(reported) if reported else rusage.ru_maxrss  # killed: the launcher's
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of it may outlive the case
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    for path in (out_path, err_path, report):
        path.unlink(missing_ok=True)
    return Measured(returncode, wall, peak_kb / 1024, stdout, stderr)


_LAUNCHER = """
import json, os, signal, subprocess, sys
proc = subprocess.Popen(json.loads(sys.argv[1]))
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[2], "w") as report:
    report.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""
"""Runs the command as its child, in the same session, and writes the child's peak RSS (KiB)."""


def assert_no_leak(secret: str, *paths: Path, texts: tuple[str, ...] = ()) -> None:
    """Fail if `secret` (something outside the workspace) appears in any output."""
    for path in paths:
        if path.is_file():
            assert secret not in path.read_text(errors="replace"), f"{secret!r} leaked into {path}"
    for text in texts:
        assert secret not in text, f"{secret!r} leaked into the command's output"


def running(argument: str) -> list[int]:
    """The host's live processes with `argument` on their command line (zombies aside): a
    jailed program's own pids are its PID namespace's, so a test looks from outside."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if argument.encode() not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return found


def _tmp(kind: str) -> Path:
    import tempfile

    fd, name = tempfile.mkstemp(prefix=f"rewardkit-hostile-{kind}-")
    os.close(fd)
    return Path(name)
