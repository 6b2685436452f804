"""Worker processes die with the process that started them, and leave nothing behind.

`die_with_parent` and `watch_parent` end a worker when its parent is gone, even SIGKILLed.
`adopt_orphans` and `end_children` let a process end everything it started, grandchildren
included, even those that left its session (a command, a judge's own worker);
`kill_session` ends a worker's whole session from outside.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

__all__ = [
    "adopt_orphans",
    "children",
    "descendants",
    "die_with_parent",
    "die_with_pipe",
    "end_children",
    "end_session",
    "kill_session",
    "watch_parent",
]

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def die_with_parent(parent: int, signum: int = signal.SIGKILL) -> None:
    """Get `signum` when the parent dies (Linux `PR_SET_PDEATHSIG`); exit now if it has.

    The kernel ties the signal to the parent *thread* that started this process, so use it
    only where that thread lives as long as the parent (a main or single-threaded parent).
    """
    _prctl(_PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:  # it died before the signal was armed
        os._exit(1)


def die_with_pipe(fd: int, parent: int, cleanup: Callable[[], None]) -> None:
    """Clean up and exit once the write end of pipe `fd`, held by `parent`, closes.

    The kernel signals the closing (`SIGIO` on the read end, `O_ASYNC`), so no thread
    polls: cheap enough for a process per judge. Exits now if the parent is already gone.
    """
    import fcntl

    def orphaned(*_: object) -> None:
        cleanup()
        os._exit(1)

    signal.signal(signal.SIGIO, orphaned)
    fcntl.fcntl(fd, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
    if os.getppid() != parent:  # it died before the signal was armed
        orphaned()


def watch_parent(
    parent: int, cleanup: Callable[[], None] | None = None, every: float = 0.2
) -> None:
    """Within `every` seconds of the parent's death, clean up (by default, end our
    children) and exit; from a daemon thread."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        (cleanup or end_children)()
        os._exit(1)

    threading.Thread(target=watch, name="rewardkit-watch-parent", daemon=True).start()


def adopt_orphans() -> None:
    """Become the parent of every orphaned descendant (Linux `PR_SET_CHILD_SUBREAPER`)."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def end_children() -> None:
    """SIGKILL and reap every child, then those re-parented to us, until none is left.

    After `adopt_orphans`, that is every descendant.
    """
    while found := children(os.getpid()):
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in found:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def end_session() -> None:
    """SIGKILL every other process of our session (we lead it), then ourselves."""
    kill_session(os.getpid())


def kill_session(sid: int) -> None:
    """SIGKILL every process of session `sid`: a worker and whatever it started (when it is
    our own session, the others first, then us)."""
    if sid <= 1:  # never init's session
        return
    me = os.getpid()
    if sid != me:  # its process group at once, even without /proc
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(sid, signal.SIGKILL)
    for pid in [*(p for p, _, session in _table() if session == sid), sid]:
        if pid != me:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    if sid == me:
        os.kill(me, signal.SIGKILL)


def children(parent: int) -> list[int]:
    """The processes whose parent is `parent`, zombies included (from /proc; none without)."""
    return [pid for pid, ppid, _ in _table() if ppid == parent]


def descendants(root: int) -> set[int]:
    """`root`'s descendants, and every process of a session one of them leads (from /proc).

    A judge may run in a process of its own session (the engine's workers do), which killing
    its parent alone would leave running. Without /proc: none.
    """
    table = _table()
    children: dict[int, list[int]] = {}
    for pid, parent, _ in table:
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    leaders = {pid for pid, _, session in table if pid in found and session == pid}
    return found | {pid for pid, _, session in table if session in leaders}


def _table() -> list[tuple[int, int, int]]:
    """(pid, parent, session) of every process, zombies included; empty without /proc."""
    rows = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                _, parent, _, session = stat.read().rsplit(b")", 1)[1].split()[:4]
        except (OSError, ValueError):  # not a process, or it just ended
            continue
        rows.append((int(entry), int(parent), int(session)))
    return rows


def _prctl(option: int, value: int) -> None:
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value)
