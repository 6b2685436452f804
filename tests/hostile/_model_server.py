"""A hostile model endpoint on 127.0.0.1: it reads each request, then answers with raw bytes.

`ModelServer(answer)` calls `answer(sock)` on a thread per request, after reading the
request whole; `answer` writes whatever it likes (a gzip bomb, an endless body, a drip, a
redirect, nothing at all) until it is done, the client hangs up, or the server stops.

    with ModelServer(drip(1.0)) as server:
        ...  # point REWARDKIT_API_BASE at server.url
        assert server.count == 1
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import zlib
from collections.abc import Callable

__all__ = [
    "Answer",
    "ModelServer",
    "body",
    "drip",
    "endless",
    "gzip_zeros",
    "huge",
    "redirect",
    "silent",
]

Answer = Callable[[socket.socket, threading.Event], None]
"""Writes an answer on the socket; returns early once the event (the server stopping) is set."""

_JSON = b"Content-Type: application/json\r\n"
_START = b'{"choices": [{"message": {"role": "assistant", "content": "'


class ModelServer:
    """Accepts connections on an ephemeral port and answers every request with `answer`."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.count = 0
        """Requests received so far."""
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=64)
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        self._listener.close()

    def _serve(self) -> None:
        self._listener.settimeout(0.02)  # a blocked accept() would not see the listener close
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener was closed: stopping
                return
            sock.settimeout(None)
            threading.Thread(target=self._handle, args=(sock,), daemon=True).start()

    def _handle(self, sock: socket.socket) -> None:
        with sock, contextlib.suppress(OSError):  # OSError: the client hung up, as it should
            while _read_request(sock):  # keep-alive: the client may send again
                with self._lock:
                    self.count += 1
                self.answer(sock, self._stopping)


def _read_request(sock: socket.socket) -> bool:
    """Read one request's head and body; False once the client closed the connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        rest += chunk
    return True


def body(data: bytes, *, gzip: bool = False) -> Answer:
    """A 200 with `data` as its body (declared `Content-Encoding: gzip` when `gzip`)."""
    encoding = b"Content-Encoding: gzip\r\n" if gzip else b""
    head = b"HTTP/1.1 200 OK\r\n" + _JSON + encoding
    head += b"Content-Length: %d\r\n\r\n" % len(data)

    def answer(sock: socket.socket, stopping: threading.Event) -> None:
        sock.sendall(head + data)

    return answer


def gzip_zeros(mib: int) -> bytes:
    """A valid gzip stream of `mib` MiB of zero bytes, about 1 KiB per MiB, made in ms.

    After a full flush the compressor's state is reset, so each further MiB of zeros
    compresses to the same bytes: repeat them, then end the stream by hand.
    """
    block = bytes(1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(block, crc)
    trailer = b"\x03\x00" + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF)
    return first + again * (mib - 1) + trailer


def huge(size: int) -> Answer:
    """A 200 declaring a `size`-byte JSON body, sent as fast as the client reads it."""
    head = b"HTTP/1.1 200 OK\r\n" + _JSON + b"Content-Length: %d\r\n\r\n" % size
    piece = b"a" * (1 << 20)

    def answer(sock: socket.socket, stopping: threading.Event) -> None:
        sock.sendall(head + _START)
        left = size - len(_START)
        while left > 0 and not stopping.is_set():
            sock.sendall(piece[:left])
            left -= len(piece)

    return answer


def endless(*, gzip: bool = False) -> Answer:
    """A chunked 200 that never ends: text (or, with `gzip`, a gzip stream of zeros)."""
    encoding = b"Content-Encoding: gzip\r\n" if gzip else b""
    head = b"HTTP/1.1 200 OK\r\n" + _JSON + encoding + b"Transfer-Encoding: chunked\r\n\r\n"
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    if gzip:
        first = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
        piece = compressor.compress(zeros) + compressor.flush(zlib.Z_FULL_FLUSH)
    else:
        first, piece = _START, b"a" * 65536

    def answer(sock: socket.socket, stopping: threading.Event) -> None:
        sock.sendall(head + _chunk(first))
        while not stopping.is_set():
            sock.sendall(_chunk(piece))

    return answer


def drip(interval: float) -> Answer:
    """A 200 whose body comes one byte every `interval` seconds, forever."""
    head = b"HTTP/1.1 200 OK\r\n" + _JSON + b"Content-Length: 1000000\r\n\r\n"

    def answer(sock: socket.socket, stopping: threading.Event) -> None:
        sock.sendall(head)
        for byte in _START + b"a" * 1_000_000:
            if stopping.wait(interval):
                return
            sock.sendall(bytes([byte]))

    return answer


def redirect(location: str, status: int = 307) -> Answer:
    """A `status` redirect to `location`."""
    head = b"HTTP/1.1 %d Redirect\r\nLocation: %s\r\n" % (status, location.encode())
    head += b"Content-Length: 0\r\n\r\n"

    def answer(sock: socket.socket, stopping: threading.Event) -> None:
        sock.sendall(head)

    return answer


def silent() -> Answer:
    """Accept the request and never answer (until the server stops)."""

    def answer(sock: socket.socket, stopping: threading.Event) -> None:
        stopping.wait()

    return answer


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)
