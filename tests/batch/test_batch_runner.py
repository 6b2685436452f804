"""`rewardkit score`: the JSONL runner's output, resume, malformed lines and config errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardkit.cli import main

QA = Path(__file__).parents[2] / "examples" / "qa-eval"


def _rollouts(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _results(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _case(n: int) -> str:
    return json.dumps({"id": f"c{n}", "workspace": str(QA / "cases" / f"case-00{n}")})


def test_scores_every_line_and_reports_malformed_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rollouts = _rollouts(
        tmp_path / "r.jsonl",
        [
            _case(1),
            "{not json",
            "",
            "[1, 2]",
            _case(2),
            '{"id": [1]}',
            '{"completion": "x", "typo": 1}',
        ],
    )
    out = tmp_path / "out" / "results.jsonl"
    code = main(["score", str(rollouts), "--config", str(QA), "--out", str(out), "--workers", "2"])
    assert code == 1  # malformed lines were reported; the rest were scored
    err = capsys.readouterr().err
    assert f"{rollouts}:2: not valid JSON" in err
    assert f"{rollouts}:4: must be a JSON object" in err
    assert f"{rollouts}:6: 'id' must be a string or an integer" in err
    rows = sorted(_results(out), key=lambda r: int(str(r["line"])))
    assert [(r["id"], r["line"], r["valid"]) for r in rows] == [
        ("c1", 1, True),
        ("c2", 5, True),
        (7, 7, False),  # no id: the line number is the id
    ]
    assert set(rows[0]) == {"id", "line", "reward", "valid", "judges"}
    assert rows[0]["judges"] == {"answered": 1.0, "correct": 1.0, "shows_work": 5.0, "concise": 1.0}
    assert rows[2]["reward"] is None
    assert "typo" in str(rows[2]["error"])


def test_resume_skips_ids_already_in_the_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1), _case(2), _case(3)])
    out = tmp_path / "results.jsonl"
    first = json.dumps({"id": "c1", "line": 1, "reward": 0.5, "valid": True, "judges": {}})
    out.write_text(first + '\n{"id": "c2", "li')  # killed while writing c2
    assert main(["score", str(rollouts), "--config", str(QA), "--out", str(out)]) == 0
    assert "2 scored, 0 invalid, 1 already done, 0 malformed" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert lines[0] == first
    assert lines[1] == '{"id": "c2", "li'
    assert sorted(json.loads(line)["id"] for line in lines[2:]) == ["c2", "c3"]
    assert main(["score", str(rollouts), "--config", str(QA), "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 4  # nothing left to do


def test_tests_dir_config_and_deadline_flag(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "c.py").write_text("import rewardkit as rk\nrk.file_exists('a.txt')\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("x")
    lines = [json.dumps({"id": i, "workspace": str(ws)}) for i in range(5)]
    rollouts = _rollouts(tmp_path / "r.jsonl", lines)
    out = tmp_path / "o.jsonl"
    argv = ["score", str(rollouts), "--config", str(tests), "--out", str(out), "--deadline", "30"]
    assert main([*argv, "--no-progress"]) == 0
    assert sorted((r["id"], r["reward"]) for r in _results(out)) == [(i, 1.0) for i in range(5)]


@pytest.mark.parametrize(
    ("config", "message"),
    [("missing", "config not found"), ("file.txt", "not a tests directory or an eval.yaml")],
)
def test_unknown_config_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, message: str
) -> None:
    (tmp_path / "file.txt").write_text("x")
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1)])
    argv = [
        "score",
        str(rollouts),
        "--config",
        str(tmp_path / config),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_missing_rollouts_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "score",
        str(tmp_path / "none.jsonl"),
        "--config",
        str(QA),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 2
    assert "rollouts file not found" in capsys.readouterr().err


def test_progress_bar_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rewardkit.cli import score

    seen: list[object] = []
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1), _case(2)])
    with score._progress(rollouts, tmp_path / "o.jsonl", enabled=True) as advance:
        assert advance is not None
        advance(None)
        seen.append(advance)
    assert seen
