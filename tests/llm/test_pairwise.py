"""`rewardkit eval --baseline RUN` with a `pairwise` judge, against the local chat server.

Expected values come from the harness's `website/concepts/pairwise-and-sampling.md` (the
position-swap protocol and the `pairwise` block) and `website/reference/config/thresholds.md`
(`min_win_rate`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server import KEY, PROVIDERS, ChatServer, Reply, ok

from rewardkit.cli.eval import main

EVAL = """
name: essays
dataset: {path: dataset}
outputs: [{path: output}]
judges:
  - name: has_output
    check: "return bool(outputs['files'])"
  - name: pairwise
    prompt: "Which essay argues its case better?"
    model: MODEL
thresholds:
  pairwise: {min_win_rate: 0.6}
"""
RUN = {"c1": "BETTER essay one", "c2": "essay two", "c3": "essay three", "c4": "essay four"}
BASELINE = {"c1": "essay one", "c2": "essay two, again", "c3": "BETTER essay three"}


def project(root: Path, model: str) -> Path:
    (root / "eval.yaml").write_text(EVAL.replace("MODEL", model))
    for case in RUN:
        (root / "dataset" / case).mkdir(parents=True)
        (root / "dataset" / case / "input.yaml").write_text(f"topic: {case}\n")
    for run, outputs in (("run-a", RUN), ("run-b", BASELINE)):
        (root / "runs" / run).mkdir(parents=True)
        (root / "runs" / run / "run_result.json").write_text("{}")
        for case, text in outputs.items():
            (root / "runs" / run / "cases" / case / "output").mkdir(parents=True)
            (root / "runs" / run / "cases" / case / "output" / "essay.md").write_text(text)
    summary = {"run_id": "run-b", "judges": {"has_output": {"pass_rate": 1.0, "mean": 1.0}}}
    (root / "runs" / "run-b" / "summary.yaml").write_text(json.dumps(summary))
    return root


def prefer_better(body: dict[str, Any]) -> Reply:
    """Prefer the output that says BETTER; with neither, always the first (position bias)."""
    blocks = body["messages"][-1]["content"]
    preferred = "B" if "BETTER" in blocks[7]["text"] else "A"  # blocks[3] is output A
    return ok(json.dumps({"preferred": preferred, "reasoning": f"chose {preferred}"}))


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def essays(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch, structured: str
) -> Path:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.chdir(project(tmp_path, structured))
    return tmp_path


def test_pairwise_swaps_positions_and_gates_the_win_rate(
    essays: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.respond_with(prefer_better)
    code = main(["eval.yaml", "--cases", "runs/run-a/cases", "--out", "out", "--baseline", "run-b"])
    summary = json.loads((essays / "out" / "summary.json").read_text())
    pairwise = summary["pairwise"]
    winners = {c["case_id"]: c["winner"] for c in pairwise["per_case"]}
    # a side wins only when preferred in both orders; the same slot twice is a tie; a case
    # the baseline lacks is an error, with no call made
    assert winners == {"c1": "A", "c2": "tie", "c3": "B", "c4": "error"}
    assert {k: v for k, v in pairwise.items() if k != "per_case"} == {
        "run_a": "run-a",
        "run_b": "run-b",
        "cases_compared": 4,
        "wins_a": 1,
        "wins_b": 1,
        "ties": 1,
        "errors": 1,
        "win_rate": 1 / 3,
    }
    assert server.count == 6  # two calls per compared case
    assert pairwise["per_case"][0]["reasoning"] == "chose A"  # from the run-as-A call
    assert "the baseline run lacks this case" in pairwise["per_case"][3]["error"]
    assert "pairwise" not in summary["judges"]  # the harness keeps it out of the columns
    assert code == 1  # win_rate 0.33 < min_win_rate 0.6
    out = capsys.readouterr().out
    assert "[pairwise] win_rate: >= 0.6 -> 0.3333" in out
    requests = json.dumps(server.requests)
    assert "<submission>" in requests
    assert "Which essay argues its case better?" in requests


def test_an_unusable_reply_is_an_error_verdict(essays: Path, server: ChatServer) -> None:
    server.respond_with(lambda body: ok('{"preferred": "both"}'))
    main(["eval.yaml", "--cases", "runs/run-a/cases", "--out", "out", "--baseline", "run-b"])
    pairwise = json.loads((essays / "out" / "summary.json").read_text())["pairwise"]
    assert pairwise["errors"] == 4
    assert pairwise["win_rate"] is None
    assert "'preferred' must be A, B or tie" in pairwise["per_case"][0]["error"]


def test_without_a_baseline_min_win_rate_is_a_regression(
    essays: Path, server: ChatServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval.yaml", "--cases", "runs/run-a/cases", "--out", "out"]) == 1
    assert server.count == 0
    assert "[pairwise] win_rate: >= 0.6 -> n/a   win_rate unavailable — no pairwise" in (
        capsys.readouterr().out
    )


def test_a_pairwise_judge_without_a_model_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("EVAL_JUDGE_MODEL", raising=False)
    monkeypatch.chdir(project(tmp_path, "MODEL"))
    (tmp_path / "eval.yaml").write_text(EVAL.replace("    model: MODEL\n", ""))
    code = main(["eval.yaml", "--cases", "runs/run-a/cases", "--out", "out", "--baseline", "run-b"])
    assert code == 2
    assert "the pairwise judge has no model" in capsys.readouterr().err


def test_a_sampled_comparison_reports_its_stability(essays: Path, server: ChatServer) -> None:
    (essays / "eval.yaml").write_text(
        (essays / "eval.yaml").read_text().replace("    prompt:", "    samples: 2\n    prompt:")
    )
    server.respond_with(prefer_better)
    main(["eval.yaml", "--cases", "runs/run-a/cases", "--out", "out", "--baseline", "run-b"])
    pairwise = json.loads((essays / "out" / "summary.json").read_text())["pairwise"]
    assert server.count == 2 * 3 * 2  # two orders, three comparable cases, two samples
    assert pairwise["stability"]["runs"] == 2
    assert pairwise["stability"]["agreement_rate"] == 1.0  # the responder never changes its mind
