"""`rewardkit score`: the JSONL runner's output, resume, malformed lines, ids, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from rewardkit.batch._runner import SeenIds
from rewardkit.cli import main
from rewardkit.core._errors import ConfigError

QA = Path(__file__).parents[2] / "examples" / "qa-eval"


def _rollouts(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _results(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _case(n: int) -> str:
    """A rollout of the QA example: its outputs in the workspace, its ground truth in the line."""
    case = QA / "cases" / f"case-00{n}"
    truth = yaml.safe_load((case / "annotations.yaml").read_text())
    return json.dumps({"id": f"c{n}", "workspace": str(case), "ground_truth": truth})


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
    assert code == 1  # malformed lines were reported and recorded; the rest were scored
    err = capsys.readouterr().err
    assert f"{rollouts}:2: not valid JSON" in err
    assert f"{rollouts}:4: must be a JSON object (got list); recorded as invalid" in err
    assert f"{rollouts}:6: 'id' must be a string or an integer" in err
    rows = sorted(_results(out), key=lambda r: int(str(r["line"])))
    assert [(r["id"], r["line"], r["valid"]) for r in rows] == [
        ("c1", 1, True),
        (2, 2, False),  # malformed: recorded under its line number
        (4, 4, False),
        ("c2", 5, True),
        (6, 6, False),
        (7, 7, False),  # no id: the line number is the id
    ]
    assert set(rows[0]) == {"id", "line", "reward", "valid", "judges"}
    assert rows[0]["judges"] == {"answered": 1.0, "correct": 1.0, "shows_work": 5.0, "concise": 1.0}
    assert rows[1] == {
        "id": 2,
        "line": 2,
        "reward": None,
        "valid": False,
        "judges": {},
        "error": rows[1]["error"],
    }
    assert str(rows[1]["error"]).startswith("not valid JSON")
    assert rows[5]["reward"] is None
    assert "typo" in str(rows[5]["error"])


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
    with score._progress(rollouts, tmp_path / "o.jsonl", 1 << 20, enabled=True) as advance:
        assert advance is not None
        advance(2)  # two result lines written
        seen.append(advance)
    assert seen


def _argv(rollouts: Path, out: Path, *extra: str) -> list[str]:
    return ["score", str(rollouts), "--config", str(QA), "--out", str(out), *extra]


def test_malformed_lines_are_recorded_once_and_reported_on_every_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1), "[" * 100_000, _case(2)])
    out = tmp_path / "o.jsonl"
    assert main(_argv(rollouts, out)) == 1
    assert main(_argv(rollouts, out)) == 1
    captured = capsys.readouterr()
    assert captured.err.count(f"{rollouts}:2: the line is nested deeper than 100 levels") == 2
    assert "0 scored, 0 invalid, 2 already done, 1 malformed" in captured.out
    assert sorted(str(r["id"]) for r in _results(out)) == ["2", "c1", "c2"]


def test_a_line_over_max_line_mib_is_recorded_and_the_rest_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = json.dumps({"completion": "x" * (1 << 20)})
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1), big, _case(2)])
    out = tmp_path / "o.jsonl"
    assert main(_argv(rollouts, out, "--max-line-mib", "1")) == 1
    assert "r.jsonl:2: the line is longer than 1,048,576 bytes" in capsys.readouterr().err
    rows = {r["id"]: r["valid"] for r in _results(out)}
    assert rows == {"c1": True, 2: False, "c2": True}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["{}", '{"id": "a"}', "{}", '{"id": "a"}'], 'id "a" is on lines 2 and 4.'),
        (['{"id": 2}', "{}"], "id 2 is on lines 1 and 2."),  # line 2's id is its number
        (['{"id": 2}', "{not json"], "id 2 is on lines 1 and 2."),
    ],
)
def test_a_repeated_id_is_refused_and_every_other_line_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[str], message: str
) -> None:
    rollouts = _rollouts(tmp_path / "r.jsonl", [*lines, '{"id": "after"}'])
    out = tmp_path / "o.jsonl"
    assert main(_argv(rollouts, out)) == 2
    err = capsys.readouterr().err
    second = len(lines)
    assert err == (
        f"rewardkit score: error: {rollouts}: {message} Give every rollout a unique 'id' "
        "(a line without one has its line number as id); the lines with a repeated id were "
        "not scored, the others were.\n"
    )
    written = sorted(row["line"] for row in _results(out))
    assert written == [*range(1, second), second + 1]


def test_ids_are_checked_in_fixed_memory(tmp_path: Path) -> None:
    rollouts = _rollouts(tmp_path / "r.jsonl", [f'{{"id": {i}}}' for i in range(1, 20_001)])
    seen = SeenIds(rollouts, 1 << 20)
    for number in range(1, 20_001):  # ids 1..20000 as ints, then as text: all distinct
        for sample_id in (number, str(number)):
            if not seen.new(sample_id):
                seen.hold(sample_id, number, sample_id)
    false_alarms = [line for _, _, line in seen.held]
    assert len(false_alarms) < 5
    assert seen.settle() == false_alarms  # released by one more read of the ids
    assert len(seen.bloom.bits) == 32 << 20
    assert not seen.new(7)
    seen.hold(7, 40_001, "line 40001")
    with pytest.raises(ConfigError, match="id 7 is on lines 7 and 40001"):
        seen.settle()


def test_every_rollout_invalid_exits_3_with_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rollouts = _rollouts(tmp_path / "r.jsonl", ['{"typo": 1}', "[1]"])
    out = tmp_path / "o.jsonl"
    assert main(_argv(rollouts, out)) == 3
    captured = capsys.readouterr()
    assert "0 scored, 1 invalid, 0 already done, 1 malformed" in captured.out
    assert (
        "rewardkit score: error: not one rollout has a valid reward (e.g. line 1: " in captured.err
    )
    assert f"Check that --config fits these rollouts; each line's error is in {out}." in (
        captured.err
    )
    assert main(_argv(rollouts, out)) == 3  # resumed: still nothing valid
    _rollouts(rollouts, ['{"typo": 1}', "[1]", _case(1)])
    assert main(_argv(rollouts, out)) == 1  # one valid now; a line is still malformed
    capsys.readouterr()
    assert main(_argv(rollouts, out)) == 1  # resumed: the valid one counts
    assert "0 scored, 0 invalid, 2 already done, 1 malformed" in capsys.readouterr().out
    one = _rollouts(tmp_path / "one.jsonl", ['{"typo": 1}'])
    assert main(_argv(one, tmp_path / "one-out.jsonl")) == 3
    assert main(_argv(one, tmp_path / "one-out.jsonl")) == 3  # all done, none valid
    assert "error: not one rollout has a valid reward. Check" in capsys.readouterr().err
    assert main(_argv(_rollouts(tmp_path / "empty.jsonl", []), tmp_path / "e.jsonl")) == 0


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--deadline", "0"), ("--deadline", "-1"), ("--memory-mib", "0"), ("--max-line-mib", "x")],
)
def test_bad_limits_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1)])
    with pytest.raises(SystemExit) as exited:
        main(_argv(rollouts, tmp_path / "o.jsonl", flag, value))
    assert exited.value.code == 2
    assert f"argument {flag}:" in capsys.readouterr().err


def test_limits_from_the_environment_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REWARDKIT_DEADLINE", "-5")
    rollouts = _rollouts(tmp_path / "r.jsonl", [_case(1)])
    with pytest.raises(SystemExit):
        main(_argv(rollouts, tmp_path / "o.jsonl"))
    assert "argument --deadline: must be above 0 (got -5)" in capsys.readouterr().err


def test_score_takes_a_reward_function_as_module_colon_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _reward_module(
        tmp_path / "my_rewards.py",
        "def exact(messages, ground_truth=None, **kwargs):\n"
        "    return messages[-1]['content'] == ground_truth\n",
    )
    monkeypatch.chdir(tmp_path)
    rollouts = _rollouts(
        tmp_path / "r.jsonl",
        ['{"completion": "4", "ground_truth": "4"}', '{"completion": "5", "ground_truth": "4"}'],
    )
    out = tmp_path / "o.jsonl"
    argv = ["score", str(rollouts), "--config", "my_rewards:exact", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    assert {r["line"]: r["judges"] for r in _results(out)} == {1: {"exact": 1.0}, 2: {"exact": 0.0}}
    bad = ["score", str(rollouts), "--config", "my_rewards:exactly", "--out", str(out)]
    assert main(bad) == 2
    assert "module 'my_rewards' has no function 'exactly'. Did you mean 'exact'?" in (
        capsys.readouterr().err
    )
    assert main(["score", str(rollouts), "--config", "nowhere:f", "--out", str(out)]) == 2
    assert "cannot import module 'nowhere' of 'nowhere:f'" in capsys.readouterr().err


def test_score_ends_with_a_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _reward_module(
        tmp_path / "two_rewards.py",
        "def half(messages, **kwargs):\n"
        "    if messages[-1]['content'] == 'boom':\n"
        "        raise ValueError('boom')\n"
        "    return 0.5\n",
    )
    monkeypatch.chdir(tmp_path)
    lines = ['{"completion": "a"}', '{"completion": "b"}', '{"completion": "boom"}']
    rollouts = _rollouts(tmp_path / "r.jsonl", lines)
    out = tmp_path / "o.jsonl"
    argv = ["score", str(rollouts), "--config", "two_rewards:half", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == f"2 scored, 1 invalid, 0 already done, 0 malformed → {out}"
    assert printed[1].startswith("mean reward 0.5000 over 2 valid; 3 rollouts in ")
    assert printed[2] == "no value (failed or abstained) from: half 1"


def _reward_module(path: Path, function: str) -> None:
    """A module of one `@reward_function`, importable as `path.stem`."""
    path.write_text(f"import rewardkit as rk\n\n@rk.reward_function\n{function}")
