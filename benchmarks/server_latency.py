"""p50/p99 latency and throughput of `rewardkit serve` at 32 concurrent clients.

    .venv/bin/python benchmarks/server_latency.py [REQUESTS]

Starts uvicorn on 127.0.0.1 (a free port) in a subprocess with a 3-function reward, then 32
client threads (one `httpx.Client` each) send REQUESTS (default 3,200) `POST /score` calls in
total; every answer is checked against its sample's id. A first round of 8 calls per client,
not timed, starts and warms up every scoring process.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

import rewardkit as rk

CLIENTS = 32


@rk.reward_function
def correct(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    return bool(messages[-1]["content"].strip() == ground_truth)


@rk.reward_function
def brief(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    return min(1.0, 50 / max(len(messages[-1]["content"]), 1))


@rk.reward_function
def no_repeats(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    words = messages[-1]["content"].split()
    return len(set(words)) / max(len(words), 1)


def serve(port: int) -> None:
    import uvicorn

    from rewardkit.server import create_app

    app = create_app(rk.load([correct, brief, no_repeats], max_concurrent=8))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_ready(url: str) -> None:
    for _ in range(200):
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.05)
    raise SystemExit("server did not start")


def client(url: str, ids: range) -> list[float]:
    latencies = []
    with httpx.Client(base_url=url, timeout=30) as http:
        for i in ids:
            sample = {"completion": f"{i}", "ground_truth": f"{i}", "metadata": {"id": i}}
            start = time.perf_counter()
            response = http.post("/score", json=sample)
            latencies.append(time.perf_counter() - start)
            body = response.json()
            if body["metadata"] != {"id": i} or body["judges"]["correct"] != 1.0:
                raise SystemExit(f"mis-answered request {i}: {body}")
    return latencies


def main(requests: int) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    try:
        wait_ready(url)
        per = requests // CLIENTS
        with ThreadPoolExecutor(CLIENTS) as pool:
            warm_up = [range(c * 8, (c + 1) * 8) for c in range(CLIENTS)]
            list(pool.map(lambda r: client(url, r), warm_up))
            start = time.perf_counter()
            chunks = [range(c * per, (c + 1) * per) for c in range(CLIENTS)]
            latencies = sorted(x for ls in pool.map(lambda r: client(url, r), chunks) for x in ls)
            elapsed = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(10)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    print(f"{len(latencies)} requests, {CLIENTS} concurrent clients, {elapsed:.2f}s")
    print(f"p50 {p50:.1f} ms  p99 {p99:.1f} ms  throughput {len(latencies) / elapsed:.0f} req/s")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(int(sys.argv[2]))
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 3200)
