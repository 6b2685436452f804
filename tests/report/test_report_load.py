"""Reading inputs: Harbor jobs, eval summaries, results files, and bad input per file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardkit.cli import main as cli
from rewardkit.core._errors import ConfigError
from rewardkit.report import build_report
from rewardkit.report._load import load_run

EXAMPLE = Path(__file__).parents[2] / "examples" / "qa-eval"


def test_harbor_job_reads_every_trial_and_reports_bad_files(job: Path) -> None:
    run = load_run(job)
    assert run.kind == "harbor"
    assert len(run.cases) == 14  # 12 trials, the truncated one (no reward), the legacy one
    problems = {Path(p.file).relative_to(job).parts[0]: p.message for p in run.problems}
    assert "truncated?" in problems["broken__x1"]
    assert problems["crashed__x1"] == "no reward.json or reward.txt"
    broken = next(c for c in run.cases if c.id.endswith("broken__x1"))
    assert broken.reward is None
    assert "reward.json" in (broken.error or "")
    first = next(c for c in run.cases if c.id.endswith("fix-bug__01abc"))
    assert first.group == "fix-bug"
    assert [j.name for j in first.judges] == [
        "checks/tests_pass",
        "checks/file_exists:out.txt",
        "quality/readability",
    ]
    assert first.composition[0].note == "weighted-mean"
    assert [(s.label, s.weight) for s in first.composition[1:3]] == [
        ("checks", 2.0),
        ("checks/tests_pass", 1.0),
    ]


def test_legacy_details_get_their_status_inferred(job: Path) -> None:
    legacy = next(c for c in load_run(job).cases if c.id.endswith("legacy__x1"))
    assert legacy.reward == 0.5  # from reward.txt
    assert [(j.name, j.status, j.value) for j in legacy.judges] == [
        ("tests_pass", "scored", True),
        ("lint", "error", None),
    ]


def test_a_lone_verifier_directory_is_one_trial(tmp_path: Path) -> None:
    (tmp_path / "reward.json").write_text(json.dumps({"reward": 0.25, "style": 1.0}))
    run = load_run(tmp_path)
    assert [(c.reward, c.rewards) for c in run.cases] == [(0.25, {"reward": 0.25, "style": 1.0})]


def test_reward_json_without_reward_key_is_the_mean(tmp_path: Path) -> None:
    verifier = tmp_path / "t__1" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text(json.dumps({"a": 1.0, "b": 0.0, "note": "x"}))
    assert load_run(tmp_path).cases[0].reward == 0.5


def test_no_results_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no results found"):
        load_run(tmp_path)
    with pytest.raises(ConfigError, match="no such file"):
        load_run(tmp_path / "missing")


def test_results_file(results: Path) -> None:
    run = load_run(results)
    assert run.kind == "results"
    assert len(run.cases) == 41
    assert [str(p).split(": ")[0].rsplit(":", 1)[1] for p in run.problems] == ["42"]
    bad = run.cases[-1]
    assert (bad.reward, bad.group, bad.error) == (None, "prompt-0", "deadline of 30s exceeded")
    assert run.cases[0].length == 100
    assert run.cases[0].group == "prompt-0"


def test_an_over_long_results_line_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rewardkit.report._load.MAX_LINE_BYTES", 64)
    path = tmp_path / "r.jsonl"
    long = json.dumps({"id": "x", "reward": 1.0, "pad": "y" * 500})
    path.write_text(long + "\n" + json.dumps({"id": "ok", "reward": 0.5}) + "\n")
    run = load_run(path)
    assert [c.id for c in run.cases] == ["ok"]
    assert run.problems[0].message == "not a result object"


def test_eval_run_summary_carries_statistics_and_composition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["eval", str(EXAMPLE), "--out", str(tmp_path), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "correct: pass_rate 66.7% 95% CI [20.8%, 93.9%]" in printed
    summary = json.loads((tmp_path / "summary.json").read_text())
    correct = summary["judges"]["correct"]
    assert correct["ci95"] == pytest.approx([0.2077, 0.9385], abs=1e-4)  # Wilson 2 of 3
    assert correct["ci_method"] == "wilson"
    assert correct["std_error"] > 0
    assert summary["reward"]["cases"] == 3
    assert summary["reward"]["ci_method"] == "bootstrap"
    assert summary["composition"]["mode"] == "expression"
    assert summary["composition"]["score_ranges"] == {"shows_work": [1.0, 5.0]}

    run = load_run(tmp_path)
    assert run.kind == "eval"
    assert run.formula == "reward = base = 0.7 * correct + 0.3 * shows_work; base"
    case = next(c for c in run.cases if c.id == "case-002")
    steps = {s.label: s for s in case.composition}
    assert steps["shows_work"].value == 0.0
    assert steps["shows_work"].note == "1 on [1, 5]"
    assert steps["correct"].value == 1.0


def test_an_older_summary_without_status_or_composition(tmp_path: Path) -> None:
    summary = {
        "judges": {},
        "per_case": {
            "c1": {"reward": 1.0, "judges": {"q": {"value": 4, "rationale": "fine"}}},
            "c2": {"reward": 0.0, "judges": {"q": {"value": None, "error": "boom"}}},
            "c3": "garbage",
        },
    }
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    run = load_run(tmp_path)
    assert [(c.id, [j.status for j in c.judges]) for c in run.cases] == [
        ("c1", ["scored"]),
        ("c2", ["error"]),
    ]
    assert run.problems[0].message == "per_case.c3 is not a map"


def test_a_truncated_summary_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text('{"per_case": {')
    with pytest.raises(ConfigError, match="truncated"):
        load_run(tmp_path)


def test_baseline_comparison(job: Path, tmp_path: Path) -> None:
    base = tmp_path / "base"
    (base / "fix-bug__00abc" / "verifier").mkdir(parents=True)
    (base / "fix-bug__00abc" / "verifier" / "reward.txt").write_text("0.9")
    (base / "gone__1" / "verifier").mkdir(parents=True)
    (base / "gone__1" / "verifier" / "reward.txt").write_text("1")
    report = build_report(job, baseline=base)  # case ids are trial paths relative to each root
    assert report.comparison is not None
    diff = report.comparison.diff
    assert diff.diff.n == 1
    assert diff.only_baseline == ("gone__1",)
    assert len(diff.only_current) == 12
    [change] = report.comparison.changed
    assert (change.id, change.before, change.after) == ("fix-bug__00abc", 0.9, pytest.approx(0.4))
