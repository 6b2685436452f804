"""`rewardkit score --backend ray`: the same results file as the local backend, on Ray actors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rewardkit.batch import _ray
from rewardkit.batch._chunks import Loader
from rewardkit.batch._ray import ChunkScorer, score_jsonl_ray
from rewardkit.cli import main
from rewardkit.core._errors import ConfigError


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False)
    yield ray
    ray.shutdown()


def _score(tests: Path, rollouts: Path, out: Path, *backend: str) -> int:
    argv = ["score", str(rollouts), "--config", str(tests), "--out", str(out), "--workers", "2"]
    return main([*argv, "--no-progress", *backend])


def _rows(out: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return sorted(rows, key=lambda row: json.dumps(row["id"]))


@pytest.mark.usefixtures("ray_cluster")
def test_ray_writes_the_same_results_as_local(
    job: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests, rollouts = job
    assert _score(tests, rollouts, tmp_path / "local.jsonl") == 1
    local_err = capsys.readouterr().err
    assert _score(tests, rollouts, tmp_path / "ray.jsonl", "--backend", "ray") == 1
    captured = capsys.readouterr()
    assert "27 scored, 1 invalid, 0 already done, 2 malformed" in captured.out
    for problem in (f"{rollouts}:28: not valid JSON", f"{rollouts}:29: must be a JSON object"):
        assert problem in local_err
        assert problem in captured.err
    ray_rows = _rows(tmp_path / "ray.jsonl")
    assert ray_rows == _rows(tmp_path / "local.jsonl")
    assert {row["reward"] for row in ray_rows} == {1.0, 0.5, 0.0, None}


@pytest.mark.usefixtures("ray_cluster")
def test_ray_resumes(
    job: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tests, rollouts = job
    assert _score(tests, rollouts, tmp_path / "local.jsonl") == 1
    everything = _rows(tmp_path / "local.jsonl")
    done = (tmp_path / "local.jsonl").read_text().splitlines()[:10]
    cut = next(r["id"] for r in everything if json.dumps(r) not in done)
    out = tmp_path / "ray.jsonl"
    out.write_text("\n".join(done) + f'\n{{"id": "{cut}", "li')  # killed mid-line
    monkeypatch.setenv("REWARDKIT_BACKEND", "ray")
    assert _score(tests, rollouts, out) == 1
    lines = out.read_text().splitlines()
    assert len(lines) == 10 + 1 + 18 + 2  # the 18 left, the cut one included, 2 malformed
    assert lines[:11] == [*done, f'{{"id": "{cut}", "li']
    out.write_text("\n".join(lines[:10] + lines[11:]) + "\n")
    assert _rows(out) == everything
    capsys.readouterr()
    assert _score(tests, rollouts, out) == 1  # nothing left: Ray is not even needed
    assert "0 scored, 0 invalid, 28 already done, 2 malformed" in capsys.readouterr().out


@pytest.mark.usefixtures("ray_cluster")
def test_a_worker_that_cannot_load_the_config_is_a_config_error(
    job: tuple[Path, Path], tmp_path: Path
) -> None:
    _, rollouts = job
    with pytest.raises(ConfigError, match="same path on every node"):
        score_jsonl_ray(
            tmp_path / "nowhere",
            rollouts,
            tmp_path / "o.jsonl",
            workers=1,
            on_bad_line=lambda number, problem: None,
        )


def test_chunk_scorer_returns_result_lines_as_dicts(job: tuple[Path, Path], tmp_path: Path) -> None:
    tests, _ = job
    chunk = [
        (("a", 1, None), {"workspace": str(tmp_path / "yes good")}),
        ((7, 2, None), {"typo": 1}),
    ]
    rows = ChunkScorer(Loader(str(tests), None, 2)).score(chunk)
    assert rows[0] == {
        "id": "a",
        "line": 1,
        "reward": 1.0,
        "valid": True,
        "judges": {"file_contains:a.txt": 1.0, "file_contains:a.txt #2": 1.0},  # two of one name
    }
    assert rows[1]["reward"] is None
    assert "typo" in rows[1]["error"]


def _no_module(name: str) -> None:
    raise ImportError(f"No module named {name!r}")


def test_without_ray_prints_the_install_line_and_exits_2(
    job: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tests, rollouts = job
    # `import ray` fails, without touching sys.modules: a Ray instance started by another
    # test may still have threads that import from it.
    monkeypatch.setattr(_ray, "importlib", SimpleNamespace(import_module=_no_module))
    assert _score(tests, rollouts, tmp_path / "o.jsonl", "--backend", "ray") == 2
    assert "pip install 'rewardkit[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()
