"""`--backend ray` on a real two-node Ray cluster (two raylets on 127.0.0.1) and its failures.

The cluster is started by the module fixture with `ray start` and stopped at the end; every
driver is a subprocess (`rewardkit score`), as a user runs it.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rewardkit.batch._ray import connect
from rewardkit.core._errors import ConfigError
from rewardkit.engine._lifeline import descendants

pytest.importorskip("ray")

SLOW_CHECK = """\
import time
import rewardkit as rk

@rk.criterion
def slow_ok(workspace):
    time.sleep(0.01)
    return (workspace / "a.txt").exists()

rk.slow_ok()
"""
ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}


def _free_port() -> int:
    while True:  # outside Ray's default worker ports (10002-19999)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port >= 20000:
            return port


def _ray(*args: str) -> None:
    ray_cli = Path(sys.executable).with_name("ray")
    subprocess.run(
        [str(ray_cli), *args],
        env={**os.environ, **ENV},
        check=True,
        capture_output=True,
        timeout=120,
    )


def _start_worker(address: str) -> None:
    _ray("start", f"--address={address}", "--num-cpus=2", "--disable-usage-stats")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    _ray("stop", "--force")
    address = f"127.0.0.1:{_free_port()}"
    port = address.rsplit(":", 1)[1]
    _ray("start", "--head", f"--port={port}", "--num-cpus=2", "--include-dashboard=false")
    _start_worker(address)
    yield address
    _ray("stop", "--force")


@pytest.fixture
def rollouts(tmp_path: Path) -> tuple[Path, Path]:
    tests, ws = tmp_path / "tests", tmp_path / "ws"
    tests.mkdir()
    ws.mkdir()
    (tests / "checks.py").write_text(SLOW_CHECK)
    (ws / "a.txt").write_text("x")
    lines = [json.dumps({"id": f"s{i}", "workspace": str(ws)}) for i in range(3000)]
    path = tmp_path / "rollouts.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return tests, path


def _score(address: str | None, tests: Path, rollouts: Path, out: Path) -> subprocess.Popen[str]:
    env = {**os.environ, **ENV}
    env.pop("RAY_ADDRESS", None)
    if address is not None:
        env["RAY_ADDRESS"] = address
    argv = [sys.executable, "-m", "rewardkit", "score", str(rollouts), "--config", str(tests)]
    argv += ["--out", str(out), "--workers", "4", "--no-progress"]
    if address is not None:
        argv += ["--backend", "ray"]
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _ids(out: Path) -> collections.Counter[str]:
    return collections.Counter(json.loads(line)["id"] for line in out.read_text().splitlines())


def test_the_cluster_scores_as_the_local_backend(
    cluster: str, rollouts: tuple[Path, Path], tmp_path: Path
) -> None:
    tests, path = rollouts
    for address, name in ((None, "local.jsonl"), (cluster, "ray.jsonl")):
        done = _score(address, tests, path, tmp_path / name)
        _, err = done.communicate(timeout=300)
        assert done.returncode == 0, err

    def rows(name: str) -> list[Any]:
        lines = (tmp_path / name).read_text().splitlines()
        return sorted((json.loads(line) for line in lines), key=json.dumps)

    assert len(rows("ray.jsonl")) == 3000
    assert rows("ray.jsonl") == rows("local.jsonl")


def test_actors_spread_over_both_nodes(cluster: str) -> None:
    probe = (
        "import ray\n"
        "from rewardkit.batch._chunks import Loader\n"
        "from rewardkit.batch._ray import ChunkScorer, actor_options, connect\n"
        "connect(ray)\n"
        "cls = ray.remote(ChunkScorer).options(**actor_options(ray, 2))\n"
        "actors = [cls.remote(Loader('nowhere')) for _ in range(2)]\n"
        "print(len({ray.get(a.ready.remote())[0] for a in actors}))\n"
    )
    env = {**os.environ, **ENV, "RAY_ADDRESS": cluster}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.strip() == "2", done.stderr


def test_a_node_lost_mid_run_loses_no_sample(
    cluster: str, rollouts: tuple[Path, Path], tmp_path: Path
) -> None:
    tests, path = rollouts
    out = tmp_path / "out.jsonl"
    run = _score(cluster, tests, path, out)
    while not out.exists() or len(out.read_text().splitlines()) < 1500:
        assert run.poll() is None, run.communicate()[1]
        time.sleep(0.05)
    _kill_worker_node()
    try:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
        counts = _ids(out)
        assert len(counts) == 3000
        assert set(counts.values()) == {1}
        assert all(json.loads(line)["valid"] for line in out.read_text().splitlines())
    finally:
        _start_worker(cluster)


def _kill_worker_node() -> None:
    """SIGKILL the newest raylet that is not the head's, and every process under it."""
    listing = subprocess.run(
        ["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True
    ).stdout
    raylets = [
        int(line.split(None, 1)[0])
        for line in listing.splitlines()[1:]
        if "raylet/raylet" in line and "sockets/raylet " not in line
    ]
    root = max(raylets)
    for pid in [root, *descendants(root)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_dead_address_is_one_line_and_fast(rollouts: tuple[Path, Path], tmp_path: Path) -> None:
    tests, path = rollouts
    started = time.monotonic()
    done = _score(f"127.0.0.1:{_free_port()}", tests, path, tmp_path / "o.jsonl")
    _, err = done.communicate(timeout=60)
    assert done.returncode == 2
    assert time.monotonic() - started < 15
    assert "nothing answers at RAY_ADDRESS=127.0.0.1:" in err
    assert "Traceback" not in err


def _raising_init(error: BaseException) -> Any:
    def init(**_: Any) -> None:
        raise error

    return SimpleNamespace(init=init)


def test_a_missing_token_says_how_to_give_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    cause = RuntimeError("RPC error: InvalidAuthToken: Authentication token is missing")
    failure = ConnectionError("Failed to connect to Ray cluster")
    failure.__cause__ = cause
    with pytest.raises(ConfigError, match=r"requires token authentication.*RAY_AUTH_TOKEN"):
        connect(_raising_init(failure), timeout=5)
