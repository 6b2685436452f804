"""The jail's cost: a trivial Python program, jailed vs bare, side by side in one run.

Four ways to run `print(1)` as a program, interleaved round by round so machine noise hits
all alike, each reported as the median wall time per execution:

- `bare`: `subprocess.run([python, "-I", "main.py"])`, no limits at all (the yardstick);
- `previous`: the `run_program` of rewardkit before the jail (a launcher that sets limits
  and execs `python -I`), loaded from git history when this is a checkout;
- `jailed`: `rewardkit.jail.run_python` with every layer this kernel offers;
- `landlock`: the same without namespaces (what Docker's default profile allows).

Then throughput: jailed executions per second with 1, 2 and 4 threads.

    python benchmarks/jail.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path

PROGRAM = "print(1)\n"
PREVIOUS = "1991cb1:src/rewardkit/functions/builtin/_sandbox.py"


def _bare() -> Callable[[], None]:
    work = Path(tempfile.mkdtemp())
    (work / "main.py").write_text(PROGRAM)

    def run() -> None:
        out = subprocess.run([sys.executable, "-I", "main.py"], cwd=work, capture_output=True)
        assert out.stdout == b"1\n"

    return run


def _previous() -> Callable[[], None] | None:
    root = Path(__file__).resolve().parents[1]
    shown = subprocess.run(["git", "show", PREVIOUS], cwd=root, capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    module = types.ModuleType("previous_sandbox")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(shown.stdout, PREVIOUS, "exec"), module.__dict__)  # our own history
    argv = [sys.executable, "-I", "main.py"]

    def run() -> None:
        assert module.run_program(argv, files={"main.py": PROGRAM}).stdout == "1\n"

    return run


def _jailed(layers: list[str]) -> Callable[[], None]:
    from rewardkit.jail import Jail

    jail = Jail(layers=layers)

    def run() -> None:
        assert jail.run(python="main.py", files={"main.py": PROGRAM}).stdout == "1\n"

    run()  # the zygote starts once per process, outside the timing
    return run


def _throughput(run: Callable[[], None], threads: int, seconds: float = 3.0) -> float:
    done = [0] * threads
    stop = time.perf_counter() + seconds

    def loop(i: int) -> None:
        while time.perf_counter() < stop:
            run()
            done[i] += 1

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(done) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    ways: dict[str, Callable[[], None]] = {"bare": _bare()}
    previous = _previous()
    if previous is not None:
        ways["previous"] = previous
    ways["jailed"] = _jailed(["namespaces", "landlock", "seccomp"])
    ways["landlock"] = _jailed(["landlock", "seccomp"])
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, run in ways.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    bare = statistics.median(times["bare"])
    print(f"{'way':<10} {'median ms':>10} {'vs bare':>10}")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"{name:<10} {median * 1000:>10.2f} {(median - bare) * 1000:>+9.2f}")
    for threads in (1, 2, 4):
        rate = _throughput(ways["jailed"], threads)
        print(f"jailed, {threads} thread(s): {rate:,.0f} executions/s")
    print(f"bare, 2 threads: {_throughput(ways['bare'], 2):,.0f} executions/s")


if __name__ == "__main__":
    main()
