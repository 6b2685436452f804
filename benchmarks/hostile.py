"""The hostile tests-dir corpus as a table: wall time, peak RSS and outputs per attack.

Runs each attack of `tests/hostile/_tests_dir_attacks.py` through `rewardkit TESTS` (this
checkout, or another one with `--src OTHER/src`, to compare before and after a change):

    python benchmarks/hostile.py [--src /tmp/rk-before/src] [--limit 60]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hostile._measure import measure, rewardkit_cmd
from tests.hostile._tests_dir_attacks import ATTACKS, SECRET, build, remove_tree


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", help="import rewardkit from this src directory instead")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds before a kill")
    args = parser.parse_args()
    env = dict(os.environ)
    if args.src:
        env["PYTHONPATH"] = args.src
    print("| attack | exit | wall s | peak RSS MB | reward.json | secret leaked |")
    print("|---|---|---|---|---|---|")
    for attack in ATTACKS:
        root = Path(tempfile.mkdtemp(prefix="rewardkit-hostile-"))
        try:
            tests, ws = build(root, attack)
            flags = attack.flags if not args.src else ()
            out = root / "out" / "reward.json"
            cmd = rewardkit_cmd(tests, "--workspace", ws, "--output", "out/reward.json", *flags)
            run = measure(cmd, limit_s=args.limit, cwd=root, env=env)
            written = out.is_file()
            texts = [run.stdout, run.stderr] + [
                p.read_text(errors="replace") for p in out.parent.glob("*.json")
            ]
            leaked = any(SECRET in text for text in texts)
            code = "killed" if run.returncode is None else run.returncode
            print(
                f"| {attack.name} | {code} | {run.wall_s:.2f} | {run.peak_rss_mb:.0f} | "
                f"{'yes' if written else 'no'} | {'yes' if leaked else 'no'} |",
                flush=True,
            )
        finally:
            remove_tree(root)


if __name__ == "__main__":
    main()
