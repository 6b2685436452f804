"""`rewardkit score` against hostile rollouts and rewards, through the real command.

Each case runs the CLI in its own session and asserts bounded wall time, a bounded peak RSS
(the largest of the command and every process it reaped), the exit code, and a results file
where every other rollout is scored.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.hostile._measure import measure, rewardkit_cmd

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Linux limits and /proc")

HOSTILE_JUDGES = """\
import os, signal, time
from rewardkit import reward_function

@reward_function
def judge(messages, **kwargs):
    text = messages[-1]["content"]
    if text == "loop":
        while True:
            pass
    if text == "sleep":
        time.sleep(600)
    if text == "exit":
        os._exit(3)
    if text == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if text == "hog":
        return len(b"x" * (6 << 30)) > 0  # over the 4 GiB default memory cap
    return 1.0
"""


def _tests_dir(root: Path) -> tuple[Path, Path]:
    tests, ws = root / "tests", root / "ws"
    tests.mkdir()
    ws.mkdir()
    (tests / "checks.py").write_text("import rewardkit as rk\nrk.file_contains('a.txt', 'yes')\n")
    (ws / "a.txt").write_text("yes")
    return tests, ws


def _eval_yaml(root: Path) -> Path:
    (root / "hostile_judges.py").write_text(HOSTILE_JUDGES)
    config = root / "eval.yaml"
    config.write_text(
        "judges:\n  - {name: judge, module: hostile_judges, function: judge, score_range: [0, 1]}\n"
    )
    return config


def _rows(out: Path) -> dict[int, dict[str, Any]]:
    return {row["line"]: row for row in map(json.loads, out.read_text().splitlines())}


def _score(rollouts: Path, config: Path, out: Path, *flags: str) -> list[str]:
    return rewardkit_cmd("score", rollouts, "--config", config, "--out", out, *flags)


BAD_LINES = {
    "deep nesting": (b"[" * 100_000, "nested deeper than 100 levels (the cap)"),
    "over-size": (b'{"completion": "' + b"x" * (9 << 20) + b'"}', "longer than 8,388,608 bytes"),
    "many values": (b"[" + b"0," * 1_000_000 + b"0]", "1,000,001 commas and brackets"),
    "invalid JSON": (b'{"completion": ', "not valid JSON"),
    "not UTF-8": (b'{"completion": "\xff\xfe"}', "not valid JSON"),
    "non-object": (b'["completion"]', "must be a JSON object (got list)"),
}


@pytest.mark.parametrize("backend", ["local", "process", "ray"])
def test_lines_that_cannot_be_parsed_are_recorded_and_the_rest_scored(
    tmp_path: Path, backend: str
) -> None:
    if backend == "ray":
        pytest.importorskip("ray")
    config = _eval_yaml(tmp_path)
    good = b'{"completion": "ok"}'
    lines = [good]
    for raw, _ in BAD_LINES.values():
        lines += [raw, good]
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "results.jsonl"
    flags = ("--backend", backend, "--workers", "2", "--max-line-mib", "8")
    run = measure(_score(rollouts, config, out, *flags), limit_s=120)
    assert run.returncode == 1, run.stderr
    assert run.wall_s < (90 if backend == "ray" else 30)
    assert run.peak_rss_mb < (600 if backend == "ray" else 400), run.peak_rss_mb
    rows = _rows(out)
    assert len(rows) == len(lines)
    for number in range(1, len(lines) + 1, 2):
        assert rows[number]["reward"] == 1.0, rows[number]
    for number, (_, problem) in zip(range(2, len(lines), 2), BAD_LINES.values(), strict=True):
        row = rows[number]
        assert (row["id"], row["valid"], row["reward"]) == (number, False, None)
        assert problem in row["error"]
        assert f"{rollouts}:{number}: " in run.stderr
    assert f"7 scored, 0 invalid, 0 already done, {len(BAD_LINES)} malformed" in run.stdout


def test_a_2_gib_line_without_a_newline_is_never_read_whole(tmp_path: Path) -> None:
    config = _eval_yaml(tmp_path)
    rollouts = tmp_path / "r.jsonl"
    with rollouts.open("wb") as f:
        f.write(b'{"completion": "ok"}\n' * 3)
        f.truncate(f.tell() + (2 << 30))  # sparse: 2 GiB of NUL bytes, no newline
    out = tmp_path / "results.jsonl"
    try:
        run = measure(_score(rollouts, config, out, "--no-progress"), limit_s=120)
    finally:
        rollouts.unlink()
    assert run.returncode == 1, run.stderr
    assert run.wall_s < 60
    assert run.peak_rss_mb < 400, run.peak_rss_mb
    rows = _rows(out)
    assert [rows[n]["reward"] for n in (1, 2, 3)] == [1.0, 1.0, 1.0]
    assert rows[4]["valid"] is False
    assert "the line is longer than 67,108,864 bytes (the cap)" in rows[4]["error"]


def test_repeated_ids_are_refused_and_the_rest_scored(tmp_path: Path) -> None:
    tests, ws = _tests_dir(tmp_path)
    lines = [json.dumps({"id": i % 5 if i != 7 else 2, "workspace": str(ws)}) for i in range(9)]
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results.jsonl"
    run = measure(_score(rollouts, tests, out), limit_s=60)
    assert run.returncode == 2
    assert run.wall_s < 30
    assert run.peak_rss_mb < 400
    assert run.stderr == (
        f"rewardkit score: error: {rollouts}: id 0 is on lines 1 and 6 (3 more repeated ids). "
        "Give every rollout a unique 'id' (a line without one has its line number as id); the "
        "lines with a repeated id were not scored, the others were.\n"
    )
    assert sorted(json.loads(line)["id"] for line in out.read_text().splitlines()) == [
        0,
        1,
        2,
        3,
        4,
    ]


def test_every_rollout_invalid_exits_3_with_a_summary(tmp_path: Path) -> None:
    tests, _ = _tests_dir(tmp_path)
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text('{"completion": "no workspace"}\n' * 3 + "[1]\n")
    out = tmp_path / "results.jsonl"
    run = measure(_score(rollouts, tests, out), limit_s=60)
    assert run.returncode == 3
    assert run.wall_s < 30
    assert run.peak_rss_mb < 400
    assert "0 scored, 3 invalid, 0 already done, 1 malformed" in run.stdout
    assert (
        "rewardkit score: error: not one rollout has a valid reward (e.g. line 1: sample has "
        "no 'workspace'" in run.stderr
    )
    assert [row["valid"] for row in _rows(out).values()] == [False] * 4


@pytest.mark.parametrize(
    "flags",
    [
        ("--backend", "local"),
        ("--backend", "process", "--memory-mib", "256"),
    ],
    ids=["local", "process"],
)
def test_hanging_exiting_and_memory_hungry_samples_cost_only_their_deadline(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    config = _eval_yaml(tmp_path)
    kinds = ["ok", "loop", "ok", "loop", "exit", "ok", "hog", "loop", "kill", "ok"]
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text("".join(json.dumps({"completion": k}) + "\n" for k in kinds))
    out = tmp_path / "results.jsonl"
    run = measure(
        _score(rollouts, config, out, "--workers", "2", "--deadline", "1", *flags), limit_s=60
    )
    assert run.returncode == 1, run.stderr  # some rollouts are invalid (each with its error)
    assert run.wall_s < 30
    assert run.peak_rss_mb < 400, run.peak_rss_mb  # the hog never got its 6 GiB
    rows = _rows(out)
    errors = {  # the judge's own worker process (eval.yaml judges) may be the one to say it
        "loop": "deadline of 1s exceeded",
        "exit": "code 3",
        "kill": "killed by SIGKILL",
        "hog": "MemoryError",
    }
    for number, kind in enumerate(kinds, start=1):
        row = rows[number]
        if kind == "ok":
            assert row["reward"] == 1.0, row
        else:
            assert row["valid"] is False
            assert errors[kind] in row["error"], row


KILL_HARNESS = """
import ctypes, json, os, signal, subprocess, sys, time

def children(parent):
    found = []
    for entry in os.listdir("/proc"):
        try:
            fields = open(f"/proc/{entry}/stat", "rb").read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent and fields[0] != b"Z":
            found.append(int(entry))
    return found

def descendants(root):
    found, todo = [], [root]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found

def reap():
    while True:
        try:
            if not os.waitpid(-1, os.WNOHANG)[0]:
                return
        except ChildProcessError:
            return

cmd, out, rows = json.loads(sys.argv[1])
ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: whatever the driver leaves is ours
driver = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
start = time.monotonic()
while not (os.path.exists(out) and len(open(out).read().splitlines()) >= rows):
    assert time.monotonic() - start < 60, "no results"
    time.sleep(0.05)
time.sleep(0.5)  # the hanging samples start
workers = len(descendants(driver.pid))
driver.kill()
driver.wait()
killed = time.monotonic()
while (left := children(os.getpid())) and time.monotonic() - killed < 3:
    reap()
    time.sleep(0.05)
seconds = time.monotonic() - killed
names = [open(f"/proc/{pid}/cmdline").read().replace("\\0", " ")[:200] for pid in left]
for pid in left:
    os.kill(pid, signal.SIGKILL)
print(json.dumps({"workers": workers, "left": names, "seconds": seconds}))
"""


@pytest.mark.parametrize(
    "flags",
    [("--backend", "process"), ("--backend", "local", "--deadline", "600")],
    ids=["process", "local-deadline"],
)
def test_workers_die_with_a_sigkilled_driver(tmp_path: Path, flags: tuple[str, ...]) -> None:
    """SIGKILL the driver mid-run; a harness that adopts orphans (a subreaper) sees every
    process the run started, whichever session it moved to, and none may outlive 3 s."""
    config = _eval_yaml(tmp_path)
    rollouts = tmp_path / "r.jsonl"
    lines = [json.dumps({"completion": k}) for k in ["sleep"] * 4 + ["ok"] * 16]
    rollouts.write_text("\n".join(lines) + "\n")  # the first chunk hangs, the rest are scored
    out = tmp_path / "results.jsonl"
    cmd = _score(rollouts, config, out, "--workers", "2", *flags)
    start = time.perf_counter()
    harness = subprocess.run(
        [sys.executable, "-c", KILL_HARNESS, json.dumps([cmd, str(out), 16])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert harness.returncode == 0, harness.stderr
    report = json.loads(harness.stdout)
    assert report["workers"] >= 2, report  # there were processes to end
    assert report["left"] == [], report
    assert report["seconds"] < 3
    assert time.perf_counter() - start < 60
    assert [row["reward"] for row in _rows(out).values()] == [1.0] * 16


def _wait_for(condition: Any, limit_s: float = 60) -> None:
    start = time.perf_counter()
    while not condition():
        assert time.perf_counter() - start < limit_s, "timed out"
        time.sleep(0.05)
