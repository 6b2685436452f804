"""Peak RSS, wall and CPU time of `rewardkit report` on results files of 10k, 100k, 1M rows.

    .venv/bin/python benchmarks/report_memory.py [ROWS ...] [--html] [--dir DIR]

Writes (once, then reuses from DIR, default `$TMPDIR/rewardkit-report-bench`) a `rewardkit
score` results file per size: groups of 8 samples, 3 judges (`correct` 0/1, `format` mostly
1, `quality` a float), a reward composed of them, one invalid line in 50, as `score` writes
them. Each `rewardkit report FILE --pass-threshold 0.75` (a sample passes when it is correct
and well formatted; with `--html`, `--out FILE.html` too) runs in a fresh process; its peak
RSS and CPU time are the kernel's figures from `wait4`, taken by a small launcher so that
this script's own size never enters them. Prints one row per size and the ratio of the
largest size's peak RSS to the smallest's (the issue asks for at most 1.2).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (10_000, 100_000, 1_000_000)
GROUP = 8
_LAUNCHER = (
    "import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL);"
    " _, status, usage = os.wait4(p.pid, 0);"
    " print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, usage.ru_utime + usage.ru_stime)"
)


def write_results(path: Path, rows: int, seed: int = 0) -> None:
    """`rows` result lines in groups of `GROUP`, the way `rewardkit score` writes them."""
    rng = random.Random(seed)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as out:
        for line in range(1, rows + 1):
            group = f"prompt-{(line - 1) // GROUP:07d}"
            row: dict[str, object] = {"id": f"sample-{line:08d}", "line": line, "group": group}
            if line % 50 == 0:
                row |= {"reward": None, "valid": False, "judges": {}}
                row["error"] = "the reward function raised ValueError: bad answer"
            else:
                correct = float(rng.random() < 0.4)
                fmt = float(rng.random() < 0.97)
                quality = round(rng.betavariate(2, 3), 4)
                reward = round((2 * correct + fmt + quality) / 4, 6)
                judges = {"correct": correct, "format": fmt, "quality": quality}
                row |= {"reward": reward, "valid": True, "judges": judges}
            out.write(json.dumps(row) + "\n")
    tmp.rename(path)


def measure(cmd: list[str]) -> tuple[int, float, float, float]:
    """(exit code, wall seconds, CPU seconds, peak RSS in MiB) of `cmd` in a fresh process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *cmd], capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - start
    code, rss_kib, cpu = done.stdout.split()
    return int(code), wall, float(cpu), int(rss_kib) / 1024


def main(argv: list[str]) -> None:
    html = "--html" in argv
    folder = Path(tempfile.gettempdir()) / "rewardkit-report-bench"
    if "--dir" in argv:
        folder = Path(argv[argv.index("--dir") + 1])
        argv = argv[: argv.index("--dir")] + argv[argv.index("--dir") + 2 :]
    sizes = [int(a.replace("_", "")) for a in argv if a.replace("_", "").isdigit()] or SIZES
    folder.mkdir(parents=True, exist_ok=True)
    print(f"rewardkit report{' --out' if html else ''}: groups of {GROUP}, 3 judges")
    print(f"{'rows':>10} {'MiB file':>9} {'wall s':>7} {'CPU s':>7} {'peak RSS MiB':>13}")
    peaks = []
    for rows in sizes:
        path = folder / f"results-{rows}.jsonl"
        if not path.exists():
            write_results(path, rows)
        cmd = [sys.executable, "-m", "rewardkit", "report", str(path), "--pass-threshold", "0.75"]
        if html:
            cmd += ["--out", str(folder / f"report-{rows}.html")]
        code, wall, cpu, rss = measure(cmd)
        if code != 0:
            raise SystemExit(f"rewardkit report exited {code} on {path}")
        peaks.append(rss)
        size = os.path.getsize(path) / (1 << 20)
        print(f"{rows:>10,} {size:>9.1f} {wall:>7.2f} {cpu:>7.2f} {rss:>13.1f}")
    if len(peaks) > 1:
        print(f"peak RSS, largest / smallest: {peaks[-1] / peaks[0]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
