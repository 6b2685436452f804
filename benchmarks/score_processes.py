"""`rewardkit score` throughput for a CPU-bound reward: threads vs processes.

    .venv/bin/python benchmarks/score_processes.py [N]

An eval.yaml of five `@reward_function` judges that each do pure-Python work (about 0.3 ms),
written to a temporary directory with its module so worker processes can import it, scores
N (default 2,000) rollouts end to end through the CLI (process start-up included) with
`--backend local --workers 1`, `--backend local --workers 2` and `--backend process
--workers 2`. Prints samples/s and the scaling over one thread.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

from rewardkit.cli import main as cli

JUDGES = """
from rewardkit import reward_function


def _work(text, rounds):
    h = 0
    for _ in range(rounds):
        for ch in text:
            h = (h * 31 + ord(ch)) % 1_000_003
    return h


@reward_function
def has_answer(messages, **kwargs):
    text = messages[-1]["content"]
    return (_work(text, 6) >= 0) and "<answer>" in text


@reward_function
def length(messages, **kwargs):
    text = messages[-1]["content"]
    _work(text, 6)
    return min(1.0, 200 / max(len(text), 1))


@reward_function
def correct(messages, ground_truth=None, **kwargs):
    text = messages[-1]["content"]
    _work(text, 6)
    return text.split("<answer>")[-1].split("</answer>")[0].strip() == ground_truth


@reward_function
def steps(messages, **kwargs):
    text = messages[-1]["content"]
    _work(text, 6)
    return "step" in text.lower()


@reward_function
def distinct(messages, **kwargs):
    words = messages[-1]["content"].split()
    _work(" ".join(sorted(words)), 6)
    return len(set(words)) / max(len(words), 1)
"""

EVAL_YAML = "judges:\n" + "".join(
    f"  - {{name: {name}, module: cpujudges, function: {name}}}\n"
    for name in ("has_answer", "length", "correct", "steps", "distinct")
)

RUNS = (("local", 1, None), ("local", 2, None), ("process", 2, None), ("local", 2, 60.0))
"""backend, workers, --deadline: with a deadline each sample runs in a forked worker and its
judges inline; without one, each sample's code judges run in a process of their own."""


def write_job(root: Path, n: int) -> tuple[Path, Path]:
    (root / "cpujudges.py").write_text(JUDGES)
    (root / "eval.yaml").write_text(EVAL_YAML)
    rollouts = root / "rollouts.jsonl"
    with rollouts.open("w") as f:
        for i in range(n):
            completion = f"Step 1: add {i} and {i}. Step 2: check. <answer>{2 * i}</answer>"
            sample = {"id": i, "prompt": f"{i} + {i}?", "completion": completion}
            f.write(json.dumps(sample | {"ground_truth": str(2 * i + i % 2)}) + "\n")
    return root / "eval.yaml", rollouts


def run(
    config: Path, rollouts: Path, out: Path, backend: str, workers: int, deadline: float | None
) -> float:
    argv = ["score", str(rollouts), "--config", str(config), "--out", str(out)]
    argv += ["--workers", str(workers), "--backend", backend, "--no-progress"]
    argv += ["--deadline", str(deadline)] if deadline else []
    start = time.perf_counter()
    with redirect_stdout(StringIO()):
        assert cli(argv) == 0
    return time.perf_counter() - start


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000
    with tempfile.TemporaryDirectory() as tmp:
        config, rollouts = write_job(Path(tmp), n)
        results: dict[tuple[str, int, float | None], list[dict[str, object]]] = {}
        base = None
        for backend, workers, deadline in RUNS:
            out = Path(tmp) / f"{backend}-{workers}-{deadline}.jsonl"
            elapsed = run(config, rollouts, out, backend, workers, deadline)
            rows = [json.loads(line) for line in out.read_text().splitlines()]
            for row in rows:
                row.pop("duration_s", None)
            results[backend, workers, deadline] = sorted(rows, key=lambda row: row["id"])
            rate = n / elapsed
            base = base or rate
            flags = f"--backend {backend:7} --workers {workers}"
            flags += f" --deadline {deadline:g}" if deadline else ""
            print(f"{flags}: {rate:7,.0f} samples/s ({elapsed:.2f} s, {rate / base:.2f}x)")
        first = next(iter(results.values()))
        assert all(rows == first for rows in results.values()), "backends disagree"


if __name__ == "__main__":
    main()
