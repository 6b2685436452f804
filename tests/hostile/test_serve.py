"""`rewardkit serve` against hostile clients: a real server on 127.0.0.1, raw sockets and httpx.

Each case starts the server as a subprocess (marked in its environment, so that all it starts
is found and killed at the end), attacks it, and asserts bounded wall time, a bounded peak RSS
of the server process (`VmHWM`), and that a normal request is still answered afterwards.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from ._measure import measure, rewardkit_cmd

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the server's peak RSS from /proc"
)

T = TypeVar("T")
MARK = "REWARDKIT_HOSTILE_SERVER"
TOKEN = "t0k3n"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EVAL_YAML = """\
name: hostile
judges:
  - name: answer
    check: |
      import time
      if outputs["stdout"] == "hang":
          time.sleep(3600)
      return outputs["stdout"] == "ok" or "ok.txt" in outputs["files"]
"""


@dataclass
class Server:
    """A running `rewardkit serve`."""

    process: subprocess.Popen[bytes]
    port: int
    mark: str
    """In the environment of the server and of every process descended from it."""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def peak_rss_mb(self) -> float:
        """The server process's peak resident memory so far (`VmHWM`)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024

    def connect(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.port), timeout=10)

    def still_scores(self, within_s: float = 5.0) -> None:
        """A normal request gets its right answer within `within_s` seconds."""
        start = time.perf_counter()
        response = httpx.post(
            f"{self.url}/score", json={"completion": "ok"}, headers=AUTH, timeout=within_s
        )
        assert response.status_code == 200, response.text
        assert response.json()["reward"] == 1.0
        assert time.perf_counter() - start < within_s


@pytest.fixture
def config(tmp_path: Path) -> Path:
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "eval.yaml").write_text(EVAL_YAML)
    return tmp_path / "cfg"


@pytest.fixture
def serve(config: Path, tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """`serve(*flags)` starts `rewardkit serve --config` the hostile config, with `flags`."""
    started: list[Server] = []

    def start(*flags: str) -> Server:
        port = _free_port()
        argv = rewardkit_cmd("serve", "--config", config, "--port", str(port), *flags)
        env = {**os.environ, MARK: secrets.token_hex(8)}
        with (tmp_path / f"server-{port}.log").open("wb") as log:
            process = subprocess.Popen(argv, stdout=log, stderr=log, env=env)
        server = Server(process, port, env[MARK])
        started.append(server)
        _wait_ready(server)
        return server

    yield start
    for server in started:  # the server and all it started, in whatever session
        for pid in _marked(server):
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.process.wait()


def test_unauthenticated_bodies_get_401_before_a_byte_is_read(
    serve: Callable[..., Server],
) -> None:
    server = serve("--token", TOKEN)
    before = server.peak_rss_mb()
    start = time.perf_counter()
    with _connections(server, 101) as (probe, *attackers):
        probe.sendall(_head(9 << 20))  # headers only, then wait
        assert _status(probe) == 401
        assert time.perf_counter() - start < 1
        _in_threads(_send_body, attackers)
        assert time.perf_counter() - start < 10
        # Buffering them (as before) held every body: +100 MiB here, +0.9 GB at 9 MiB each.
        assert server.peak_rss_mb() - before < 30
    server.still_scores()


def test_a_body_stalled_midway_gets_408(serve: Callable[..., Server]) -> None:
    server = serve("--token", TOKEN, "--body-timeout", "0.5")
    before = server.peak_rss_mb()
    start = time.perf_counter()
    with _connections(server, 20) as stalled:
        for sock in stalled:
            sock.sendall(_head(1000, auth=True) + b'{"completion": "')
        assert [_status(sock) for sock in stalled] == [408] * 20  # before: no answer, ever
        assert time.perf_counter() - start < 3
    assert server.peak_rss_mb() - before < 10
    server.still_scores()


def test_a_streamed_body_stops_at_the_cap(serve: Callable[..., Server]) -> None:
    server = serve("--token", TOKEN, "--max-body-bytes", str(1 << 20))
    before = server.peak_rss_mb()
    start = time.perf_counter()
    with _connections(server, 10) as uploads:
        _in_threads(_send_chunked, uploads)  # 20 MiB each
    assert time.perf_counter() - start < 10
    assert server.peak_rss_mb() - before < 10 * 2 + 20  # at most the cap each, and a copy
    server.still_scores()


def test_deeply_nested_json_is_400_and_blocks_nothing(serve: Callable[..., Server]) -> None:
    server = serve("--token", TOKEN)
    before = server.peak_rss_mb()
    deep_metadata = b'{"completion": "ok", "metadata": {"a": ' + b"[" * 900 + b"]" * 900 + b"}}"
    bodies = [b"[" * 100_000, b'{"a": ' * 100_000, deep_metadata]
    answers: list[tuple[int, str, float]] = []

    def attack() -> None:
        headers = {**AUTH, "Content-Type": "application/json"}
        with httpx.Client(base_url=server.url, headers=headers, timeout=10) as client:
            for body in bodies * 5:
                start = time.perf_counter()
                response = client.post("/score", content=body)
                answers.append(
                    (response.status_code, response.json()["detail"], time.perf_counter() - start)
                )

    attacker = threading.Thread(target=attack)
    attacker.start()
    slowest = 0.0
    with httpx.Client(base_url=server.url, timeout=10) as client:
        while attacker.is_alive():
            start = time.perf_counter()
            assert client.get("/healthz").status_code == 200
            slowest = max(slowest, time.perf_counter() - start)
    attacker.join()
    # Before: 400 "There was an error parsing the body" for the first two, 500 for the last.
    assert {(code, detail) for code, detail, _ in answers} == {
        (
            400,
            "request body nests arrays and objects deeper than 100 levels; flatten it, or raise "
            "the server's --max-json-depth",
        )
    }
    assert len(answers) == 15
    assert max(seconds for _, _, seconds in answers) < 2
    assert slowest < 1
    assert server.peak_rss_mb() - before < 50
    server.still_scores()


def test_hung_samples_do_not_take_the_service(serve: Callable[..., Server]) -> None:
    server = serve("--token", TOKEN, "--deadline", "2", "--max-concurrent", "2")
    server.still_scores()
    before = server.peak_rss_mb()
    start = time.perf_counter()

    def hang() -> int:
        response = httpx.post(
            f"{server.url}/score", json={"completion": "hang"}, headers=AUTH, timeout=25
        )
        return response.status_code

    codes: list[int] = []
    _in_threads(lambda _: codes.append(hang()), range(4))  # more than the 2 slots
    assert codes == [504] * 4
    assert time.perf_counter() - start < 12  # ≈2.2 s (the deadline); generous under load
    assert server.peak_rss_mb() - before < 20
    server.still_scores(within_s=5)  # with threads: a 504, now and forever
    # The hung samples' processes were killed, with the judges' own (in sessions of their
    # own): left are the server and, for each of its 2 slots, a supervisor and its worker
    # (the killed ones may take a moment to be reaped on a loaded machine).
    settled = time.perf_counter() + 10
    while len(_marked(server)) > 5 and time.perf_counter() < settled:
        time.sleep(0.1)
    assert len(_marked(server)) <= 5


def test_workspaces_outside_the_root_are_400(serve: Callable[..., Server], tmp_path: Path) -> None:
    root = tmp_path / "runs"
    (root / "0001").mkdir(parents=True)
    (root / "0001" / "ok.txt").write_text("yes")
    (root / "escape").symlink_to("/etc")
    server = serve("--token", TOKEN, "--workspace-root", str(root))
    with httpx.Client(base_url=server.url, headers=AUTH, timeout=10) as client:
        for workspace in ("/etc", "../", "escape", "0001/../../", str(tmp_path)):
            response = client.post("/score", json={"completion": "x", "workspace": workspace})
            assert response.status_code == 400
            assert response.json()["detail"] == (
                f"body.workspace: {workspace!r} resolves outside the workspace root "
                f"{str(root.resolve())!r}; send a directory inside it (the server's "
                "--workspace-root)"
            )
        for workspace in ("0001", str(root / "0001")):
            response = client.post("/score", json={"completion": "x", "workspace": workspace})
            assert response.json()["reward"] == 1.0  # before: /etc was scored like these


def test_a_public_address_needs_a_workspace_root(config: Path) -> None:
    done = measure(
        rewardkit_cmd("serve", "--config", config, "--host", "0.0.0.0", "--port", "1"), limit_s=30
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "rewardkit serve: error: --workspace-root is required with --host 0.0.0.0 (not "
        "loopback); pass the directory that holds the samples' workspaces, e.g. "
        "--workspace-root /data/runs"
    ]


@pytest.mark.parametrize("env", [False, True], ids=["flag", "env"])
def test_an_empty_token_is_a_startup_error(config: Path, env: bool) -> None:
    flags = () if env else ("--token", "")
    environ = {**os.environ, "REWARDKIT_SERVER_TOKEN": ""} if env else None
    done = measure(rewardkit_cmd("serve", "--config", config, *flags), limit_s=30, env=environ)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "rewardkit serve: error: --token is empty (an unset $TOKEN? REWARDKIT_SERVER_TOKEN set "
        "to ''?); pass a non-empty secret, or leave both out to serve without a token"
    ]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_ready(server: Server) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert server.process.poll() is None, "the server exited while starting"
        try:
            httpx.get(f"{server.url}/healthz", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.05)
    raise AssertionError("the server did not start within 30s")


@contextmanager
def _connections(server: Server, count: int) -> Iterator[list[socket.socket]]:
    sockets = [server.connect() for _ in range(count)]
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def _in_threads(work: Callable[[T], object], items: Iterable[T]) -> None:
    """`work(item)` for every item at once, on threads; wait for all."""
    threads = [threading.Thread(target=work, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)


def _head(length: int, *, auth: bool = False) -> bytes:
    token = f"Authorization: Bearer {TOKEN}\r\n" if auth else ""
    return (
        f"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n{token}\r\n"
    ).encode()


def _status(sock: socket.socket) -> int:
    """The status code of the response on `sock`, once the server has closed the connection."""
    answer = b""
    while chunk := sock.recv(65536):  # a server that keeps it open times out the test
        answer += chunk
    return int(answer.split(b"\r\n", 1)[0].split()[1])


def _send_body(sock: socket.socket) -> None:
    """Send headers for a 9 MiB body, then 1 MiB of it; the server may cut us off."""
    with suppress(OSError):  # reset: the server answered and closed without reading
        sock.sendall(_head(9 << 20) + b"[" + b" " * (1 << 20))


def _send_chunked(sock: socket.socket) -> None:
    """Stream a 20 MiB body in 1 MiB chunks; expect a 413, or a reset once it was sent."""
    head = (
        f"POST /score HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    chunk = b"100000\r\n" + b"x" * (1 << 20) + b"\r\n"
    try:
        sock.sendall(head)
        for _ in range(20):
            sock.sendall(chunk)
    except OSError:  # reset: the server answered 413 and closed
        return
    assert _status(sock) == 413


def _marked(server: Server) -> list[int]:
    """The live processes that carry the server's mark: it and all it started, orphans too."""
    found = []
    needle = f"{MARK}={server.mark}".encode()
    for entry in Path("/proc").iterdir():
        try:
            environ = (entry / "environ").read_bytes()  # empty for a zombie
        except OSError:  # not a process, not ours, or it just ended
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry.name))
    return found


def test_an_answer_of_a_million_end_markers_is_cut_in_linear_time() -> None:
    """OpenRLHF's `/get_reward` drops the end-of-turn tokens closing a query: a policy that
    ends its answer with a million of them must not make that quadratic."""
    from rewardkit.server._openrlhf import openrlhf_sample

    query = "Q: A: 4" + "</s> <|im_end|>\n" * 500_000
    start = time.process_time()
    fields = openrlhf_sample(query, "Q: A:", "4")
    assert time.process_time() - start < 2.0
    assert fields["completion"] == " 4"


@pytest.mark.parametrize(
    "tail",
    [
        " \n\t" * 1_000_000,  # whitespace and no marker: kept, and no backtracking over it
        "</s" + ">" * 1_000_000,  # a marker's prefix, then what almost closes it
        "<|im_end|> x" * 300_000,  # markers inside the answer, not at its end
    ],
    ids=["whitespace", "near-marker", "markers-inside"],
)
def test_answers_built_to_make_the_marker_cut_backtrack_are_read_once(tail: str) -> None:
    from rewardkit.server._openrlhf import openrlhf_sample

    start = time.process_time()
    fields = openrlhf_sample("Q: A: 4" + tail, "Q: A:", "4")
    assert time.process_time() - start < 1.0
    assert fields["completion"] == " 4" + tail  # none of them ends in a marker
