"""`rewardkit eval` streams `cases.jsonl` as cases finish and resumes from it: a run killed
half-way and run again ends with the files of a run never stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rewardkit.evalyaml._case_log import CASES_FILE

SUITE = """\
name: resume
dataset: {path: cases}
judges:
  - name: answered
    builtin: files_exist
    arguments: {paths: [answer.txt]}
  - name: short
    check: |
      import os, time
      with open(os.environ["CALLS"], "a") as calls:
          calls.write(outputs["case_id"] + "\\n")
      time.sleep(float(outputs["files"].get("sleep.txt", "0")))
      if os.path.exists(os.environ["BREAK"]) and outputs["case_id"].endswith("3"):
          raise RuntimeError("broken for now")
      return len(outputs["files"].get("answer.txt", "")) <= 3
  - name: length
    check: "return min(1.0, len(outputs['files'].get('answer.txt', '')) / 8), 'scaled'"
    score_range: [0, 1]
"""


def project(tmp_path: Path, cases: int, slow_from: int) -> Path:
    """A suite of `cases` cases; those from `slow_from` on take 0.1 s in a judge."""
    (tmp_path / "eval.yaml").write_text(SUITE)
    for i in range(cases):
        case = tmp_path / "cases" / f"c-{i:02d}"
        case.mkdir(parents=True)
        if i % 4:
            (case / "answer.txt").write_text("x" * (i % 7))
        if i >= slow_from:
            (case / "sleep.txt").write_text("0.1")
    return tmp_path / "eval.yaml"


def command(eval_yaml: Path, out: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "rewardkit", "eval", str(eval_yaml), "--out", str(out),
            "--no-progress", *flags]  # fmt: skip


def run(eval_yaml: Path, out: Path, calls: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"CALLS": str(calls), "BREAK": str(eval_yaml.parent / "BREAK")}
    cmd = command(eval_yaml, out, *flags)
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def same_outputs(a: Path, b: Path) -> None:
    for name in ("summary.json", "summary.yaml", CASES_FILE):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_a_killed_run_resumes_to_the_summary_of_an_uninterrupted_one(tmp_path: Path) -> None:
    eval_yaml = project(tmp_path, cases=24, slow_from=12)  # two chunks of 12: fast, slow
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    env = os.environ | {"CALLS": str(tmp_path / "calls-1"), "BREAK": str(tmp_path / "BREAK")}
    cmd = command(eval_yaml, killed, "--max-concurrent", "2")
    with subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL) as first:
        deadline = time.monotonic() + 60
        while len(lines(killed / CASES_FILE)) < 12 and time.monotonic() < deadline:
            time.sleep(0.01)
        first.send_signal(signal.SIGKILL)  # its worker processes die with it
    written = (killed / CASES_FILE).read_text().splitlines(keepends=True)
    done = {json.loads(line)["case_id"] for line in written if line.endswith("\n")}
    assert 12 <= len(done) < 24, "killed before the slow chunk ended"
    assert not (killed / "summary.json").exists()
    with (killed / CASES_FILE).open("a") as log:  # a write cut short by the kill
        log.write('{"case_id": "c-20", "reward": 0.')

    resumed = run(eval_yaml, killed, tmp_path / "calls-2", "--max-concurrent", "2")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(done)} of 24 cases already in" in resumed.stderr
    again = [f"c-{i:02d}" for i in range(24) if f"c-{i:02d}" not in done]
    assert sorted(lines(tmp_path / "calls-2")) == again, "only the cases not written"
    assert run(eval_yaml, whole, tmp_path / "calls-3").returncode == 0
    same_outputs(killed, whole)
    summary = json.loads((whole / "summary.json").read_text())
    assert list(summary["per_case"]) == [f"c-{i:02d}" for i in range(24)]
    assert summary["reward"]["cases"] == 24


def test_retry_invalid_scores_again_only_the_cases_that_errored(tmp_path: Path) -> None:
    eval_yaml = project(tmp_path, cases=16, slow_from=16)
    out, clean = tmp_path / "out", tmp_path / "clean"
    (tmp_path / "BREAK").touch()
    assert run(eval_yaml, out, tmp_path / "calls-1").returncode == 3  # c-03, c-13 errored
    (tmp_path / "BREAK").unlink()

    kept = run(eval_yaml, out, tmp_path / "calls-2")
    assert kept.returncode == 3, "a resumed run keeps the errors it finds"
    assert lines(tmp_path / "calls-2") == []
    retried = run(eval_yaml, out, tmp_path / "calls-3", "--retry-invalid")
    assert retried.returncode == 0, retried.stderr
    assert sorted(lines(tmp_path / "calls-3")) == ["c-03", "c-13"]
    assert run(eval_yaml, clean, tmp_path / "calls-4").returncode == 0
    same_outputs(out, clean)


def test_a_changed_suite_scores_every_case_again(tmp_path: Path) -> None:
    eval_yaml = project(tmp_path, cases=3, slow_from=3)
    out = tmp_path / "out"
    assert run(eval_yaml, out, tmp_path / "calls-1").returncode == 0
    eval_yaml.write_text(SUITE + "  - {name: extra, check: 'return True'}\n")
    assert run(eval_yaml, out, tmp_path / "calls-2").returncode == 0
    assert sorted(lines(tmp_path / "calls-2")) == ["c-00", "c-01", "c-02"]
    rows = [json.loads(line) for line in lines(out / CASES_FILE)]
    assert [list(row["judges"]) for row in rows] == [["answered", "short", "length", "extra"]] * 3


@pytest.mark.parametrize("planted", ["symlink", "directory"])
def test_a_planted_results_file_is_replaced_never_followed(tmp_path: Path, planted: str) -> None:
    eval_yaml = project(tmp_path, cases=2, slow_from=2)
    out, outside = tmp_path / "out", tmp_path / "outside.txt"
    out.mkdir()
    outside.write_text("precious")
    if planted == "symlink":
        (out / CASES_FILE).symlink_to(outside)
    else:
        (out / CASES_FILE / "inner").mkdir(parents=True)
    done = run(eval_yaml, out, tmp_path / "calls")
    assert done.returncode == 0, done.stderr
    assert outside.read_text() == "precious"
    assert not (out / CASES_FILE).is_symlink()
    assert len(lines(out / CASES_FILE)) == 2
