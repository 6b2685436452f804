"""`rewardkit` and Harbor RewardKit 0.2.3 side by side on a tests dir whose judge TOML has
64 criteria in individual mode.

The chat-completions server of the tests (tests/llm/server.py) runs in this process with
200 ms of latency per request; each tool runs as a separate process with
`--max-concurrent-llm 8`, pointed at the server through `REWARDKIT_API_BASE` (ours) and
`OPENAI_BASE_URL` / `OPENAI_API_BASE` (LiteLLM's, for RewardKit). The ideal is
64 / 8 x 0.2 s = 1.6 s of requests. For each tool the report gives the whole-process wall
time, spawn → first request (Python's start, imports, discovery), the requests' span as the
server saw it, the highest number in flight and the request count (medians over `--runs`);
then ours again with `--cache` warm. RewardKit is skipped, with a note, when its command is
absent (create it with: PYENV_VERSION=3.12.1 python3.12 -m venv /tmp/harborvenv &&
/tmp/harborvenv/bin/pip install 'harbor-rewardkit==0.2.3').

    python benchmarks/llm_tests_dir.py [--criteria 64] [--latency 0.2] [--limit 8] [--runs 3]
        [--rewardkit-cmd /tmp/harborvenv/bin/rewardkit]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "llm"))

from server import KEY, ChatServer, Reply  # noqa: E402

ARRIVALS: list[float] = []
HARBOR = os.environ.get("HARBOR_REWARDKIT", "/tmp/harborvenv/bin/rewardkit")


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


@dataclass(frozen=True)
class Run:
    wall: float
    first: float
    """Spawn → the server's first request."""
    span: float
    """First request's arrival → last answer."""
    requests: int
    in_flight: int


def run(cmd: list[str], server: ChatServer, latency: float, out: Path) -> Run:
    env = {
        **os.environ,
        "REWARDKIT_API_BASE": server.url,
        "OPENAI_BASE_URL": server.url,
        "OPENAI_API_BASE": server.url,
        "OPENAI_API_KEY": KEY,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # neither waits on the network for prices
    }
    server.reset()
    server.respond_with(answer)
    ARRIVALS.clear()
    out.unlink(missing_ok=True)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0 or json.loads(out.read_text()) != {"reward": 1.0}:
        raise SystemExit(f"{cmd[0]} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    first = min(ARRIVALS) - start if ARRIVALS else float("nan")
    span = max(ARRIVALS) - min(ARRIVALS) + latency if ARRIVALS else 0.0
    return Run(wall, first, span, server.count, server.max_in_flight)


def median(runs: list[Run]) -> Run:
    pick = [statistics.median(getattr(r, f) for r in runs) for f in ("wall", "first", "span")]
    return Run(*pick, max(r.requests for r in runs), max(r.in_flight for r in runs))


def row(name: str, r: Run, ideal: float) -> str:
    span = f"{r.span:.2f} s ({r.span / ideal:.2f}x ideal)" if r.requests else "-"
    return f"| {name} | {r.wall:.2f} s | {r.first:.3f} s | {span} | {r.requests} | {r.in_flight} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criteria", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3, help="alternating runs per tool")
    parser.add_argument("--rewardkit-cmd", default=HARBOR, help="Harbor RewardKit's command")
    args = parser.parse_args()
    ideal = args.criteria / args.limit * args.latency
    ours = str(Path(sys.executable).parent / "rewardkit")
    theirs = shutil.which(args.rewardkit_cmd)
    with tempfile.TemporaryDirectory() as tmp, ChatServer(latency=args.latency) as server:
        tests, ws = make_task(Path(tmp), args.criteria)
        out, cache = Path(tmp) / "out" / "reward.json", Path(tmp) / "cache"
        common = [
            str(tests),
            "--workspace",
            str(ws),
            "--output",
            str(out),
            "--mcl",
            str(args.limit),
        ]
        results: dict[str, list[Run]] = {"rewardkit": [], "RewardKit 0.2.3": []}
        for _ in range(args.runs):  # alternate, so a busy moment hurts both alike
            results["rewardkit"].append(run([ours, *common], server, args.latency, out))
            if theirs is not None:
                results["RewardKit 0.2.3"].append(run([theirs, *common], server, args.latency, out))
        run([ours, *common, "--cache", str(cache)], server, args.latency, out)  # fill the cache
        warm = run([ours, *common, "--cache", str(cache)], server, args.latency, out)
    print(
        f"{args.criteria} criteria, individual mode, {args.latency * 1000:.0f} ms per request, "
        f"--max-concurrent-llm {args.limit}; ideal {ideal:.2f} s of requests; "
        f"median of {args.runs}"
    )
    print("| tool | whole-process wall | spawn → first request | requests span (server) "
          "| requests | max in flight |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    mine = median(results["rewardkit"])
    print(row("rewardkit", mine, ideal))
    if theirs is None:
        print(f"(RewardKit skipped: {args.rewardkit_cmd} not found; see the module docstring)")
    else:
        other = median(results["RewardKit 0.2.3"])
        print(row("RewardKit 0.2.3", other, ideal))
        print(
            f"rewardkit is {other.wall / mine.wall:.1f}x faster in wall time and "
            f"{other.first / mine.first:.1f}x faster to its first request"
        )
    print(f"| rewardkit, `--cache` warm | {warm.wall:.2f} s | - | - | {warm.requests} | - |")


if __name__ == "__main__":
    main()
