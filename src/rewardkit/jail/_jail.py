"""The jail, seen from the grader: start the fork server once, run programs through it.

A `Jail` starts `_inside.py` (the zygote) on first use and keeps it; each `run` sends it a
small request with the program's descriptors (stdin and its files as memfds, the pipes
for stdout, stderr and the report channel, a control socket) and reads the output here,
so the deadline and the output cap are enforced by the grader, with the keeper inside as
a backstop. Which layers held is in every `ExecutionResult`; `docs/security.md` says
what each guarantees.

Settings (environment): `REWARDKIT_JAIL_LAYERS` (default `namespaces,landlock,seccomp`;
drop one that breaks a runtime), `REWARDKIT_MIN_ISOLATION` (`limits`, `landlock` or
`namespaces`: below it, `JailError` instead of running).

Over 350 lines: the grader's whole side of one protocol with `_inside.py` (start, request,
descriptors, deadline, output caps), kept in one place as the protocol is.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import math
import os
import queue
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from rewardkit.core._errors import RewardKitError

__all__ = [
    "LEVELS",
    "ExecutionResult",
    "Jail",
    "JailError",
    "jail",
    "run_program",
    "run_python",
]

LEVELS = ("limits", "landlock", "namespaces")
"""Isolation levels, weakest first (see `docs/security.md`)."""

T = TypeVar("T")
_INSIDE = Path(__file__).with_name("_inside.py")
_DRAIN_SECONDS = 0.1
"""After the program exits, how long to keep reading output its children may still write."""
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/alternatives",
           "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
           "/etc/ssl/openssl.cnf")  # fmt: skip
"""The runtime every program may read, besides the interpreter's own prefixes."""


class JailError(RewardKitError):
    """The jail could not run a program: it could not be built, or not to the level required."""


@dataclass(frozen=True)
class ExecutionResult:
    """What a program did in the jail.

    Attributes:
        returncode: The exit status (negative: killed by that signal); `None` at timeout.
        stdout: Standard output (UTF-8, undecodable bytes replaced).
        stderr: Standard error.
        duration: Wall-clock seconds.
        timed_out: The program was killed at its deadline.
        output_truncated: The program was killed for writing more than allowed.
        isolation: The level reached: `namespaces`, `landlock` or `limits`.
        layers: The kernel layers in force, e.g. `("namespaces", "landlock", "seccomp")`.
        report: What the program's harness wrote on the report channel (descriptor 3).
    """

    returncode: int | None
    stdout: str
    stderr: str
    duration: float
    timed_out: bool = False
    output_truncated: bool = False
    isolation: str = "limits"
    layers: tuple[str, ...] = ()
    report: str = ""

    @property
    def ok(self) -> bool:
        """Exited with status 0, in time, within the output limit."""
        return self.returncode == 0 and not self.output_truncated

    @property
    def network_isolated(self) -> bool:
        """The program had no network (a network namespace, or seccomp refusing sockets)."""
        return "namespaces" in self.layers or "seccomp" in self.layers

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


def _runtime() -> list[str]:
    """What programs may read: the system's runtime and this interpreter's prefixes, each
    once (a path inside another is left out). Never the working directory or a home."""
    import sysconfig

    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    prefixes |= {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib")}
    node = shutil.which("node")
    if node:
        prefixes.add(os.path.dirname(os.path.realpath(node)))
    real = {os.path.realpath(p) for p in prefixes if p} - {"/"}
    paths = sorted(set(_SYSTEM) | real)
    return [p for p in paths if not any(p.startswith(q + "/") for q in paths if q != p)]


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _level(layers: Sequence[str]) -> str:
    if "namespaces" in layers:
        return "namespaces"
    return "landlock" if {"landlock", "seccomp"} <= set(layers) else "limits"


def _required() -> str | None:
    wanted = os.environ.get("REWARDKIT_MIN_ISOLATION", "").strip().lower() or None
    if wanted is not None and wanted not in LEVELS:
        raise JailError(
            f"REWARDKIT_MIN_ISOLATION must be one of {', '.join(LEVELS)} (got {wanted!r})"
        )
    return wanted


_spawner: tuple[int, queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]]] | None = None
_spawner_lock = threading.Lock()


def _from_lasting_thread(start: Callable[[], T]) -> T:
    """`start()` on a daemon thread that lives as long as the process (one per process).

    The zygote asks to be killed when its parent dies (`PR_SET_PDEATHSIG`), and Linux means
    the *thread* that started it: started by a pool thread that later ends (a scorer's, when
    the scorer closes), it would be killed then, and every program after it with it.
    """
    global _spawner
    with _spawner_lock:
        if _spawner is None or _spawner[0] != os.getpid():  # none yet, or we are a fork
            jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
            lasting = threading.Thread(target=_run_jobs, args=(jobs,), name="rewardkit-jail")
            lasting.daemon = True
            lasting.start()
            _spawner = (os.getpid(), jobs)
        jobs = _spawner[1]
    done: Future[T] = Future()
    jobs.put((start, done))
    return done.result()


def _run_jobs(jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]]) -> None:
    while True:
        start, done = jobs.get()
        try:
            done.set_result(start())
        except BaseException as exc:  # handed to the caller
            done.set_exception(exc)


class Jail:
    """One zygote and the programs it runs; thread-safe, restarted after a fork.

    Args:
        layers: The layers to try (default: `REWARDKIT_JAIL_LAYERS`, else all three).
        min_isolation: Refuse to run below this level (default: `REWARDKIT_MIN_ISOLATION`).
        write: Directories every program may also read and write (e.g. a workspace).
    """

    def __init__(
        self,
        layers: Sequence[str] | None = None,
        min_isolation: str | None = None,
        write: Sequence[str] = (),
    ):
        env = os.environ.get("REWARDKIT_JAIL_LAYERS", "namespaces,landlock,seccomp")
        self._layers = list(layers if layers is not None else env.replace(" ", "").split(","))
        self._min = min_isolation
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = 0
        self._mountpoint = ""
        self.layers: tuple[str, ...] = ()
        self.notes: tuple[str, ...] = ()
        self.read = _runtime()
        self.write = [os.path.realpath(path) for path in write]

    @property
    def isolation(self) -> str:
        """The level reached (after the first run)."""
        return _level(self.layers)

    def _spawn(self, layers: list[str]) -> dict[str, Any]:
        self._mountpoint = tempfile.mkdtemp(prefix="rewardkit-jail-")
        config = {"layers": layers, "read": self.read, "write": self.write,
                  "mountpoint": self._mountpoint}  # fmt: skip
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self._proc = _from_lasting_thread(
                lambda: subprocess.Popen(
                    [sys.executable, "-I", str(_INSIDE), str(theirs.fileno()), json.dumps(config)],
                    pass_fds=[theirs.fileno()],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env={"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8"},
                    cwd="/",
                )
            )
        self._sock, self._pid = ours, os.getpid()
        ours.settimeout(30)
        try:
            hello: dict[str, Any] = json.loads(ours.recv(65536) or b'{"fatal": "no answer"}')
        except (OSError, ValueError) as exc:
            hello = {"fatal": f"the zygote did not start ({exc})"}
        ours.settimeout(None)
        return hello

    def _start(self) -> None:
        required = self._min or _required()
        hello = self._spawn(self._layers)
        if "fatal" in hello:  # the namespaces half-failed: the other layers alone
            self.close()
            retry = [layer for layer in self._layers if layer != "namespaces"]
            hello = {**self._spawn(retry), "notes": [str(hello["fatal"])]}
            if "fatal" in hello:
                self.close()
                raise JailError(f"the jail could not start: {hello['fatal']}")
        with contextlib.suppress(OSError):  # the zygote has made it its root, and left it
            os.rmdir(self._mountpoint)
        self.layers = tuple(map(str, hello.get("layers", ())))
        self.notes = tuple(map(str, hello.get("notes", ())))
        if required and LEVELS.index(self.isolation) < LEVELS.index(required):
            self.close()
            raise JailError(
                f"the jail reached isolation {self.isolation!r} ({'; '.join(self.notes)}), below "
                f"the required {required!r} (REWARDKIT_MIN_ISOLATION). Run where unprivileged "
                "user namespaces and Landlock are allowed, or lower the requirement."
            )
        if self.notes and self.isolation != "namespaces":
            layers = " + ".join(self.layers) or "limits only"
            _warn_once(f"jail: {'; '.join(self.notes)}; programs run under {layers}")

    def _send(self, header: dict[str, Any], fds: list[int]) -> None:
        with self._lock:
            if self._sock is None or self._pid != os.getpid():
                self._start()
            assert self._sock is not None
            message = json.dumps(header).encode()
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
            try:
                self._sock.sendmsg([message], rights)
            except OSError:  # the zygote died: once more, with a new one
                self.close()
                self._start()
                self._sock.sendmsg([message], rights)

    def run(
        self,
        argv: Sequence[str] | None = None,
        *,
        python: str | None = None,
        files: dict[str, str],
        stdin: str | None = None,
        timeout: float = 5.0,
        memory_mb: int | None = 100,
        max_output_bytes: int = 1_000_000,
        scratch_mb: int = 64,
        report: bool = False,
        cwd: str | None = None,
    ) -> ExecutionResult:
        """Run `argv` (an absolute path first), or the Python file `python` in the forked
        interpreter, in a fresh cell holding `files`, under the limits; in `cwd` (one of
        `write`, or inside one) or else the cell's scratch directory.

        Raises:
            JailError: the jail could not be built, or not to the required level.
        """
        header: dict[str, Any] = {
            "argv": list(argv or []),
            "python": python,
            "env": {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C.UTF-8",
                    "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"},
            "limits": _limits(timeout, memory_mb),
            "read": self.read,
            "write": self.write,
            "cwd": cwd,
            "timeout": timeout,
            "scratch_mb": scratch_mb,
        }  # fmt: skip
        pipes = [os.pipe() for _ in range(3 if report else 2)]
        ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        given = [
            theirs.fileno(),
            _memfd("stdin", (stdin or "").encode()),
            *(w for _, w in pipes),
            _memfd("files", json.dumps(files).encode()),
        ]
        start = time.monotonic()
        with ctl:
            try:
                self._send(header, given)
            except BaseException:
                for r, _ in pipes:
                    os.close(r)
                raise
            finally:
                for fd in given[1:]:
                    os.close(fd)
                theirs.close()
            got = _collect(ctl, [r for r, _ in pipes], start + timeout, max_output_bytes)
        if "error" in got.status:
            raise JailError(f"the jail could not run the program: {got.status['error']}")
        out, err, *rest = (b.decode("utf-8", "replace") for b in got.buffers)
        return ExecutionResult(
            returncode=None if got.timed_out else got.status.get("exit", -9),
            stdout=out,
            stderr=err,
            duration=time.monotonic() - start,
            timed_out=got.timed_out,
            output_truncated=got.truncated,
            isolation=self.isolation,
            layers=self.layers,
            report=rest[0] if rest else "",
        )

    def close(self) -> None:
        """End the zygote (running cells end at their deadlines)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._proc is not None and self._pid == os.getpid():
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        self._proc = None
        with contextlib.suppress(OSError):
            os.rmdir(self._mountpoint)


@dataclass
class _Collected:
    buffers: list[bytearray]
    status: dict[str, Any]
    timed_out: bool = False
    truncated: bool = False


def _collect(ctl: socket.socket, pipes: list[int], deadline: float, cap: int) -> _Collected:
    """Read the pipes until the keeper reports the exit (then drain briefly), the
    deadline, or the output cap; at those two, tell the keeper to kill the cell."""
    got = _Collected([bytearray() for _ in pipes], {})
    exited_at: float | None = None
    with selectors.DefaultSelector() as selector:
        for i, fd in enumerate(pipes):
            selector.register(fd, selectors.EVENT_READ, i)
        selector.register(ctl, selectors.EVENT_READ, -1)
        while selector.get_map():
            now = time.monotonic()
            if exited_at is not None and now - exited_at > _DRAIN_SECONDS:
                break
            if exited_at is None and now >= deadline:
                got.timed_out = True
                _kill(ctl, got)
                break
            for key, _ in selector.select(timeout=min(0.05, max(deadline - now, 0))):
                if key.data == -1:
                    got.status, exited_at = _status(ctl), time.monotonic()
                    selector.unregister(ctl)
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                got.buffers[key.data] += chunk
            if sum(map(len, got.buffers[:2])) > cap or sum(map(len, got.buffers[2:])) > cap:
                got.truncated = True
                if exited_at is None:
                    _kill(ctl, got)
                break
    for fd in pipes:
        os.close(fd)
    for buffer in got.buffers:
        del buffer[cap:]
    return got


def _status(ctl: socket.socket) -> dict[str, Any]:
    try:
        message = ctl.recv(65536)
    except OSError:
        message = b""
    return json.loads(message) if message else {"exit": -9}


def _kill(ctl: socket.socket, got: _Collected) -> None:
    """Ask the keeper to kill the cell, and wait (boundedly) for its word."""
    with contextlib.suppress(OSError):
        ctl.send(b"kill")
    ctl.settimeout(5)
    got.status = _status(ctl)


_default: Jail | None = None
_for_workspace: dict[str, Jail] = {}
_lock = threading.Lock()
_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        print(f"rewardkit: warning: {message}", file=sys.stderr)


def _forget() -> None:
    """In a forked child: start its own zygotes; the parent's are not its to share."""
    global _default, _lock
    _lock = threading.Lock()  # another thread may have held it at the fork
    for kept in _kept():
        if kept._sock is not None:
            kept._sock.close()
    _default = None
    _for_workspace.clear()


def jail() -> Jail:
    """This process's jail (one zygote per process, started on first use)."""
    global _default
    with _lock:
        if _default is None:
            _default = Jail()
        return _default


def _kept() -> list[Jail]:
    """This process's zygotes: the default one and the workspace ones."""
    return [j for j in (_default, *_for_workspace.values()) if j is not None]


def _close_all() -> None:
    for kept in _kept():
        kept.close()


os.register_at_fork(after_in_child=_forget)
atexit.register(_close_all)


def workspace_jail(workspace: str) -> Jail:
    """A jail whose programs may also write `workspace` (the last two are kept)."""
    key = os.path.realpath(workspace)
    with _lock:
        if key not in _for_workspace:
            if len(_for_workspace) >= 2:
                _for_workspace.pop(next(iter(_for_workspace))).close()
            _for_workspace[key] = Jail(write=[key])
        return _for_workspace[key]


def run_program(argv: Sequence[str], **kwargs: object) -> ExecutionResult:
    """Run `argv` in a fresh cell of this process's jail (see `Jail.run`).

    Example:
        >>> run_program(["/bin/echo", "hi"], files={}).stdout
        'hi\\n'
    """
    command = list(argv)
    found = shutil.which(command[0]) if command else None
    if found is None:
        raise JailError(f"the program {command[:1]} is not on PATH")
    return jail().run([found, *command[1:]], **kwargs)  # type: ignore[arg-type]


def run_python(main: str, **kwargs: object) -> ExecutionResult:
    """Run the Python file `main` of `files` as `python -I main` would, in a fresh cell.

    Example:
        >>> run_python("main.py", files={"main.py": "print(6 * 7)"}).stdout
        '42\\n'
    """
    return jail().run(python=main, **kwargs)  # type: ignore[arg-type]
