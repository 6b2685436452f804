"""Client CPU per model call: a tests dir whose judge TOML has 500 criteria in individual
mode, each naming the same workspace file, at `--max-concurrent-llm 32`.

The chat-completions server of the tests (tests/llm/server.py) runs in a separate process
(this script with `--serve`) on 127.0.0.1, answering after 200 ms, so its CPU is not
counted. The client is `rk.run(...)` in this process: its CPU is `time.process_time()`
across the run (discovery, prompts, file reads, every call, outputs), divided by the calls
the server saw. The span is the server's first request to its last answer; the ideal is
500 / 32 x 0.2 s = 3.1 s. Targets: span <= 1.15 x ideal, <= 1 ms of client CPU per call.
Then the whole `rewardkit` command once, for context: its CPU (start-up and imports
included, from `wait4`) per call.

`--ways direct,httpx` also runs the calls through httpx, the way taken when a proxy is
configured (here `HTTP_PROXY`, which `NO_PROXY=127.0.0.1` bypasses), side by side.

    python benchmarks/llm_cpu.py [--criteria 500] [--latency 0.2] [--limit 32] [--runs 3]
        [--ways direct,httpx] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "llm"))

SOURCE = "".join(f"def f{i}(x):\n    return x * {i}  # step {i}\n\n" for i in range(120))
"""The judged file (≈4 KiB of Python)."""


def serve(latency: float) -> None:
    """The server process: prints its URL, then answers `reset` and `stats` on stdin."""
    from server import ChatServer, Reply

    arrivals: list[float] = []
    lock = threading.Lock()

    def answer(body: dict[str, Any]) -> Reply:
        with lock:
            arrivals.append(time.time())
        return Reply(content=json.dumps({"score": "yes", "reasoning": "fine"}))

    with ChatServer(latency=latency) as server:
        server.respond_with(answer)
        print(server.url, flush=True)
        for line in sys.stdin:
            if line.strip() == "reset":
                server.reset()
                server.respond_with(answer)
                with lock:
                    arrivals.clear()
                print("ok", flush=True)
            else:
                with lock:
                    first, last = (min(arrivals), max(arrivals)) if arrivals else (0.0, 0.0)
                stats = {"count": server.count, "peak": server.max_in_flight}
                print(json.dumps({**stats, "first": first, "last": last}), flush=True)


class Server:
    """The `--serve` process, driven over its stdin and stdout."""

    def __init__(self, latency: float) -> None:
        command = [sys.executable, __file__, "--serve", "--latency", str(latency)]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.url = self._line()

    def _line(self, send: str | None = None) -> str:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None
        assert stdout is not None
        if send is not None:
            stdin.write(f"{send}\n".encode())
            stdin.flush()
        return stdout.readline().decode().strip()

    def reset(self) -> None:
        self._line("reset")

    def stats(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self._line("stats"))
        return result

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def make_task(root: Path, criteria: int) -> tuple[Path, Path]:
    """A tests dir with one judge TOML whose every criterion names `main.py`."""
    tests, ws = root / "tests", root / "ws"
    tests.mkdir()
    ws.mkdir()
    (ws / "main.py").write_text(SOURCE)
    head = '[judge]\njudge = "openai/test-model"\nmode = "individual"\n'
    body = (
        f'\n[[criterion]]\ndescription = "Criterion {i}: is it right?"\nfiles = ["main.py"]\n'
        for i in range(criteria)
    )
    (tests / "quality.toml").write_text(head + "".join(body))
    return tests, ws


def in_process(tests: Path, ws: Path, out: Path, server: Server, limit: int) -> dict[str, float]:
    import rewardkit as rk

    server.reset()
    cpu, wall = time.process_time(), time.perf_counter()
    rewards = rk.run(tests, workspace=ws, output=out, max_concurrent_llm=limit)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if rewards["reward"] != 1.0:
        raise SystemExit(f"unexpected rewards: {rewards}")
    stats = server.stats()
    return {"cpu": cpu, "wall": wall, **stats}


def whole_process(tests: Path, ws: Path, out: Path, server: Server, limit: int) -> dict[str, float]:
    server.reset()
    command = [str(Path(sys.executable).parent / "rewardkit"), str(tests), "--workspace"]
    command += [str(ws), "--output", str(out), "--mcl", str(limit)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=os.environ)
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0 or json.loads(out.read_text()) != {"reward": 1.0}:
        raise SystemExit(f"rewardkit failed (wait status {status})")
    return {"cpu": usage.ru_utime + usage.ru_stime, **server.stats()}


def take(way: str) -> None:
    """Send `direct`ly, or through `httpx` (a proxy configured that 127.0.0.1 bypasses)."""
    proxy = {"HTTP_PROXY": "http://127.0.0.1:9", "NO_PROXY": "127.0.0.1"}
    if way == "httpx":
        os.environ.update(proxy)
    elif way == "direct":
        for name in proxy:
            os.environ.pop(name, None)
    else:
        raise SystemExit(f"--ways takes direct and httpx (got {way!r})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criteria", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--limit", type=int, default=32)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ways", default="direct", help="direct, httpx, or both (a,b)")
    parser.add_argument("--profile", help="write a cProfile of one more in-process run here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.latency)
        return
    from server import KEY

    ideal = args.criteria / args.limit * args.latency
    server = Server(args.latency)
    os.environ.update(REWARDKIT_API_BASE=server.url, OPENAI_API_KEY=KEY)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            tests, ws = make_task(Path(tmp), args.criteria)
            out = Path(tmp) / "out" / "reward.json"
            ways = {}
            for way in args.ways.split(","):
                take(way)
                ways[way] = [
                    in_process(tests, ws, out, server, args.limit) for _ in range(args.runs)
                ]
            take("direct")
            if args.profile:
                profiler = cProfile.Profile()
                profiler.runcall(in_process, tests, ws, out, server, args.limit)
                profiler.dump_stats(args.profile)
            whole = whole_process(tests, ws, out, server, args.limit)
    finally:
        server.close()
    print(
        f"{args.criteria} criteria naming one file, individual mode, "
        f"{args.latency * 1000:.0f} ms per answer, --max-concurrent-llm {args.limit}; "
        f"ideal {ideal:.3f} s of requests; server in its own process"
    )
    for way, runs in ways.items():
        report(way, args.latency, ideal, runs)
    print(
        f"\nwhole `rewardkit` command (direct; start-up and imports included): "
        f"{whole['cpu']:.3f} s CPU for {whole['count']} calls = "
        f"{whole['cpu'] / whole['count'] * 1000:.2f} ms per call"
    )


def report(way: str, latency: float, ideal: float, runs: list[dict[str, float]]) -> None:
    print(f"\n{way}:")
    print("| run | calls | peak in flight | span (x ideal) | run wall | client CPU | CPU/call |")
    print("|---|---|---|---|---|---|---|")
    for i, r in enumerate(runs, 1):
        span = r["last"] - r["first"] + latency
        print(
            f"| {i} | {r['count']} | {r['peak']} | {span:.3f} s ({span / ideal:.2f}x) | "
            f"{r['wall']:.3f} s | {r['cpu']:.3f} s | {r['cpu'] / r['count'] * 1000:.2f} ms |"
        )
    spans = [r["last"] - r["first"] + latency for r in runs]
    per_call = [r["cpu"] / r["count"] * 1000 for r in runs]
    span, cpu = statistics.median(spans), statistics.median(per_call)
    print(
        f"median: span {span:.3f} s = {span / ideal:.2f}x ideal (target <= 1.15x); "
        f"client CPU {cpu:.2f} ms per call (target <= 1 ms)"
    )


if __name__ == "__main__":
    main()
