"""`rewardkit eval` on harness projects: a run directory apart from its dataset, the case
record built from both, thresholds and the baseline check, and bad input.

The two projects are modelled on the harness repository's own `eval/opencode-smoke`
(outputs collected into `output/`, annotations naming the expected file) and
`eval/anova-example` (a `dataset/` beside the eval.yaml, annotations naming reference files,
a numeric judge and a pass/fail gate), with content of our own. Each expected value names
the harness doc it comes from (`website/...`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import write_tree

from rewardkit.evalyaml._cases import Layout, case_record

SMOKE = {
    "eval/hello-smoke/eval.yaml": """
        name: hello-smoke
        execution: {mode: case, skill: hello-smoke, arguments: "{prompt}"}
        runner: {type: cli, command: [bash, run.sh]}
        models: {skill: some-model}
        dataset:
          path: cases
          schema: input.yaml holds the prompt; annotations.yaml the expected file
        outputs:
          - path: output
            schema: files the agent created
        traces: {stdout: true, stderr: true, events: false, metrics: true}
        judges:
          - name: exit_success
            check: |
              return outputs.get("exit_code", -1) == 0, f"exit code {outputs.get('exit_code')}"
          - name: file_created
            check: |
              ann = outputs.get("annotations", {})
              for path, content in outputs.get("files", {}).items():
                  if ann["expected_file"] in path and isinstance(content, str):
                      return ann["expected_content"] in content, path
              return False, f"not in {sorted(outputs.get('files', {}))}"
          - name: record
            check: |
              keys = ("output_content", "case_dir", "conversation", "inputs", "cost_usd")
              return True, repr({k: outputs.get(k) for k in keys} | {"files": sorted(outputs["files"])})
        thresholds:
          exit_success: {min_pass_rate: 1.0}
          file_created: {min_mean: 0.5}
        """,
    "eval/hello-smoke/cases/case-001/input.yaml": "prompt: Write hello.txt saying hi\n",
    "eval/hello-smoke/cases/case-001/annotations.yaml": """
        expected_file: hello.txt
        expected_content: hi there
        reference: reference.md
        """,
    "eval/hello-smoke/cases/case-001/reference.md": "the gold answer\n",
    "eval/hello-smoke/cases/case-002/input.yaml": "prompt: Write hello.txt saying hi\n",
    "eval/hello-smoke/cases/case-002/annotations.yaml": """
        expected_file: hello.txt
        expected_content: hi there
        """,
    "eval/runs/hello-smoke/run-1/run_result.json": json.dumps(
        {
            "exit_code": 2,
            "cost_usd": 0.5,
            "num_turns": 10,
            "token_usage": {"input": 100, "output": 50, "cache_read": 300, "cache_create": 100},
            "per_case": {
                "case-001": {"exit_code": 0, "cost_usd": 0.2, "num_turns": 4},
                "case-002": {"exit_code": 2, "cost_usd": 0.3, "num_turns": 6},
            },
        }
    ),
    "eval/runs/hello-smoke/run-1/cases/case-001/output/hello.txt": "hi there\n",
    "eval/runs/hello-smoke/run-1/cases/case-001/notes.txt": "not a declared output\n",
    "eval/runs/hello-smoke/run-1/cases/case-001/stdout.log": "I wrote hello.txt\n",
    "eval/runs/hello-smoke/run-1/cases/case-002/output/wrong.txt": "hi there\n",
}

BUGFIX = {
    "eval/bugfix/eval.yaml": """
        name: bugfix
        execution: {mode: case, arguments: "{prompt}"}
        models: {judge: some-judge-model}
        dataset: {path: dataset}
        outputs:
          - path: output
            schema: solution.diff and tests.json
        judges:
          - name: tests_pass
            check: |
              import json
              for path, content in outputs.get("files", {}).items():
                  if path.endswith("tests.json") and isinstance(content, str):
                      return json.loads(content).get("passed") is True, "tests.json"
              return False, "no tests.json"
          - name: closeness
            score_range: [1, 5]
            check: |
              oracle = outputs.get("annotation_oracle_content", "")
              diff = outputs.get("output_content", "")
              return (5 if diff == oracle else 1), "compared with the oracle"
        matrix: {factors: {model: [a, b]}, replications: 1}
        """,
    "eval/bugfix/dataset/task-1/input.yaml": "prompt: fix the gateway choice\n",
    "eval/bugfix/dataset/task-1/annotations.yaml": "oracle: oracle.diff\n",
    "eval/bugfix/dataset/task-1/oracle.diff": "+fixed\n",
    "eval/bugfix/dataset/task-2/input.yaml": "prompt: fix the retry loop\n",
    "eval/bugfix/dataset/task-2/annotations.yaml": "oracle: oracle.diff\n",
    "eval/bugfix/dataset/task-2/oracle.diff": "+retry\n",
}


def bugfix_run(name: str, diffs: dict[str, str], passed: dict[str, bool]) -> dict[str, str]:
    """A run of the bugfix project: each case's `output/solution.diff` and `tests.json`."""
    root = f"eval/runs/bugfix/{name}"
    files = {f"{root}/run_result.json": json.dumps({"cost_usd": 1.0, "num_turns": 4})}
    for case, diff in diffs.items():
        files[f"{root}/cases/{case}/output/solution.diff"] = diff
        files[f"{root}/cases/{case}/output/tests.json"] = json.dumps({"passed": passed[case]})
    return files


def rewardkit(project: Path, *args: object) -> subprocess.CompletedProcess[str]:
    """`rewardkit ARGS` run from the project root (the harness's working directory)."""
    return subprocess.run(
        [sys.executable, "-m", "rewardkit", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
    )


def summary_of(out: Path) -> dict[str, Any]:
    summary = json.loads((out / "summary.json").read_text())
    assert yaml.safe_load((out / "summary.yaml").read_text()) == summary
    return summary


def test_a_harness_run_scored_against_its_dataset(tmp_path: Path) -> None:
    project = write_tree(tmp_path, SMOKE)
    done = rewardkit(
        project,
        "eval",
        "eval/hello-smoke/eval.yaml",
        "--cases",
        "eval/runs/hello-smoke/run-1/cases",
        "--out",
        "out",
    )
    summary = summary_of(project / "out")
    assert summary["run_id"] == "run-1"  # website/reference/runs-directory.md
    # per-case exit codes from run_result.json's per_case (runs-directory.md)
    assert summary["judges"]["exit_success"] == {
        "mean": 0.5,
        "pass_rate": 0.5,
        "scored_cases": 2,
        "errored_cases": 0,
        "skipped_cases": 0,
        "std_error": 0.5,
        "ci95": pytest.approx([0.0945, 0.9055], abs=1e-4),  # Wilson, 1 of 2
        "ci_method": "wilson",
    }
    assert summary["per_case"]["case-002"]["judges"]["file_created"]["value"] is False
    # website/reference/config/thresholds.md: min_mean on a boolean judge gates its pass rate
    assert summary["regressions"] == [
        {
            "judge": "exit_success",
            "metric": "pass_rate",
            "expected": ">= 1.0",
            "actual": 0.5,
            "detail": "",
        }
    ]
    assert done.returncode == 1, done.stderr  # concepts/thresholds.md: a regression exits 1
    assert "REGRESSIONS: 1 detected\n  [exit_success] pass_rate: >= 1.0 -> 0.5" in done.stdout
    # run_metrics from run_result.json (runs-directory.md), at full precision
    assert summary["run_metrics"] == {
        "cost_per_turn_usd": 0.05,
        "output_tokens_per_turn": 5.0,
        "cache_hit_rate": 0.6,
        "cost_per_mtok_usd": 0.5 / 550 * 1_000_000,
    }
    seen = summary["per_case"]["case-001"]["judges"]["record"]["rationale"]
    record = eval(seen)  # the check judge's repr of what it saw
    assert record["files"] == ["output/hello.txt"]  # declared outputs only (config/outputs.md)
    assert record["output_content"] == "hi there\n"  # last component + _content (outputs.md)
    assert record["conversation"] == "I wrote hello.txt\n"  # stdout fallback, no events
    assert record["inputs"] == {"prompt": "Write hello.txt saying hi"}
    assert record["cost_usd"] == 0.2
    assert record["case_dir"] == str(project / "eval/runs/hello-smoke/run-1/cases/case-001")


def test_the_record_of_a_run_case(tmp_path: Path) -> None:
    project = write_tree(tmp_path, SMOKE)
    run = project / "eval/runs/hello-smoke/run-1"
    (run / "cases/case-001/_modified/src").mkdir(parents=True)
    (run / "cases/case-001/_modified/src/app.py").write_text("edited\n")
    (run / "cases/case-001/_modified/hooks").mkdir()
    (run / "cases/case-001/_modified/hooks/h.sh").write_text("scaffolding\n")
    (run / "events.json").write_text(
        json.dumps(
            [
                {"type": "assistant", "text": "Writing it.", "tools": [{"name": "Write"}]},
                {"type": "assistant", "text": "sub", "parent_tool_use_id": "t1"},
                {"type": "assistant", "text": "Done.", "tools": [{"name": "mcp__jira__create"}]},
            ]
        )
    )
    layout = Layout(
        dataset=project / "eval/hello-smoke/cases", run=run, outputs=("output",), tools=("jira",)
    )
    record = case_record(run / "cases/case-001", layout=layout)
    # runs-directory.md: _modified/ edits in files and modified_files, scaffolding left out
    assert sorted(record["files"]) == ["_modified/src/app.py", "output/hello.txt"]
    assert record["modified_files"] == {"src/app.py": "edited\n"}
    # dataset.md: annotations and the files they name come from the dataset case
    assert record["annotation_reference_content"] == "the gold answer\n"
    # batch mode: events.json at the run root; conversation from root-level assistant text
    assert record["conversation"] == "Writing it.\n\nDone."
    # config/outputs.md: tool outputs are the matching calls in the events
    assert record["tool_calls"] == [{"name": "mcp__jira__create", "input": {}}]
    assert (record["exit_code"], record["num_turns"]) == (0, 4)  # per_case wins
    assert record["output_file"].endswith("case-001/output/hello.txt")


def test_the_merged_layout_hides_the_ground_truth_from_files(tmp_path: Path) -> None:
    case = write_tree(
        tmp_path / "case",
        {
            "input.yaml": "q: 1\n",
            "annotations.yaml": "expected: gold.txt\n",
            "gold.txt": "42\n",
            "answer.txt": "41\n",
        },
    )
    record = case_record(case)
    assert sorted(record["files"]) == ["answer.txt"]
    assert record["annotation_expected_content"] == "42\n"


def test_a_baseline_run_flags_a_drop_of_more_than_half_a_point(tmp_path: Path) -> None:
    oracle = {"task-1": "+fixed\n", "task-2": "+retry\n"}
    project = write_tree(
        tmp_path,
        BUGFIX
        | bugfix_run("run-b", oracle, {"task-1": True, "task-2": True})
        | bugfix_run(
            "run-a", {"task-1": "+fixed\n", "task-2": "-"}, {"task-1": True, "task-2": False}
        ),
    )
    runs = project / "eval/runs/bugfix"
    first = rewardkit(
        project, "eval", "eval/bugfix", "--cases", runs / "run-b", "--out", runs / "run-b"
    )
    assert first.returncode == 0, first.stderr
    # the baseline by its id, beside the run (config/thresholds.md: --baseline <run-id>)
    done = rewardkit(
        project, "eval", "eval/bugfix/eval.yaml", "--cases", runs / "run-a/cases", "--out", "out",
        "--baseline", "run-b",
    )  # fmt: skip
    summary = summary_of(project / "out")
    assert summary["judges"]["closeness"]["mean"] == 3.0  # (5 + 1) / 2
    assert summary["judges"]["tests_pass"]["pass_rate"] == 0.5
    # reference/config/thresholds.md: "mean_vs_baseline: 4.2 -> 3.5"; a drop of exactly 0.5
    # (tests_pass: 1.0 -> 0.5) is not "more than 0.5"
    assert [
        (r["judge"], r["metric"], r["expected"], r["actual"]) for r in summary["regressions"]
    ] == [("closeness", "mean_vs_baseline", "5.0", 3.0)]
    assert done.returncode == 1
    assert "[closeness] mean_vs_baseline: 5.0 -> 3.0   Degraded vs baseline" in done.stdout


@pytest.mark.parametrize(
    ("change", "args", "message"),
    [
        pytest.param(
            {},
            ("--cases", "eval/runs/hello-smoke/no-such-run/cases"),
            "eval/runs/hello-smoke/no-such-run/cases: no such directory (--cases)",
            id="missing run dir",
        ),
        pytest.param(
            {"eval/runs/hello-smoke/run-1/cases/case-003/output/x.txt": "x"},
            ("--cases", "eval/runs/hello-smoke/run-1/cases"),
            "eval.yaml: dataset.path: no dataset case for case-003",
            id="missing dataset case",
        ),
        pytest.param(
            {"eval/runs/hello-smoke/run-0/cases/case-001/output/x.txt": "x"},
            ("--cases", "eval/runs/hello-smoke/run-1/cases", "--baseline", "run-0"),
            "run-0: --baseline: the baseline run has no summary.yaml or summary.json",
            id="baseline without a summary",
        ),
        pytest.param(
            {},
            ("--cases", "eval/runs/hello-smoke/run-1/cases", "--baseline", "gone"),
            "--baseline: no run directory at gone",
            id="baseline not found",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_path_and_the_fix(
    tmp_path: Path, change: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    project = write_tree(tmp_path, SMOKE | change)
    done = rewardkit(project, "eval", "eval/hello-smoke/eval.yaml", *args, "--out", "out")
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (project / "out").exists()
