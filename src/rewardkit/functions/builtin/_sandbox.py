"""Run untrusted code in a subprocess under limits: the engine of the code rewards.

What is enforced, and what is not:

- **Wall clock**: the program runs in its own session; at the deadline the whole process
  group is killed (`SIGKILL`), and so is anything still left in it when the program ends.
- **Memory**: `RLIMIT_AS` (address space) for Python; Node.js reserves far more address
  space than it uses, so it gets V8's `--max-old-space-size` instead.
- **CPU and files**: `RLIMIT_CPU` (the timeout, rounded up, plus one second),
  `RLIMIT_FSIZE` (16 MiB per file written), no core dumps, at most 256 open files.
- **Output**: reading stops, and the group is killed, past `max_output_bytes`.
- **Network**: the program gets new user and network namespaces (only a down loopback),
  where the kernel allows unprivileged namespaces; `ExecutionResult.network_isolated`
  says whether it did. Either way the environment is rebuilt from scratch, so no proxy
  variables or credentials leak in.
- **Not** a security boundary: the program runs as the same user, sees the same file
  system (its working directory is a fresh temporary one), and a process that leaves
  the session (`setsid`) escapes the group kill. Run rewards over untrusted code inside
  a container or VM when that matters.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ExecutionResult", "run_program"]

_DRAIN_SECONDS = 0.1
"""After the program exits, how long to keep reading output its children may still write."""

_LAUNCHER = """
import ctypes, json, os, resource, sys
cfg = json.loads(sys.argv[1])
for name, value in cfg["limits"].items():
    resource.setrlimit(getattr(resource, name), (value, value))
isolated = ctypes.CDLL(None, use_errno=True).unshare(0x10000000 | 0x40000000) == 0
with open(cfg["status"], "w") as f:
    f.write("isolated" if isolated else "shared")
os.execvpe(cfg["argv"][0], cfg["argv"], cfg["env"])
"""
"""Runs in the child before the program: set the limits, leave the network, exec."""


@dataclass(frozen=True)
class ExecutionResult:
    """What a program did under `run_program`.

    Attributes:
        returncode: The exit status (negative: killed by that signal); `None` at timeout.
        stdout: Standard output (UTF-8, undecodable bytes replaced).
        stderr: Standard error.
        duration: Wall-clock seconds.
        timed_out: The program was killed at its deadline.
        output_truncated: The program was killed for writing more than allowed.
        network_isolated: The program ran without network access.
    """

    returncode: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    output_truncated: bool = False
    network_isolated: bool = False

    @property
    def ok(self) -> bool:
        """Exited with status 0, in time, within the output limit."""
        return self.returncode == 0 and not self.output_truncated

    def describe(self) -> str:
        """A one-line account of how the run ended."""
        if self.timed_out:
            return f"timed out after {self.duration:.1f}s"
        if self.output_truncated:
            return "killed: too much output"
        if self.returncode == 0:
            return f"exited 0 in {self.duration:.2f}s"
        last = self.stderr.strip().splitlines()[-1:] or [""]
        return f"exited {self.returncode}: {last[0][:200]}"


def _limits(timeout: float, memory_mb: int | None) -> dict[str, int]:
    limits = {
        "RLIMIT_CPU": math.ceil(timeout) + 1,
        "RLIMIT_FSIZE": 16 * 2**20,
        "RLIMIT_CORE": 0,
        "RLIMIT_NOFILE": 256,
    }
    if memory_mb is not None:
        limits["RLIMIT_AS"] = memory_mb * 2**20
    return limits


def _environment(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TMPDIR": str(home),
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _leader_exited(pid: int) -> bool:
    """Whether the process has exited, without reaping it (so its group id stays ours)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # pragma: no cover - reaped elsewhere (SIGCHLD ignored)
        return True


def _collect(
    proc: subprocess.Popen[bytes], deadline: float, max_output_bytes: int
) -> tuple[bytes, bytes, bool, bool]:
    """Read both pipes until the program ends, the deadline, or the output limit."""
    assert proc.stdout is not None
    assert proc.stderr is not None
    buffers = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    timed_out = truncated = False
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if exited_at is None and _leader_exited(proc.pid):
                exited_at = now
            if not selector.get_map() or (exited_at and now - exited_at > _DRAIN_SECONDS):
                break
            if now >= deadline:
                timed_out = True
                break
            for key, _ in selector.select(timeout=min(0.05, deadline - now)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                buffers[key.fd] += chunk
            if sum(map(len, buffers.values())) > max_output_bytes:
                truncated = True
                break
    out, err = (bytes(buffers[p.fileno()]) for p in (proc.stdout, proc.stderr))
    return out, err, timed_out, truncated


def run_program(
    argv: Sequence[str],
    *,
    files: dict[str, str],
    stdin: str | None = None,
    timeout: float = 5.0,
    memory_mb: int | None = 100,
    max_output_bytes: int = 1_000_000,
) -> ExecutionResult:
    """Run `argv` in a fresh temporary directory holding `files`, under the limits above.

    Args:
        argv: The command, e.g. `[sys.executable, "-I", "main.py"]`.
        files: Files to write into the working directory first (`{name: text}`).
        stdin: Text for standard input (empty input when `None`).
        timeout: Wall-clock seconds before the process group is killed.
        memory_mb: Address-space limit in MiB, or `None` for none.
        max_output_bytes: Combined stdout and stderr bytes allowed.

    Example:
        >>> run_program([sys.executable, "-I", "main.py"], files={"main.py": "print(6 * 7)"}).stdout
        '42\\n'
    """
    with tempfile.TemporaryDirectory(prefix="rewardkit-code-") as tmp:
        root = Path(tmp)
        work = root / "work"
        work.mkdir()
        for name, text in files.items():
            (work / name).write_text(text, encoding="utf-8")
        (root / "stdin").write_text(stdin or "", encoding="utf-8")
        status = root / "status"
        config = {
            "limits": _limits(timeout, memory_mb),
            "status": str(status),
            "argv": list(argv),
            "env": _environment(work),
        }
        launcher = [sys.executable, "-I", "-S", "-c", _LAUNCHER, json.dumps(config)]
        start = time.monotonic()
        with (root / "stdin").open("rb") as stdin_file:
            proc = subprocess.Popen(
                launcher,
                cwd=work,
                stdin=stdin_file,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=_environment(work),
                start_new_session=True,
            )
        try:
            out, err, timed_out, truncated = _collect(proc, start + timeout, max_output_bytes)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            for pipe in filter(None, (proc.stdout, proc.stderr)):
                pipe.close()
        duration = time.monotonic() - start
        isolated = status.exists() and status.read_text() == "isolated"
    return ExecutionResult(
        returncode=None if timed_out else proc.returncode,
        stdout=out[:max_output_bytes].decode("utf-8", "replace"),
        stderr=err[:max_output_bytes].decode("utf-8", "replace"),
        duration=duration,
        timed_out=timed_out,
        output_truncated=truncated,
        network_isolated=isolated,
    )
