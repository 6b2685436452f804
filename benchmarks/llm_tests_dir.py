"""`rewardkit` on a tests dir whose judge TOML has 64 criteria in individual mode.

The chat-completions server of the tests (tests/llm/server.py) runs in this process with
200 ms of latency per request; `rewardkit` runs as a separate process with
`--max-concurrent-llm 8`, pointed at the server through `REWARDKIT_API_BASE`. The ideal is
64 / 8 x 0.2 s = 1.6 s of requests; the report gives the whole-process wall time (which
includes Python's start and LiteLLM's import), the time the requests took as seen by the
server, the highest number of requests in flight, and a second run with `--cache`.

    python benchmarks/llm_tests_dir.py [--criteria 64] [--latency 0.2] [--limit 8]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "llm"))

from server import KEY, ChatServer, Reply  # noqa: E402

ARRIVALS: list[float] = []


def answer(body: dict[str, Any]) -> Reply:
    ARRIVALS.append(time.perf_counter())
    return Reply(content=json.dumps({"score": "yes", "reasoning": "fine"}))


def make_task(root: Path, criteria: int) -> tuple[Path, Path]:
    tests, ws = root / "tests", root / "ws"
    tests.mkdir()
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    lines = ['[judge]\njudge = "openai/test-model"\nmode = "individual"\nfiles = ["main.py"]\n']
    lines += [
        f'\n[[criterion]]\ndescription = "Criterion {i}: is it right?"\n' for i in range(criteria)
    ]
    (tests / "quality.toml").write_text("".join(lines))
    return tests, ws


def run(tests: Path, ws: Path, out: Path, url: str, limit: int, cache: Path) -> float:
    env = {**os.environ, "REWARDKIT_API_BASE": url, "OPENAI_API_KEY": KEY}
    binary = Path(sys.executable).parent / "rewardkit"
    cmd = [str(binary), str(tests), "--workspace", str(ws), "--output", str(out),
           "--mcl", str(limit), "--cache", str(cache)]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"rewardkit failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criteria", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--limit", type=int, default=8)
    args = parser.parse_args()
    ideal = args.criteria / args.limit * args.latency
    with tempfile.TemporaryDirectory() as tmp, ChatServer(latency=args.latency) as server:
        server.respond_with(answer)
        tests, ws = make_task(Path(tmp), args.criteria)
        out, cache = Path(tmp) / "out" / "reward.json", Path(tmp) / "cache"
        wall = run(tests, ws, out, server.url, args.limit, cache)
        bodies = server.requests
        span = max(ARRIVALS) - min(ARRIVALS) + args.latency  # first arrival → last answer
        cold = (wall, server.count, server.max_in_flight, json.loads(out.read_text()))
        server.reset()
        warm = run(tests, ws, out, server.url, args.limit, cache)
        print(
            f"{args.criteria} criteria, individual mode, {args.latency * 1000:.0f} ms per request, "
            f"--max-concurrent-llm {args.limit}; ideal {ideal:.2f} s of requests"
        )
        print("| run | requests span (server) | whole-process wall | requests | max in flight |")
        print("|---|---|---|---|---|")
        ratio = span / ideal
        print(
            f"| first | {span:.2f} s ({ratio:.2f}x ideal) | {cold[0]:.2f} s "
            f"| {cold[1]} | {cold[2]} |"
        )
        print(f"| again, cache warm | - | {warm:.2f} s | {server.count} | {server.max_in_flight} |")
        print(f"reward.json: {cold[3]} then {json.loads(out.read_text())}")
        assert len(bodies) == args.criteria


if __name__ == "__main__":
    main()
