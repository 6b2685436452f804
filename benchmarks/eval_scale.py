"""CPU per case and peak memory of `rewardkit eval` at growing N, beside the same judges
computed directly in one loop.

    .venv/bin/python benchmarks/eval_scale.py [N ...]    # default: 1000 10000 100000

For each N, a suite of four programmatic judges (the builtins `files_exist` and
`stdout_contains`, a boolean `check:` and a numeric one) over N case directories (merged
layout: `answer.txt`, `stdout.log`) is built in a temporary directory, then measured in fresh
processes, whole process trees (user + sys CPU of the process and every worker it forks;
peak RSS of the largest):

- `rewardkit eval EVAL_YAML --out DIR`: reads each case, judges it in worker processes,
  streams `cases.jsonl`, writes summary.json/.yaml (with their confidence intervals);
- direct: one loop in one process that reads each case's record (`case_record`), calls each
  judge's `evaluate` and composes the reward: the least `rewardkit eval` must do.

`marginal` is the CPU per case between the smallest and the largest N (start-up left out).
`fork` is what one worker process costs (fork, run, reap), measured in a process that has
loaded the suite; `rewardkit eval` forks one per chunk of up to 32 cases.

N = 100,000 takes about 8 minutes on a shared 2-core machine (building the cases included).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

EVAL_YAML = """\
name: scale
dataset:
  path: cases
judges:
  - name: answered
    builtin: files_exist
    arguments: {paths: [answer.txt]}
  - name: says_done
    builtin: stdout_contains
    arguments: {text: done}
  - name: short
    check: |
      return len(outputs["files"].get("answer.txt", "").split()) <= 5
  - name: length
    check: |
      return min(1.0, len(outputs["stdout"] or "") / 40)
    score_range: [0, 1]
"""
_MEASURE = (
    "import json, resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(json.dumps([use.ru_utime + use.ru_stime, use.ru_maxrss]))\n"
)


def build(root: Path, n: int) -> Path:
    """The suite and its `n` cases under `root`; the eval.yaml's path."""
    (root / "cases").mkdir(parents=True)
    (root / "eval.yaml").write_text(EVAL_YAML)
    for i in range(n):
        case = root / "cases" / f"case-{i:07d}"
        case.mkdir()
        if i % 5:
            (case / "answer.txt").write_text(f"{i + 1}\n" if i % 3 else "a b c d e f g\n")
        (case / "stdout.log").write_text(f"thinking about {i}\n" + ("done\n" if i % 2 else ""))
    return root / "eval.yaml"


def measure(argv: list[str]) -> tuple[float, float]:
    """CPU seconds and peak RSS (MiB) of `argv`, run in a fresh process tree."""
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True, check=True
    )
    cpu, peak_kib = json.loads(done.stdout)
    return cpu, peak_kib / 1024


def direct(eval_yaml: Path) -> None:
    """The same judges computed directly: read, judge and compose each case in one loop."""
    from rewardkit.compose import compose_reward
    from rewardkit.evalyaml._cases import case_record
    from rewardkit.evalyaml._chunk import judge_value
    from rewardkit.evalyaml._runs import find_cases
    from rewardkit.evalyaml._suite import load_suite

    suite = load_suite(eval_yaml)
    root, names, layout = find_cases(suite, None)
    info = suite.judge_info
    total = 0.0
    for name in names:
        record = case_record(root / name, layout=layout)
        outcomes = [judge.evaluate(record) for judge in suite.judges]
        values = {o.name: judge_value(o) for o in outcomes}
        total += compose_reward(values, suite.reward, info)
    print(total / max(len(names), 1))


def fork_cost(eval_yaml: Path, forks: int = 200) -> float:
    """CPU milliseconds (this process and its children) per worker process of 4 calls."""
    from rewardkit.engine._workers import WorkerLimits, in_worker_sequence_blocking
    from rewardkit.evalyaml._suite import load_suite

    load_suite(eval_yaml)  # the modules a run has loaded, as `rewardkit eval` has
    before = _cpu()
    for _ in range(forks):  # as a suite without model judges waits: in a plain thread
        in_worker_sequence_blocking([int] * 4, WorkerLimits())
    return (_cpu() - before) / forks * 1000


def _cpu() -> float:
    uses = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(use.ru_utime + use.ru_stime for use in uses)


def main(sizes: list[int]) -> None:
    rows = []
    print(f"{'N':>8} {'eval ms/case':>13} {'direct ms/case':>15} {'ratio':>6} "
          f"{'eval peak MiB':>14} {'direct peak MiB':>16}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="eval_scale.") as tmp:
        for n in sizes:
            eval_yaml = build(Path(tmp) / str(n), n)
            out = Path(tmp) / f"out-{n}"
            cmd = [sys.executable, "-m", "rewardkit", "eval", str(eval_yaml), "--out", str(out)]
            ours = measure([*cmd, "--no-progress"])
            plain = measure([sys.executable, __file__, "direct", str(eval_yaml)])
            rows.append((n, ours, plain))
            print(
                f"{n:>8} {ours[0] / n * 1000:>13.3f} {plain[0] / n * 1000:>15.3f} "
                f"{ours[0] / plain[0]:>6.2f} {ours[1]:>14.1f} {plain[1]:>16.1f}",
                flush=True,
            )
        fork = fork_cost(eval_yaml)
    if len(rows) > 1:
        (n0, a0, b0), (n1, a1, b1) = rows[0], rows[-1]
        ours_case, plain_case = (a1[0] - a0[0]) / (n1 - n0), (b1[0] - b0[0]) / (n1 - n0)
        print(
            f"marginal {n0}->{n1}: eval {ours_case * 1000:.3f} ms/case, direct "
            f"{plain_case * 1000:.3f} ms/case ({ours_case / plain_case:.2f}x); eval peak RSS "
            f"x{a1[1] / a0[1]:.2f}"
        )
    print(f"fork: {fork:.2f} ms CPU per worker process; at 32 cases a process "
          f"{fork / 32:.3f} ms/case")  # fmt: skip
    print(f"({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["direct"]:
        direct(Path(sys.argv[2]))
    else:
        main([int(a) for a in sys.argv[1:]] or [1000, 10000, 100000])
