"""`rewardkit score --backend process`: the same results file as the local backend, in processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rewardkit._errors import ConfigError
from rewardkit.batch import _processes
from rewardkit.batch._chunks import Loader
from rewardkit.batch._processes import score_jsonl_processes
from rewardkit.cli import main


def _score(tests: Path, rollouts: Path, out: Path, *backend: str) -> int:
    argv = ["score", str(rollouts), "--config", str(tests), "--out", str(out), "--workers", "2"]
    return main([*argv, "--no-progress", *backend])


def _rows(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return sorted(rows, key=lambda row: json.dumps(row["id"]))


def test_processes_write_the_same_results_as_local(
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


def test_processes_resume(
    job: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tests, rollouts = job
    assert _score(tests, rollouts, tmp_path / "local.jsonl") == 1
    everything = _rows(tmp_path / "local.jsonl")
    done = (tmp_path / "local.jsonl").read_text().splitlines()[:10]
    out = tmp_path / "proc.jsonl"
    out.write_text("\n".join(done) + '\n{"id": "s', encoding="utf-8")  # killed mid-line
    monkeypatch.setenv("REWARDKIT_BACKEND", "process")
    assert _score(tests, rollouts, out) == 1
    lines = out.read_text().splitlines()
    assert len(lines) == 10 + 1 + 18 + 2  # the 18 left, the cut one included, 2 malformed
    out.write_text("\n".join(lines[:10] + lines[11:]) + "\n")
    assert _rows(out) == everything
    capsys.readouterr()

    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("no process starts when nothing is left to score")

    monkeypatch.setattr(_processes, "ProcessPoolExecutor", no_pool)
    assert _score(tests, rollouts, out) == 1
    assert "0 scored, 0 invalid, 28 already done, 2 malformed" in capsys.readouterr().out


def test_a_config_error_exits_2_before_any_process_starts(
    job: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, rollouts = job
    config = tmp_path / "eval.yaml"
    config.write_text("judges:\n  - {name: x, module: nowhere, function: f}\n")

    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("no process may start")

    monkeypatch.setattr(_processes, "ProcessPoolExecutor", no_pool)
    assert _score(config, rollouts, tmp_path / "o.jsonl", "--backend", "process") == 2
    assert "cannot import module 'nowhere'" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_a_process_that_cannot_load_the_config_is_a_config_error(
    job: tuple[Path, Path], tmp_path: Path
) -> None:
    _, rollouts = job
    with pytest.raises(ConfigError, match="could not load the config, or died"):
        score_jsonl_processes(
            tmp_path / "nowhere",
            rollouts,
            tmp_path / "o.jsonl",
            workers=1,
            on_bad_line=lambda number, problem: None,
        )


def test_workers_must_be_at_least_1(job: tuple[Path, Path], tmp_path: Path) -> None:
    tests, rollouts = job
    with pytest.raises(ConfigError, match=r"--workers must be at least 1 \(got 0\)"):
        score_jsonl_processes(tests, rollouts, tmp_path / "o.jsonl", workers=0, on_bad_line=print)


def test_a_process_returns_result_rows(
    job: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tests, _ = job
    monkeypatch.setattr(_processes, "_scorer", Loader(str(tests), None, 2).load())
    chunk = [(("a", 1, "g"), {"workspace": str(tmp_path / "yes")}), ((7, 2, None), {"typo": 1})]
    rows = _processes._score(chunk)
    assert rows[0] == {
        "id": "a",
        "line": 1,
        "group": "g",
        "reward": 0.5,
        "valid": True,
        "judges": rows[0]["judges"],
    }
    assert rows[1]["reward"] is None
    assert "typo" in rows[1]["error"]
