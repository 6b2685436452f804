"""Do concurrency limits hold? 10 criteria that each sleep 1 s, under --mcp 0 / 8 / 2.

`0` means unlimited: all ten should finish in about 1 s. RewardKit 0.2.3 runs criteria on
the default thread pool, which caps "unlimited" at min(32, cpus + 4) threads.

    python benchmarks/concurrency.py [--runs 3] [--harbor /tmp/harborvenv/bin/rewardkit]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKS = "import rewardkit as rk\n" + "".join(
    f"rk.command_succeeds('sleep 1', name='sleep{i}')\n" for i in range(10)
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    default_harbor = os.environ.get("HARBOR_REWARDKIT", "/tmp/harborvenv/bin/rewardkit")
    parser.add_argument("--harbor", default=default_harbor)
    args = parser.parse_args()
    commands = {"rewardkit (ours)": str(Path(sys.executable).parent / "rewardkit")}
    if Path(args.harbor).exists():
        commands["RewardKit 0.2.3"] = args.harbor
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    print(f"10 x `sleep 1` criteria, wall seconds (median of {args.runs})")
    print("| command | --mcp 0 | --mcp 8 | --mcp 2 |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        tests = Path(tmp) / "tests"
        tests.mkdir()
        (tests / "checks.py").write_text(CHECKS)
        for name, binary in commands.items():
            cells = []
            for limit in (0, 8, 2):
                times = []
                for _ in range(args.runs):
                    start = time.perf_counter()
                    subprocess.run(
                        [
                            binary,
                            str(tests),
                            "--workspace",
                            tmp,
                            "--output",
                            f"{tmp}/o/r.json",
                            "--mcp",
                            str(limit),
                        ],
                        capture_output=True,
                        env=env,
                        check=True,
                    )
                    times.append(time.perf_counter() - start)
                cells.append(f"{statistics.median(times):.2f}")
            print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
