"""`rewardkit report`: the terminal table, the HTML file, exit codes."""

from __future__ import annotations

import builtins
import io
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
