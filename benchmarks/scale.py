"""Safety at the speed of a plain loop: rewardkit side by side with the plain loop, in one run.

    .venv/bin/python benchmarks/scale.py [--sizes 10000,100000,1000000] [--runs 3]
        [--only score,batch,processes,serve]

The plain loop is what TRL and verl do in-process: read each JSONL line, call the reward
function, write the same result line. Sections (`--only`):

- `score`: `rewardkit score` with its default deadline (every sample in a worker process that
  the deadline kills) and one exact-match `@reward_function` judge, given as
  `--config scale_reward:exact` and from an eval.yaml, at each N of `--sizes`: CPU per
  sample of the whole process tree (driver, supervisors, workers:
  `RUSAGE_CHILDREN` once all are reaped) against the plain loop's, the time from start to
  the first result line, and the peak RSS of the whole process tree (sampled every 20 ms).
- `batch`: `rk.load(...).score_batch` CPU per sample, the same function passed directly
  (no deadline; `deadline=10`) and from an eval.yaml, against the plain loop over the same
  samples in memory.
- `processes`: `score_batch(processes=1)` vs `processes=2` on a CPU-bound reward (about
  1.5 ms of pure Python per sample), wall time.
- `serve`: `rewardkit serve --config eval.yaml` against a minimal FastAPI endpoint that calls
  the same function inline (both under uvicorn, in their own process), throughput at 1, 8 and
  128 concurrent clients (keep-alive connections, all on one event loop in this process);
  then `rewardkit serve` on a tests directory (one programmatic criterion) at 32 clients,
  p50/p99.

Medians of `--runs` (default 3) runs, interleaved.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rewardkit as rk

ROOT = Path(__file__).resolve().parent.parent
REWARD = '''
import rewardkit as rk

@rk.reward_function
def exact(messages, ground_truth=None, **kwargs):
    return messages[-1]["content"].strip() == ground_truth

@rk.reward_function
def busy(messages, **kwargs):
    """CPU-bound on purpose: about 1.5 ms of pure Python."""
    text, total = messages[-1]["content"], 0
    for i in range(15_000):
        total += (ord(text[i % len(text)]) * i) % 7
    return total % 2 == 0
'''
PLAIN = """
import json, sys
sys.path.insert(0, sys.argv[3])
from scale_reward import exact
with open(sys.argv[1], "rb") as rollouts, open(sys.argv[2], "w") as out:
    for number, line in enumerate(rollouts, 1):
        sample = json.loads(line)
        messages = [{"role": "user", "content": sample["prompt"]},
                    {"role": "assistant", "content": sample["completion"]}]
        reward = float(exact(messages=messages, ground_truth=sample["ground_truth"]).score)
        row = {"id": sample["id"], "line": number, "reward": reward, "valid": True,
               "judges": {"exact": reward}}
        out.write(json.dumps(row, ensure_ascii=False) + "\\n")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", default="score,batch,processes,serve")
    args = parser.parse_args()
    sections = set(args.only.split(","))
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "scale_reward.py").write_text(REWARD)
        (work / "plain.py").write_text(PLAIN)
        (work / "eval.yaml").write_text(
            "judges:\n  - {name: exact, module: scale_reward, function: exact}\n"
        )
        sys.path.insert(0, str(work))
        if "score" in sections:
            for n in map(int, args.sizes.split(",")):
                score_section(work, n, args.runs)
        if "batch" in sections:
            batch_section(work, args.runs)
        if "processes" in sections:
            processes_section(args.runs)
        if "serve" in sections:
            serve_section(work)


def score_section(work: Path, n: int, runs: int) -> None:
    rollouts = work / f"r{n}.jsonl"
    with rollouts.open("w") as f:
        for i in range(n):
            truth = str(i) if i % 3 else "x"
            f.write(
                json.dumps(
                    {"id": f"s{i}", "prompt": "2+2?", "completion": str(i), "ground_truth": truth}
                )
                + "\n"
            )
    plain: list[dict[str, float]] = []
    ours: dict[str, list[dict[str, float]]] = {"scale_reward:exact": [], "eval.yaml": []}
    for _ in range(runs):
        out = work / "plain.jsonl"
        plain.append(
            _run([sys.executable, str(work / "plain.py"), str(rollouts), str(out), str(work)], out)
        )
        for config, timings in ours.items():
            out = work / "ours.jsonl"
            cmd = [
                sys.executable,
                "-m",
                "rewardkit",
                "score",
                str(rollouts),
                "--config",
                config,
                "--out",
                str(out),
                "--no-progress",
            ]
            timings.append(_run(cmd, out, cwd=work))
            assert sum(1 for _ in out.open()) == n, "every rollout has a result line"
    p_cpu = _med(plain, "cpu_s") / n * 1e6
    print(
        f"score N={n:,}: plain loop {p_cpu:.1f} us CPU/sample, wall {_med(plain, 'wall_s'):.2f} s, "
        f"peak RSS {_med(plain, 'rss_mb'):.0f} MB",
        flush=True,
    )
    for config, timings in ours.items():
        o_cpu = _med(timings, "cpu_s") / n * 1e6
        print(
            f"  rewardkit score --config {config}: {o_cpu:.1f} us CPU/sample ({o_cpu / p_cpu:.2f}x)"
            f", wall {_med(timings, 'wall_s'):.2f} s, first result line after "
            f"{_med(timings, 'first_s'):.2f} s, peak tree RSS {_med(timings, 'rss_mb'):.0f} MB",
            flush=True,
        )


def _med(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def _run(cmd: list[str], out: Path, cwd: Path | None = None) -> dict[str, float]:
    """Run `cmd`; its whole tree's CPU, wall time, first output line and peak tree RSS."""
    out.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    child = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL)
    peak, first = [0], [float("nan")]

    def watch() -> None:
        while child.poll() is None:
            if first[0] != first[0] and out.exists() and out.stat().st_size:
                first[0] = time.perf_counter() - start
            peak[0] = max(peak[0], _tree_rss(child.pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    assert child.wait() == 0, cmd
    wall = time.perf_counter() - start
    watcher.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"cpu_s": cpu, "wall_s": wall, "first_s": first[0], "rss_mb": peak[0] / 1024}


def _tree_rss(pid: int) -> int:
    """KiB resident in `pid` and its descendants."""
    total, todo = 0, [pid]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as kids:
                    todo += map(int, kids.read().split())
        except (OSError, ValueError):
            continue
    return total


def batch_section(work: Path, runs: int) -> None:
    from scale_reward import exact

    n = 100_000  # ~0.5 s a run: the CPU clocks tick every 10 ms
    samples = [{"prompt": "2+2?", "completion": str(i), "ground_truth": str(i)} for i in range(n)]

    def plain() -> None:
        for s in samples:
            messages = [
                {"role": "user", "content": s["prompt"]},
                {"role": "assistant", "content": s["completion"]},
            ]
            float(exact(messages=messages, ground_truth=s["ground_truth"]).score)

    scorers = {
        "function, no deadline": rk.load({"exact": exact}),
        "function, deadline=10": rk.load({"exact": exact}, deadline=10),
        "eval.yaml, no deadline": rk.load(work / "eval.yaml"),
    }
    timings: dict[str, list[float]] = {"plain loop": [], **{k: [] for k in scorers}}
    for _ in range(runs):
        timings["plain loop"].append(_cpu(plain) / n * 1e6)
        for name, scorer in scorers.items():
            scorer.score_batch(samples[:100])  # warm: threads and processes started
            timings[name].append(_cpu(lambda s=scorer: s.score_batch(samples)) / n * 1e6)
            results = scorer.score_batch(samples[:3])
            assert [r.reward for r in results] == [1.0] * 3, results
    base = statistics.median(timings["plain loop"])
    for name, values in timings.items():
        median = statistics.median(values)
        print(f"score_batch N={n:,}, {name}: {median:.1f} us CPU/sample ({median / base:.2f}x)")
    function = statistics.median(timings["function, no deadline"])
    eval_yaml = statistics.median(timings["eval.yaml, no deadline"])
    print(f"  eval.yaml / the function passed directly: {eval_yaml / function:.2f}x")
    for scorer in scorers.values():
        scorer.close()


def _cpu(work: Callable[[], Any]) -> float:
    """CPU seconds of `work` in this process and in worker processes reaped meanwhile, plus the
    CPU of this process's live descendants (read from /proc)."""
    before = _tree_cpu()
    work()
    return _tree_cpu() - before


def _tree_cpu() -> float:
    """CPU seconds of this process and every live descendant (from /proc), and reaped ones."""
    ticks = os.sysconf("SC_CLK_TCK")
    own = os.times()
    total = own.user + own.system + own.children_user + own.children_system
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as kids:
                    found = list(map(int, kids.read().split()))
                todo += found
                for kid in found:
                    with open(f"/proc/{kid}/stat", "rb") as stat:
                        fields = stat.read().rsplit(b")", 1)[1].split()
                    total += sum(int(f) for f in fields[11:15]) / ticks
        except (OSError, ValueError):
            continue
    return total


def processes_section(runs: int) -> None:
    from scale_reward import busy

    n = 2_000
    samples = [{"completion": f"text {i} " * 20} for i in range(n)]
    scorer = rk.load({"busy": busy})
    walls: dict[int, list[float]] = {1: [], 2: []}
    for size in walls:
        scorer.score_batch(samples[:50], processes=size)
    for _ in range(runs):
        for size in walls:
            scorer.score_batch(samples[:20], processes=size)  # this pool, warm again
            start = time.perf_counter()
            results = scorer.score_batch(samples, processes=size)
            walls[size].append(time.perf_counter() - start)
            assert all(r.valid for r in results)
    one, two = (statistics.median(walls[s]) for s in (1, 2))
    print(
        f"score_batch(processes=N), CPU-bound reward, N={n:,}: 1 process {one:.2f} s, "
        f"2 processes {two:.2f} s ({one / two:.2f}x)"
    )
    scorer.close()


INLINE_APP = """
import sys
from fastapi import FastAPI
from pydantic import BaseModel
sys.path.insert(0, sys.argv[2])
from scale_reward import exact

class Sample(BaseModel):
    prompt: str
    completion: str
    ground_truth: str

app = FastAPI()

@app.post("/score")
def score(sample: Sample) -> dict:
    messages = [{"role": "user", "content": sample.prompt},
                {"role": "assistant", "content": sample.completion}]
    reward = float(exact(messages=messages, ground_truth=sample.ground_truth).score)
    return {"reward": reward, "valid": True, "judges": {"exact": reward}}

@app.get("/healthz")
def healthz() -> dict:
    return {"status": "ok"}

if __name__ == "__main__":
    import uvicorn
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def serve_section(work: Path) -> None:
    import asyncio
    import socket

    import httpx

    def port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    def start(cmd: list[str], url: str) -> subprocess.Popen[bytes]:
        server = subprocess.Popen(cmd, cwd=work, stdout=subprocess.DEVNULL)
        for _ in range(400):
            try:
                if httpx.get(f"{url}/healthz").status_code == 200:
                    return server
            except httpx.TransportError:
                time.sleep(0.05)
        raise SystemExit(f"server did not start: {cmd}")

    def load(url: str, clients: int, per: int, sample: dict[str, Any]) -> list[float]:
        """`clients` keep-alive connections each sending `per` requests one after the other,
        from one event loop (a load generator far lighter than the server it measures);
        the elapsed time, then every request's latency, sorted."""
        host, port = url.removeprefix("http://").split(":")
        body = json.dumps(sample).encode()
        request = (
            f"POST /score HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body

        async def one() -> list[float]:
            reader, writer = await asyncio.open_connection(host, int(port))
            took = []
            for _ in range(per):
                begin = time.perf_counter()
                writer.write(request)
                head = await reader.readuntil(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 200"), head
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                answer = json.loads(await reader.readexactly(length))
                took.append(time.perf_counter() - begin)
                assert answer["reward"] == 1.0, answer
            writer.close()
            return took

        async def everyone() -> list[float]:
            await asyncio.gather(*(one() for _ in range(clients)))  # warm: connections, workers
            begin = time.perf_counter()
            parts = await asyncio.gather(*(one() for _ in range(clients)))
            elapsed = time.perf_counter() - begin
            return [elapsed, *sorted(x for part in parts for x in part)]

        return asyncio.run(everyone())

    (work / "inline_app.py").write_text(INLINE_APP)
    sample = {"prompt": "2+2?", "completion": "4", "ground_truth": "4"}
    servers = {
        "inline FastAPI": [sys.executable, str(work / "inline_app.py")],
        "rewardkit serve": [
            sys.executable,
            "-m",
            "rewardkit",
            "serve",
            "--config",
            str(work / "eval.yaml"),
            "--max-concurrent",
            "8",
            "--port",
        ],
    }
    rates: dict[str, dict[int, float]] = {}
    for name, cmd in servers.items():
        p = port()
        url = f"http://127.0.0.1:{p}"
        args = [*cmd, str(p), str(work)] if name == "inline FastAPI" else [*cmd, str(p)]
        server = start(args, url)
        try:
            rates[name] = {}
            for clients in (1, 8, 128):
                per = max(2000 // clients, 10)
                elapsed, *_ = load(url, clients, per, sample)
                rates[name][clients] = clients * per / elapsed
        finally:
            server.terminate()
            server.wait(10)
    for clients in (1, 8, 128):
        ours, inline = rates["rewardkit serve"][clients], rates["inline FastAPI"][clients]
        print(
            f"serve, {clients} clients: rewardkit serve {ours:.0f} req/s, inline FastAPI "
            f"{inline:.0f} req/s ({ours / inline:.2f}x)"
        )
    tests = work / "tests"
    tests.mkdir(exist_ok=True)
    (tests / "checks.py").write_text("import rewardkit as rk\n\nrk.file_exists('answer.txt')\n")
    (work / "ws").mkdir(exist_ok=True)
    (work / "ws" / "answer.txt").write_text("4")
    p = port()
    url = f"http://127.0.0.1:{p}"
    server = start(
        [sys.executable, "-m", "rewardkit", "serve", "--config", str(tests), "--port", str(p)], url
    )
    try:
        elapsed, *latencies = load(url, 32, 20, {"workspace": str(work / "ws")})
    finally:
        server.terminate()
        server.wait(10)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[int(len(latencies) * 0.99) - 1] * 1000
    print(
        f"serve, tests dir, 32 clients x 20 requests: p50 {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"{len(latencies) / elapsed:.0f} req/s"
    )


if __name__ == "__main__":
    main()
