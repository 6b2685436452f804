"""Reward functions: `import rewardkit` and `@reward_function` overhead, ours vs reward-kit 0.4.1.

Both sides run in the same session, alternating (so machine noise hits both alike):

- cold import: a fresh interpreter runs `import rewardkit` (ours) or `import reward_kit`
  (0.4.1), wall time, median of `--runs` (>= 7) alternating runs; `python -c pass` is shown
  as the floor both pay;
- per-call overhead of `@reward_function` over the same plain function, two dict messages
  in and an `EvaluateResult` out, for three annotations of `messages` (none,
  `List[Dict[str, Any]]`, `List[Message]`): `timeit` with GC off, best of 7 repeats per
  round, median over `--rounds` alternating rounds.

reward-kit 0.4.1 needs `mcp<2` (a fresh install resolves mcp 2.x, which it cannot import):

    python3 -m venv /tmp/rkvenv
    /tmp/rkvenv/bin/pip install 'reward-kit==0.4.1' 'mcp<2'
    python benchmarks/reward_function.py [--runs 9] [--rounds 3] \
        [--reward-kit /tmp/rkvenv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

OURS = "rewardkit (ours)"
THEIRS = "reward-kit 0.4.1"

# Runs inside each interpreter; `{package}` is `rewardkit` or `reward_kit`.
PER_CALL = """
import gc, json, sys, timeit, warnings
from typing import Any, Dict, List
warnings.simplefilter("ignore")
from {package} import EvaluateResult, Message, reward_function

def untyped(messages, ground_truth=None, **kwargs):
    return EvaluateResult(score=1.0, reason="ok")

def dicts(messages: List[Dict[str, Any]], ground_truth=None, **kwargs):
    return EvaluateResult(score=1.0, reason="ok")

def typed(messages: List[Message], ground_truth=None, **kwargs):
    return EvaluateResult(score=1.0, reason="ok")

MESSAGES = [
    {{"role": "user", "content": "What is 2 + 2?"}},
    {{"role": "assistant", "content": "4"}},
]
NUMBER = {number}

def per_call(fn):
    timer = timeit.Timer(lambda: fn(MESSAGES, ground_truth="4"))
    gc.disable()
    try:
        return min(timer.repeat(repeat=7, number=NUMBER)) / NUMBER * 1e6
    finally:
        gc.enable()

out = {{}}
for fn in (untyped, dicts, typed):
    decorated = reward_function(fn)
    decorated(MESSAGES, ground_truth="4")  # warm up; also proves it works
    plain, wrapped = per_call(fn), per_call(decorated)
    out[fn.__name__] = {{"plain": plain, "decorated": wrapped}}
json.dump(out, sys.stdout)
"""

CASES = {
    "untyped": "no annotation",
    "dicts": "List[Dict[str, Any]]",
    "typed": "List[Message]",
}


def time_import(python: str, package: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([python, "-c", f"import {package}"], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"`import {package}` failed with {python}:\n{done.stderr}")
    return elapsed


def per_call(python: str, package: str, number: int) -> dict[str, dict[str, float]]:
    code = PER_CALL.format(package=package, number=number)
    done = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"per-call benchmark failed with {python}:\n{done.stderr}")
    result: dict[str, dict[str, float]] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="cold imports per side (>= 7)")
    parser.add_argument("--rounds", type=int, default=3, help="per-call rounds per side")
    parser.add_argument("--number", type=int, default=20_000, help="calls per timeit repeat")
    parser.add_argument(
        "--reward-kit",
        default=os.environ.get("REWARD_KIT_PYTHON", "/tmp/rkvenv/bin/python"),
        help="the Python of a venv with reward-kit 0.4.1",
    )
    args = parser.parse_args()

    sides = {OURS: (sys.executable, "rewardkit")}
    if Path(args.reward_kit).exists():
        sides[THEIRS] = (args.reward_kit, "reward_kit")
    else:
        print(f"(reward-kit not found at {args.reward_kit}; measuring ours only)\n")

    for python, package in sides.values():  # warm up: page cache, .pyc files
        time_import(python, package)
    floor: list[float] = []
    imports: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(max(args.runs, 7)):
        floor.append(time_import(sys.executable, "sys"))
        for name, (python, package) in sides.items():
            imports[name].append(time_import(python, package))

    calls: dict[str, dict[str, list[float]]] = {name: {c: [] for c in CASES} for name in sides}
    for _ in range(args.rounds):
        for name, (python, package) in sides.items():
            for case, t in per_call(python, package, args.number).items():
                calls[name][case].append(t["decorated"] - t["plain"])

    print(f"cold import, wall time of a fresh interpreter, median of {len(floor)} (alternating)")
    print("| command | median | min | max |")
    print("|---|---|---|---|")
    print(
        f"| `python -c 'import sys'` (floor) | {_ms(floor)} | {min(floor) * 1e3:.0f} ms | "
        f"{max(floor) * 1e3:.0f} ms |"
    )
    for name, values in imports.items():
        package = sides[name][1]
        print(
            f"| `import {package}`, {name} | {_ms(values)} | {min(values) * 1e3:.0f} ms | "
            f"{max(values) * 1e3:.0f} ms |"
        )
    if THEIRS in imports:
        ratio = statistics.median(imports[THEIRS]) / statistics.median(imports[OURS])
        print(f"\nimport: reward-kit 0.4.1 / ours = {ratio:.1f}x")

    print(
        f"\n@reward_function overhead over the plain function, µs per call, 2 dict messages in, "
        f"EvaluateResult out (median of {args.rounds} rounds)"
    )
    header = " | ".join(sides)
    print(f"| `messages` annotation | {header} |" + (" ratio |" if THEIRS in sides else ""))
    print("|---|" + "---|" * (len(sides) + (THEIRS in sides)))
    for case, label in CASES.items():
        cells = [statistics.median(calls[name][case]) for name in sides]
        row = f"| {label} | " + " | ".join(f"{c:.2f}" for c in cells) + " |"
        if THEIRS in sides:
            row += f" {cells[1] / cells[0]:.1f}x |"
        print(row)


def _ms(values: list[float]) -> str:
    return f"**{statistics.median(values) * 1e3:.0f} ms**"


if __name__ == "__main__":
    main()
