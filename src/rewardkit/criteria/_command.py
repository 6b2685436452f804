"""Run a shell command for a criterion: own process group, hard timeout, full output."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CommandResult", "run_command"]

_DRAIN_SECONDS = 1.0
"""After the kill, how long to wait for output still buffered in the pipes."""


@dataclass(frozen=True)
class CommandResult:
    """What a command did. `returncode` is `None` when it was killed at its timeout."""

    returncode: int | None
    stdout: str
    stderr: str

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


def run_command(cmd: str, cwd: Path, timeout: float) -> CommandResult:
    """Run `cmd` through the shell in `cwd`; on timeout kill its whole process group.

    The command gets its own session, so everything it started dies with it and no
    grandchild keeps the pipes open past the deadline.
    """
    proc = subprocess.Popen(
        cmd,
        shell=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        try:
            stdout, stderr = proc.communicate(timeout=_DRAIN_SECONDS)
        except subprocess.TimeoutExpired:  # a grandchild in its own session holds the pipes
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
            proc.wait()
            stdout, stderr = "", ""
        return CommandResult(None, stdout, stderr)
    finally:
        if proc.poll() is None:  # interrupted: never leave the group behind
            _kill_group(proc.pid)
            proc.wait()
    return CommandResult(proc.returncode, stdout, stderr)


def _kill_group(pid: int) -> None:
    if pid <= 1:  # never signal init's group or our own by accident
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
