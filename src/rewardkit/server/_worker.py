"""A scoring process of `rewardkit serve`: load the reward once, then score one sample at a time.

`_pool.Workers` spawns it and talks to it over one socket, in frames (an 8-byte length, then a
pickle; both ends are the server's own code). The process answers `("ready", None)` or
`("error", message)` once, then one result per sample, as the plain fields of `ResultOut`. It
leaves when the socket closes or the server process goes away. It imports no FastAPI, so a
replacement starts fast.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import socket
import struct
from collections.abc import Callable
from typing import Any

from rewardkit.batch import SampleResult, Scorer
from rewardkit.engine._lifeline import watch_parent

__all__ = ["HEADER", "main"]

HEADER = struct.Struct("!Q")
"""A frame's length, before its pickle."""


def main(sock: socket.socket, recipe: Callable[[], Scorer]) -> None:
    """Load the reward with `recipe`, then answer every sample read from `sock` until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle, not ours
    # End this process once the server is gone, even while a judge hangs.
    watch_parent(os.getppid(), cleanup=_nothing, every=1.0)
    try:
        scorer = recipe()
    except Exception as exc:
        _send(sock, ("error", f"{type(exc).__name__}: {exc}"))
        return
    _send(sock, ("ready", None))
    with asyncio.Runner() as runner:
        while (sample := _receive(sock)) is not None:
            _send(sock, _plain(runner.run(scorer.ascore(sample))))


def _plain(result: SampleResult) -> dict[str, Any]:
    """The fields of `ResultOut` but `metadata`, as plain data."""
    return {
        "reward": result.reward,
        "valid": result.valid,
        "judges": result.judges,
        "rewards": result.rewards,
        "error": result.error,
        "reason": result.reason,
        "duration_s": result.duration_s,
    }


def _nothing() -> None:
    """What the server's scoring process cleans up before it exits: nothing of its own."""


def _send(sock: socket.socket, value: object) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(HEADER.pack(len(data)))
    sock.sendall(data)


def _receive(sock: socket.socket) -> Any:
    """The next frame's value; `None` once the server closed the socket."""
    head = _exactly(sock, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    data = _exactly(sock, size)
    return None if data is None else pickle.loads(data)


def _exactly(sock: socket.socket, size: int) -> bytearray | None:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        count = sock.recv_into(view[got:])
        if count == 0:
            return None
        got += count
    return buffer
