"""`rewardkit report`: the terminal table, the HTML file, exit codes."""

from __future__ import annotations

import builtins
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rewardkit.cli import main as cli
from rewardkit.report import build_report
from rewardkit.report._terminal import print_report


def test_terminal_table(job: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(job), "--pass-threshold", "0.5"]) == 0
    out, err = capsys.readouterr()
    assert "checks/tests_pass" in out
    assert "[39.1%, 86.2%]" in out
    assert "pass@3" in out
    assert "RL signal: 14 samples in 6 groups" in out
    assert "rewardkit: warning:" in err
    assert "broken__x1/verifier/reward.json" in err
    assert "crashed__x1/verifier: no reward.json or reward.txt" in err


def test_plain_table_without_rich(job: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_rich(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("rich"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_rich)
    report = build_report(job)
    out = io.StringIO()
    print_report(report.run, report.stats, out)
    lines = out.getvalue().splitlines()
    assert lines[0].split() == [
        "criterion",
        "metric",
        "value",
        "95%",
        "CI",
        "scored",
        "errors",
        "timeouts",
        "skipped",
    ]
    assert lines[3].split()[:3] == ["quality/readability", "mean", "0.6"]


def test_html_out_and_baseline(
    job: Path, results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site" / "report.html"
    assert cli(["report", str(results), "--out", str(out), "--baseline", str(results)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out} (41 cases)" in printed
    assert "zero-variance groups 100%" in printed
    page = out.read_text()
    assert '<section id="comparison">' in page
    assert "0 improved, 0 regressed" in page


def test_rollouts_give_lengths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rollouts = tmp_path / "rollouts.jsonl"
    results = tmp_path / "results.jsonl"
    r_lines, s_lines = [], []
    for i in range(8):
        r_lines.append(f'{{"id": "r{i}", "completion": "{"x" * (10 + i)}"}}')
        s_lines.append(f'{{"id": "r{i}", "reward": {i / 10}, "judges": {{}}, "group": "g{i % 2}"}}')
    rollouts.write_text("\n".join(r_lines) + "\nnot json\n")
    results.write_text("\n".join(s_lines) + "\n")
    assert cli(["report", str(results), "--rollouts", str(rollouts)]) == 0
    assert "reward ~ completion length: r = +1.000, within groups +1.000" in capsys.readouterr().out


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(tmp_path)]) == 2
    assert "rewardkit report: error:" in capsys.readouterr().err
    assert cli(["report", str(tmp_path / "nope.jsonl")]) == 2
    (tmp_path / "empty.jsonl").write_text("")
    assert cli(["report", str(tmp_path / "empty.jsonl")]) == 2
    assert "no results found" in capsys.readouterr().err


def _rewardkit(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "rewardkit", "report", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_json_has_the_table_numbers(job: Path, tmp_path: Path) -> None:
    done = _rewardkit(str(job), "--json", "--pass-threshold", "0.5", "--baseline", str(job))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)  # stdout is the document alone
    assert "rewardkit: warning:" in done.stderr
    assert data["kind"] == "harbor"
    assert data["cases"] == 14
    tests_pass = data["judges"]["checks/tests_pass"]
    assert tests_pass["metric"] == "pass_rate"
    assert f"{tests_pass['ci95'][0]:.1%}, {tests_pass['ci95'][1]:.1%}" == "39.1%, 86.2%"
    assert (tests_pass["scored"], tests_pass["errors"], tests_pass["n"]) == (12, 0, 12)
    readability = data["judges"]["quality/readability"]
    assert (readability["metric"], readability["errors"], readability["timeouts"]) == ("mean", 1, 1)
    assert data["reward"]["n"] + data["reward"]["invalid"] == 14
    assert sum(data["reward"]["histogram"]) == data["reward"]["n"]
    assert [row["k"] for row in data["pass_k"]] == [1, 2, 3]
    assert data["diagnostics"]["samples"] == 14
    assert data["diagnostics"]["groups"] == 6
    assert data["comparison"]["difference"]["mean"] == 0.0
    assert data["comparison"]["improved"] == data["comparison"]["regressed"] == 0
    assert any(p["file"].endswith("broken__x1/verifier/reward.json") for p in data["problems"])


def test_json_with_out_keeps_stdout_json(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = _rewardkit(str(results), "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert f"wrote {out} (41 cases)" in done.stderr
    format_ = data["diagnostics"]["criteria"][1]
    assert (format_["name"], format_["zero_variance"], format_["at_max"]) == ("format", 1.0, 1.0)
    assert {"a": "correct", "b": "format", "r": None} in data["diagnostics"]["correlations"]
    assert out.is_file()


def test_json_is_in_help() -> None:
    done = _rewardkit("--help")
    assert "--json" in done.stdout
    assert "--eval EVAL_YAML" in done.stdout


def test_eval_names_the_page_and_bad_eval_exits_2(
    eval_run: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, suite = eval_run
    out = tmp_path / "report.html"
    assert cli(["report", str(run), "--eval", str(suite), "--out", str(out)]) == 0
    assert "<title>support-triage</title>" in out.read_text()
    assert cli(["report", str(run), "--eval", str(tmp_path / "nope.yaml"), "--out", str(out)]) == 2
    assert "eval.yaml not found" in capsys.readouterr().err


def test_cases_needs_eval(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli(["report", str(results), "--cases", str(results.parent)])
    assert exited.value.code == 2
    assert "--cases needs --eval" in capsys.readouterr().err
