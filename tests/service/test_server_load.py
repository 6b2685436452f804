"""A real uvicorn on 127.0.0.1 under bounded concurrent load: no request lost or mis-answered."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from live_server import serving
from serve_rewards import busy

import rewardkit as rk
from rewardkit.server import create_app

CLIENTS, REQUESTS = 32, 8
AUTH = {"Authorization": "Bearer t0k"}


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    app = create_app(rk.load([busy], max_concurrent=4), token="t0k")
    with serving(app) as url:
        # The first request forks the scoring processes. `rewardkit serve` forks them from a
        # process of its own; here the clients' threads share it, and a fork among 32 threads
        # busy in httpx can hand the child a lock one of them held: fork before they exist.
        warm = httpx.post(f"{url}/score", json=_sample(0, 0), headers=AUTH, timeout=30)
        assert warm.status_code == 200, warm.text
        yield url


def _sample(client_id: int, n: int) -> dict[str, Any]:
    ident = f"{client_id}-{n}"
    answer = ident if (client_id + n) % 2 == 0 else "wrong"
    return {"completion": answer, "ground_truth": ident, "metadata": {"id": ident}}


def _expected(sample: dict[str, Any]) -> float:
    return 1.0 if sample["completion"] == sample["ground_truth"] else 0.0


def _one_client(base_url: str, client_id: int) -> int:
    """Send REQUESTS single and batch requests; check every answer; return answers checked."""
    checked = 0
    with httpx.Client(base_url=base_url, headers=AUTH, timeout=30) as client:
        for n in range(REQUESTS):
            sample = _sample(client_id, n)
            if n % 2:
                response = client.post("/score", json=sample)
                assert response.status_code == 200, response.text
                results = [response.json()]
                sent = [sample]
            else:
                sent = [_sample(client_id, 100 + n * 10 + k) for k in range(3)]
                response = client.post("/score/batch", json={"samples": sent})
                assert response.status_code == 200, response.text
                results = response.json()
            assert len(results) == len(sent)
            for want, got in zip(sent, results, strict=True):
                assert got["metadata"] == want["metadata"]
                assert got["reward"] == _expected(want), (want, got)
                checked += 1
    return checked


def test_concurrent_clients_get_every_answer_right(base_url: str) -> None:
    with ThreadPoolExecutor(CLIENTS) as pool:
        counts = list(pool.map(lambda i: _one_client(base_url, i), range(CLIENTS)))
    per_client = (REQUESTS // 2) * 1 + (REQUESTS // 2) * 3
    assert counts == [per_client] * CLIENTS


def test_limits_and_auth_over_the_wire(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        assert client.post("/score", json={"completion": "x"}).status_code == 401
        big = {"completion": "x" * (11 * 1024 * 1024)}
        response = client.post("/score", json=big, headers=AUTH)
        assert response.status_code == 413
        assert "exceeds the limit" in response.json()["detail"]
        assert response.headers["connection"] == "close"
