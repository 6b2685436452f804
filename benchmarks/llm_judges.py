"""LLM judge transport: 64 requests at 200 ms each through one client limited to 8 in flight.

The ideal is 64 / 8 x 0.2 s = 1.6 s; the target is at most 1.25 x that (2.0 s), with the
server never seeing more than 8 requests at once, and a second run with the cache making no
request at all. The server is the tests' real chat-completions server (tests/llm/server.py),
run in this process; the client is pointed at it with `api_base` (natively; set
REWARDKIT_TRANSPORT=litellm to measure the LiteLLM path).

Then the same work as a whole process (`--child`), as the CLI will do it: start loading
LiteLLM first, do everything else, send, write the outputs, leave. Its wall time includes
interpreter start, LiteLLM's import and shutdown; the report shows how much of the import
overlapped other work and how long the requests waited for it.

    python benchmarks/llm_judges.py [--runs 3] [--requests 64] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

T0 = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "llm"))

from rewardkit.models import _litellm  # noqa: E402  (after the path and the clock)


def requests(url: str, n: int) -> list[Any]:
    from server import KEY

    from rewardkit.models import CompletionRequest

    return [
        CompletionRequest(
            model="openai/test-model",
            messages=[
                {"role": "system", "content": "You are an evaluation judge. Answer in JSON."},
                {"role": "user", "content": f"Criterion {i}: is the file there?"},
            ],
            api_base=url,
            api_key=KEY,
            timeout=30,
        )
        for i in range(n)
    ]


def parse(text: str) -> Any:
    return json.loads(text)["score"]


async def batch(reqs: list[Any], concurrency: int, cache: str | None) -> tuple[float, Any]:
    from rewardkit.models import ModelClient

    async with ModelClient(max_concurrent=concurrency, cache_dir=cache) as client:
        started = time.perf_counter()
        results = await asyncio.gather(*(client.complete(r, parse=parse) for r in reqs))
        wall = time.perf_counter() - started
    assert all(value == "yes" for _, value in results)
    return wall, client.stats


def child(url: str, n: int, concurrency: int, cache: str | None, out: str, exit_: str) -> None:
    """One whole run: load LiteLLM in the background, build requests, send, write, leave."""
    _litellm.preload(["openai/test-model"])  # loads LiteLLM only if it routes there
    reqs = requests(url, n)  # stands for discovery, prompt building and programmatic criteria
    ready = time.perf_counter()
    wall, stats = asyncio.run(batch(reqs, concurrency, cache))
    loader = _litellm.litellm_loader()
    timeline = {
        "ready": ready - T0,
        "import_start": (loader.started_at or T0) - T0,
        "import_end": (loader.finished_at or T0) - T0 if loader.finished_at else None,
        "sent_in": wall,
        "calls": stats.calls,
        "cache_hits": stats.cache_hits,
        "written": time.perf_counter() - T0,
        "written_epoch": time.time(),
    }
    Path(out).write_text(json.dumps(timeline))
    if exit_ == "freeze":
        _litellm.prepare_exit()
    elif exit_ == "now":
        _litellm.exit_now(0)


def whole_process(
    url: str, args: argparse.Namespace, cache: str | None, exit_: str
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/timeline.json"
        command = [sys.executable, __file__, "--child", url, "--out", out, "--exit", exit_]
        command += ["--requests", str(args.requests), "--concurrency", str(args.concurrency)]
        command += ["--cache", cache] if cache else []
        started = time.perf_counter()
        subprocess.run(command, check=True)
        timeline: dict[str, Any] = json.loads(Path(out).read_text())
        timeline["process"] = time.perf_counter() - started
        timeline["after"] = time.time() - timeline["written_epoch"]
    return timeline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--child", metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--cache", help=argparse.SUPPRESS)
    parser.add_argument("--exit", default="freeze", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.requests, args.concurrency, args.cache, args.out, args.exit)
        return
    from server import ChatServer

    ideal = args.requests / args.concurrency * args.latency
    with ChatServer(latency=args.latency) as server, tempfile.TemporaryDirectory() as cache:
        print(
            f"{args.requests} requests, --max-concurrent-llm {args.concurrency}, "
            f"{args.latency * 1000:.0f} ms per request: ideal {ideal:.2f} s, "
            f"target <= {1.25 * ideal:.2f} s\n"
        )
        in_process(server, args, ideal, cache)
        print()
        processes(server, args, ideal, cache)


def in_process(server: Any, args: argparse.Namespace, ideal: float, cache: str) -> None:
    asyncio.run(_litellm.load())  # measured separately below; here only the requests count
    reqs = requests(server.url, args.requests)
    walls, peaks = [], []
    for _ in range(args.runs):
        server.reset()
        wall, _ = asyncio.run(batch(reqs, args.concurrency, None))
        walls.append(wall)
        peaks.append(server.max_in_flight)
        assert server.count == args.requests
    wall = statistics.median(walls)
    print(
        f"in process, no cache ({args.runs} runs): median {wall:.3f} s "
        f"= {wall / ideal:.2f} x ideal (runs: {', '.join(f'{w:.3f}' for w in walls)}); "
        f"server max in flight {max(peaks)}"
    )
    server.reset()
    asyncio.run(batch(reqs, args.concurrency, cache))  # fills the cache
    server.reset()
    wall, stats = asyncio.run(batch(reqs, args.concurrency, cache))
    print(
        f"in process, cache warm: {wall * 1000:.1f} ms, server saw {server.count} requests, "
        f"{stats.cache_hits} cache hits"
    )


def processes(server: Any, args: argparse.Namespace, ideal: float, cache: str) -> None:
    print("whole process (python benchmarks/llm_judges.py --child ...), median of runs:")
    print(
        "| run | process wall | LiteLLM import | overlapped | requests waited | "
        "requests | written at | exit after writing | server saw |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    cases = [
        ("no cache, gc.freeze exit", None, "freeze"),
        ("no cache, normal exit", None, "normal"),
        ("no cache, os._exit", None, "now"),
        ("cache warm, gc.freeze exit", cache, "freeze"),
    ]
    for label, cache_dir, exit_ in cases:
        runs = []
        for _ in range(args.runs):
            server.reset()
            timeline = whole_process(server.url, args, cache_dir, exit_)
            timeline["server"] = server.count
            runs.append(timeline)
        row = {k: statistics.median(r[k] for r in runs) for k in ("process", "sent_in", "after")}
        row["written"] = statistics.median(r["written"] for r in runs)
        imports = [r for r in runs if r["import_end"] is not None]
        if imports:
            span = statistics.median(r["import_end"] - r["import_start"] for r in imports)
            overlap = statistics.median(
                min(r["ready"], r["import_end"]) - r["import_start"] for r in imports
            )
            waited = statistics.median(max(0.0, r["import_end"] - r["ready"]) for r in imports)
            cells = f"{span:.2f} s | {overlap:.2f} s | {waited:.2f} s"
        else:
            cells = "not finished, not needed | - | 0 s"
        print(
            f"| {label} | {row['process']:.2f} s | {cells} | {row['sent_in']:.2f} s | "
            f"{row['written']:.2f} s | {row['after']:.2f} s | {max(r['server'] for r in runs)} |"
        )
    print(
        f"\nideal for the requests alone: {ideal:.2f} s. 'requests' counts from the first "
        "send to the last reply, including the wait for LiteLLM."
    )


if __name__ == "__main__":
    main()
