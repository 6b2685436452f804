"""Cold start: `rewardkit` on a tests dir with 10 programmatic criteria, ours vs RewardKit 0.2.3;
and `rewardkit eval` of a one-case eval.yaml suite with one `check:` judge.

The commands of each table run alternately in the same session (so machine noise hits them
alike); the script reports medians and ratios, and checks that `import rewardkit` loads no
LiteLLM. The eval table times, beside the run, our Harbor front door on a one-criterion tests
dir and the floor: a bare interpreter importing the outside modules the eval run needs
(PyYAML, argparse, json, pathlib, dataclasses, tempfile, pickle, threading, queue), which no
code of ours can go below on the same host.

    python benchmarks/cold_start.py [--runs 7] [--harbor /tmp/harborvenv/bin/rewardkit]
        [--before OTHER_CHECKOUT/src]

Harbor's RewardKit needs Python >= 3.12:
    PYENV_VERSION=3.12.1 python3.12 -m venv /tmp/harborvenv
    /tmp/harborvenv/bin/pip install 'harbor-rewardkit==0.2.3'
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CHECKS = """\
import rewardkit as rk

rk.file_exists("out.txt")
rk.file_not_exists("junk.txt")
rk.file_contains("out.txt", "hello")
rk.file_contains_regex("out.txt", r"h.llo")
rk.file_matches("out.txt", "hello world")
rk.diff_ratio("out.txt", "hello world!")
rk.json_key_equals("result.json", "status", "ok")
rk.json_path_equals("result.json", "data.items.0", 1)
rk.csv_cell_equals("table.csv", 1, "name", "bob")
rk.command_succeeds("true")
"""


def make_task(root: Path) -> tuple[Path, Path]:
    tests, ws = root / "tests", root / "ws"
    tests.mkdir()
    ws.mkdir()
    (tests / "checks.py").write_text(CHECKS)
    (ws / "out.txt").write_text("hello world")
    (ws / "result.json").write_text('{"status": "ok", "data": {"items": [1, 2]}}')
    (ws / "table.csv").write_text("name,age\nalice,30\nbob,25\n")
    return tests, ws


EVAL_YAML = """\
name: one
judges:
  - name: said_hi
    check: return 'hi' in outputs['stdout']
"""
FLOOR = "import yaml, argparse, json, pathlib, dataclasses, tempfile, pickle, threading, queue"


def make_eval(root: Path) -> tuple[Path, Path, Path]:
    """A one-case eval.yaml suite, and a one-criterion tests dir with its workspace."""
    (root / "cases" / "c1").mkdir(parents=True)
    (root / "cases" / "c1" / "stdout.log").write_text("hi there")
    (root / "eval.yaml").write_text(EVAL_YAML)
    (root / "tests").mkdir()
    (root / "tests" / "check.py").write_text(
        'import rewardkit as rk\n\nrk.file_exists("out.txt")\n'
    )
    (root / "ws").mkdir()
    (root / "ws" / "out.txt").write_text("hi")
    return root / "eval.yaml", root / "tests", root / "ws"


def time_once(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed ({done.returncode}):\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--harbor", default=os.environ.get("HARBOR_REWARDKIT", "/tmp/harborvenv/bin/rewardkit")
    )
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also time another checkout of ours (its src/ directory), e.g. before a change",
    )
    args = parser.parse_args()

    ours_bin = Path(sys.executable).parent / "rewardkit"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # spare Harbor a network retry
    with tempfile.TemporaryDirectory() as tmp:
        tests, ws = make_task(Path(tmp))
        commands = {"rewardkit (ours)": ([str(ours_bin)], env)}
        if args.before:
            before_env = {**env, "PYTHONPATH": args.before}
            commands["rewardkit (before)"] = ([str(ours_bin)], before_env)
        if Path(args.harbor).exists():
            commands["RewardKit 0.2.3"] = ([args.harbor], env)
        else:
            print(f"(Harbor RewardKit not found at {args.harbor}; measuring ours only)")
        task = [str(tests), "--workspace", str(ws), "--output"]
        runs = {name: (_argv(cmd, task), cmd_env) for name, (cmd, cmd_env) in commands.items()}
        times = alternate(runs, args.runs, Path(tmp))

    title = f"cold start, 10 programmatic criteria, {args.runs} runs each (alternating), seconds"
    medians = table(title, times)
    if "RewardKit 0.2.3" in medians:
        ratio = medians["RewardKit 0.2.3"] / medians["rewardkit (ours)"]
        print(f"\nratio (RewardKit 0.2.3 / ours): {ratio:.1f}x")

    probe = "import sys, rewardkit; print('litellm' in sys.modules, len(sys.modules))"
    pythons = {"rewardkit (ours)": sys.executable}
    if "RewardKit 0.2.3" in commands:
        pythons["RewardKit 0.2.3"] = str(Path(args.harbor).parent / "python")
    for name, python in pythons.items():
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True, env=env)
        litellm, modules = done.stdout.split()
        print(f"`import rewardkit` with {name}: litellm loaded={litellm}, {modules} modules")

    eval_start(ours_bin, args.runs, args.before, env)


def eval_start(ours_bin: Path, runs: int, before: str | None, env: dict[str, str]) -> None:
    """The eval table: a one-case suite beside the Harbor front door and the import floor."""
    ours = [str(ours_bin)]
    with tempfile.TemporaryDirectory() as tmp:
        eval_yaml, tests, ws = make_eval(Path(tmp))
        suite = ["eval", str(eval_yaml), "--cases", str(eval_yaml.parent / "cases"), "--out"]
        commands: dict[str, Run] = {
            "eval, one case (ours)": (_argv(ours, suite), env),
            "tests dir, one criterion (ours)": (
                _argv(ours, [str(tests), "--workspace", str(ws), "--output"]),
                env,
            ),
            "floor (imports only)": (lambda out: [sys.executable, "-c", FLOOR], env),
        }
        if before:
            commands["eval, one case (before)"] = (
                _argv(ours, suite),
                {**env, "PYTHONPATH": before},
            )
        times = alternate(commands, runs, Path(tmp))

    title = f"one-case eval suite, one check judge, {runs} runs each (alternating), seconds"
    medians = table("\n" + title, times)
    ours_s, floor = medians["eval, one case (ours)"], medians["floor (imports only)"]
    print(
        f"\neval / tests dir: {ours_s / medians['tests dir, one criterion (ours)']:.2f}x;"
        f" eval - floor: {1000 * (ours_s - floor):.0f} ms"
    )


Run = tuple[Callable[[str], list[str]], dict[str, str]]
"""A command (given the output path it writes) and its environment."""


def _argv(cmd: list[str], args: list[str]) -> Callable[[str], list[str]]:
    return lambda out: [*cmd, *args, out]


def alternate(commands: dict[str, Run], runs: int, tmp: Path) -> dict[str, list[float]]:
    """Seconds of each command's runs, alternating, after one warm-up each (page cache,
    .pyc files) that is not counted."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(-1, runs):
        for n, (name, (argv, env)) in enumerate(commands.items()):
            elapsed = time_once(argv(f"{tmp}/out/{i}/{n}/reward.json"), env)
            if i >= 0:
                times[name].append(elapsed)
    return times


def table(title: str, times: dict[str, list[float]]) -> dict[str, float]:
    """Print each command's median, min and max; return the medians."""
    print(title)
    print("| command | median | min | max |")
    print("|---|---|---|---|")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"| {name} | {medians[name]:.3f} | {min(values):.3f} | {max(values):.3f} |")
    return medians


if __name__ == "__main__":
    main()
