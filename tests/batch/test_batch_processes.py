"""`rewardkit score --backend process`: the former name of the local backend's worker processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rewardkit.cli import main


def _score(tests: Path, rollouts: Path, out: Path, *backend: str) -> int:
    argv = ["score", str(rollouts), "--config", str(tests), "--out", str(out), "--workers", "2"]
    return main([*argv, "--no-progress", *backend])


def _rows(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return sorted(rows, key=lambda row: json.dumps(row["id"]))


def test_process_writes_the_same_results_as_local(
    job: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests, rollouts = job
    assert _score(tests, rollouts, tmp_path / "local.jsonl") == 1
    local_err = capsys.readouterr().err
    assert _score(tests, rollouts, tmp_path / "proc.jsonl", "--backend", "process") == 1
    captured = capsys.readouterr()
    assert "27 scored, 1 invalid, 0 already done, 2 malformed" in captured.out
    for problem in (f"{rollouts}:28: not valid JSON", f"{rollouts}:29: must be a JSON object"):
        assert problem in local_err
        assert problem in captured.err
    rows = _rows(tmp_path / "proc.jsonl")
    assert rows == _rows(tmp_path / "local.jsonl")
    assert {row["reward"] for row in rows} == {1.0, 0.5, 0.0, None}


def test_a_run_killed_mid_line_resumes(
    job: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests, rollouts = job
    assert _score(tests, rollouts, tmp_path / "all.jsonl") == 1
    everything = _rows(tmp_path / "all.jsonl")
    done = (tmp_path / "all.jsonl").read_text().splitlines()[:10]
    out = tmp_path / "resumed.jsonl"
    out.write_text("\n".join(done) + '\n{"id": "s', encoding="utf-8")  # killed mid-line
    assert _score(tests, rollouts, out) == 1
    lines = out.read_text().splitlines()
    assert len(lines) == 10 + 1 + 18 + 2  # the 18 left, the cut one included, 2 malformed
    out.write_text("\n".join(lines[:10] + lines[11:]) + "\n")
    assert _rows(out) == everything
    capsys.readouterr()
    assert _score(tests, rollouts, out) == 1
    assert "0 scored, 0 invalid, 28 already done, 2 malformed" in capsys.readouterr().out
