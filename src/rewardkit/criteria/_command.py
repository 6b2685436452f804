"""Run a shell command for a criterion: own process group, hard timeout, bounded output.

Output is read as it comes: the first and last `KEEP_BYTES` of each stream are kept and the
middle is counted and dropped, so a command that prints gigabytes costs a few MiB.

With `REWARDKIT_JAIL_COMMANDS=1` (the default of `rewardkit score` and `rewardkit serve`)
the command runs in the jail instead (`rewardkit.jail`): it may read the runtime and
read and write the workspace, nothing else, with no network; its output is capped at
`2 * KEEP_BYTES`, past which it is killed. `docs/security.md` says when to turn it on.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KEEP_BYTES", "CommandResult", "run_command"]

KEEP_BYTES = 4 << 20
"""How much of each stream's head, and of its tail, is kept (4 MiB each)."""
_DRAIN_SECONDS = 1.0
"""After the kill, how long to wait for output still buffered in the pipes."""


@dataclass(frozen=True)
class CommandResult:
    """What a command did. `returncode` is `None` when it was killed at its timeout.

    `stdout`/`stderr` are whole unless `dropped` says how many bytes of the middle of each
    were left out.
    """

    returncode: int | None
    stdout: str
    stderr: str
    dropped: tuple[int, int] = (0, 0)

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def truncated(self) -> bool:
        return any(self.dropped)


class _Stream:
    """A pipe's head and tail, at most `2 * KEEP_BYTES` in memory."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        room = KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > KEEP_BYTES:
            excess = len(self.tail) - KEEP_BYTES
            self.dropped += excess
            del self.tail[:excess]

    def text(self) -> str:
        text = (bytes(self.head) + bytes(self.tail)).decode("utf-8", errors="replace")
        return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines


def jail_commands() -> bool:
    """Whether commands run in the jail (`REWARDKIT_JAIL_COMMANDS`)."""
    return os.environ.get("REWARDKIT_JAIL_COMMANDS", "").strip().lower() in ("1", "true", "yes")


def _jailed(cmd: str, cwd: Path, timeout: float, workspace: Path) -> CommandResult:
    from rewardkit.jail import workspace_jail

    run = workspace_jail(str(workspace)).run(
        ["/bin/sh", "-c", cmd],
        files={},
        cwd=str(cwd),
        timeout=timeout,
        memory_mb=None,
        max_output_bytes=2 * KEEP_BYTES,
    )
    dropped = (1, 0) if run.output_truncated else (0, 0)
    return CommandResult(None if run.timed_out else run.returncode, run.stdout, run.stderr, dropped)


def run_command(
    cmd: str, cwd: Path, timeout: float, workspace: Path | None = None
) -> CommandResult:
    """Run `cmd` through the shell in `cwd`; on timeout kill its whole process group.

    The command gets its own process group, so everything it started dies with it; in a
    criterion's worker process it stays in the worker's session, which the engine ends at
    the criterion's deadline. With a `workspace` and `jail_commands()`, it runs in the jail.
    """
    if workspace is not None and jail_commands():
        return _jailed(cmd, cwd, timeout, workspace)
    proc = subprocess.Popen(
        cmd,
        shell=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        process_group=0,
    )
    streams = {"stdout": _Stream(), "stderr": _Stream()}
    try:
        finished = _pump(proc, streams, time.monotonic() + timeout)
        if not finished:
            _kill_group(proc.pid)
            _pump(proc, streams, time.monotonic() + _DRAIN_SECONDS)
    finally:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        if proc.poll() is None:  # timed out or interrupted: never leave the group behind
            _kill_group(proc.pid)
        proc.wait()
    out, err = streams["stdout"], streams["stderr"]
    return CommandResult(
        proc.returncode if finished else None, out.text(), err.text(), (out.dropped, err.dropped)
    )


def _pump(proc: subprocess.Popen[bytes], streams: dict[str, _Stream], deadline: float) -> bool:
    """Read both pipes until they close and the command exits (True) or `deadline` (False)."""
    with selectors.DefaultSelector() as selector:
        for name in streams:
            pipe = getattr(proc, name)
            if pipe is not None and not pipe.closed:
                selector.register(pipe, selectors.EVENT_READ, name)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if chunk:
                    streams[key.data].add(chunk)
                else:
                    selector.unregister(key.fileobj)
    try:
        proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return False
    return True


def _kill_group(pid: int) -> None:
    if pid <= 1:  # never signal init's group or our own by accident
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
