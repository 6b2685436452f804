"""Scoring eval.yaml cases: judge return forms, `if:`, score_range, summaries, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from rewardkit.core._errors import CapExceeded, ConfigError
from rewardkit.core._untrusted import OutsideWorkspace
from rewardkit.evalyaml._case_files import MAX_FILE_BYTES, named
from rewardkit.evalyaml._cases import case_record
from rewardkit.evalyaml._score import score_cases
from rewardkit.evalyaml._suite import load_suite

EXAMPLE = Path(__file__).parents[1] / "examples" / "qa-eval"

JUDGES = """
class Feedback:
    def __init__(self, value, rationale):
        self.value, self.rationale = value, rationale


class Evaluated:
    def __init__(self, score, reason):
        self.score, self.reason = score, reason


def plain(outputs):
    return 0.5

def pair(outputs, word):
    return word in outputs["stdout"], f"looked for {word}"

def feedback(outputs):
    return Feedback(4, "mlflow-style")

def evaluated(outputs):
    return Evaluated(0.25, "reward-kit-style")

def abstain(outputs):
    return None

def boom(outputs):
    raise ValueError("judge crashed")

def text(outputs):
    return "yes"

def off_scale(outputs):
    return 7

def nan(outputs):
    return float("nan")
"""


def suite_dir(
    tmp_path: Path, judges: str, cases: dict[str, dict[str, str]], reward: str = ""
) -> Path:
    (tmp_path / "myjudges.py").write_text(JUDGES)
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n"
        + textwrap.indent(textwrap.dedent(judges), "  ")
        + reward
    )
    for case, files in cases.items():
        for rel, body in files.items():
            path = tmp_path / "cases" / case / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
    return tmp_path / "eval.yaml"


def outcomes(path: Path) -> dict[str, dict[str, object]]:
    suite = load_suite(path)
    (result,) = score_cases(suite, sorted((path.parent / "cases").iterdir()))
    return {
        o.name: {"status": o.status, "value": o.value, "raw": o.raw, "why": o.reasoning or o.error}
        for o in result.outcomes
    }


def test_return_forms(tmp_path: Path) -> None:
    path = suite_dir(
        tmp_path,
        """
        - {name: plain, module: myjudges, function: plain}
        - {name: pair, module: myjudges, function: pair, arguments: {word: hello}}
        - {name: feedback, module: myjudges, function: feedback, score_range: [1, 5]}
        - {name: evaluated, module: myjudges, function: evaluated}
        - {name: abstain, module: myjudges, function: abstain}
        """,
        {"c1": {"stdout.log": "hello there"}},
    )
    got = outcomes(path)
    assert got["plain"] == {"status": "scored", "value": 0.5, "raw": 0.5, "why": None}
    assert got["pair"] == {"status": "scored", "value": 1.0, "raw": True, "why": "looked for hello"}
    assert got["feedback"]["value"] == 4.0
    assert got["feedback"]["why"] == "mlflow-style"
    assert got["evaluated"]["value"] == 0.25
    assert got["evaluated"]["why"] == "reward-kit-style"
    assert got["abstain"]["status"] == "skipped"


def test_failures_are_outcomes_never_clamped(tmp_path: Path) -> None:
    path = suite_dir(
        tmp_path,
        """
        - {name: boom, module: myjudges, function: boom}
        - {name: text, module: myjudges, function: text}
        - {name: off_scale, module: myjudges, function: off_scale, score_range: [1, 5]}
        - {name: nan, module: myjudges, function: nan}
        - {name: llm, llm_rubric: "Is it good?", score_range: [1, 5]}
        """,
        {"c1": {"stdout.log": ""}},
    )
    got = outcomes(path)
    assert all(o["status"] == "error" for o in got.values())
    assert got["boom"]["why"] == "ValueError: judge crashed (myjudges.py:28)"
    assert "returned str" in str(got["text"]["why"])
    assert "returned 7, outside its score_range [1, 5] (values are never clamped)" in str(
        got["off_scale"]["why"]
    )
    assert "values must be finite" in str(got["nan"]["why"])
    assert "ANTHROPIC_API_KEY" in str(got["llm"]["why"])  # no key here: recorded, run goes on


def test_if_conditions_skip_or_error(tmp_path: Path) -> None:
    path = suite_dir(
        tmp_path,
        """
        - {name: nav, check: "return True", if: "annotations.get('category') == 'navigation'"}
        - {name: other, check: "return True", if: "annotations.get('category') != 'navigation'"}
        - {name: broken, check: "return True", if: "outputs['missing'] > 1"}
        """,
        {"c1": {"annotations.yaml": "category: search\n"}},
    )
    got = outcomes(path)
    assert got["nav"]["status"] == "skipped"
    assert "Skipped: if:" in str(got["nav"]["why"])
    assert got["other"]["status"] == "scored"
    assert got["broken"]["status"] == "error"
    assert "KeyError" in str(got["broken"]["why"])


def test_case_record(tmp_path: Path) -> None:
    case = tmp_path / "case"
    case.mkdir()
    (case / "input.yaml").write_text("prompt: hi\n")
    (case / "annotations.yaml").write_text("expected: reference.txt\n")
    (case / "reference.txt").write_text("the answer")
    (case / "stdout.log").write_text("transcript")
    (case / "out").mkdir()
    (case / "out" / "a.bin").write_bytes(b"\0\1\2")
    (case / "run_result.json").write_text('{"exit_code": 0, "cost_usd": 0.5, "num_turns": 3}')
    (case / "escape").symlink_to("/etc/passwd")
    record = case_record(case)
    assert record["inputs"] == {"prompt": "hi"}
    assert record["annotation_expected_content"] == "the answer"
    assert record["stdout"] == "transcript"
    assert record["files"]["out/a.bin"]["_binary"] is True
    assert "escape" not in record["files"]  # never read outside the case
    assert (record["exit_code"], record["cost_usd"], record["num_turns"]) == (0, 0.5, 3)


def test_case_record_caps_name_the_file(tmp_path: Path) -> None:
    case = tmp_path / "case"
    case.mkdir()
    (case / "big.txt").write_text("x" * (MAX_FILE_BYTES + 1))
    (case / "input.yaml").write_text("n: " + "1" * 5000 + "\n")  # an int Python refuses
    with pytest.raises(ConfigError, match=r"input\.yaml: invalid YAML: Exceeds the limit"):
        case_record(case)
    (case / "input.yaml").write_text("x: " + "[" * 101 + "]" * 101 + "\n")
    with pytest.raises(CapExceeded, match=r"input\.yaml is nested deeper than 100 levels"):
        case_record(case)
    (case / "input.yaml").unlink()
    record = case_record(case)
    stub = record["files"]["big.txt"]
    assert stub["_binary"] is True
    assert "1,048,577 bytes" in stub["_skipped"]


def test_metadata_builtins_error_when_the_case_does_not_record_it(tmp_path: Path) -> None:
    judges = """
        - {name: exit, builtin: exit_code_equals}
        - {name: cost, builtin: cost_budget, arguments: {max_cost_usd: 1}}
        - {name: turns, builtin: turn_budget, arguments: {max_turns: 5}}
        - {name: used, builtin: tool_called, arguments: {name: search}}
        - {name: unused, builtin: tool_not_called, arguments: {name: bash}}
        """
    path = suite_dir(tmp_path, judges, {"c1": {"x.txt": "x"}})
    got = outcomes(path)
    for name in ("exit", "turns", "used", "unused"):
        assert got[name]["status"] == "error"
        assert "is not recorded for this case" in str(got[name]["why"])
    # the harness's cost_budget fails without cost data (reference/builtin-judges.md)
    assert (got["cost"]["raw"], got["cost"]["why"]) == (False, "No cost data available")
    case = tmp_path / "cases" / "c1"
    (case / "run_result.json").write_text('{"exit_code": 0, "cost_usd": 0.5, "num_turns": 3}')
    (case / "tool_calls.json").write_text('[{"name": "search"}]')
    got = outcomes(path)
    assert {name: got[name]["raw"] for name in got} == dict.fromkeys(got, True)


def test_bad_case_yaml_errors_every_judge_of_that_case(tmp_path: Path) -> None:
    path = suite_dir(
        tmp_path,
        "- {name: ok, check: 'return True'}\n",
        {"a": {"input.yaml": "x: [1\n"}, "b": {"input.yaml": "x: 1\n"}},
    )
    suite = load_suite(path)
    bad, good = score_cases(suite, sorted((tmp_path / "cases").iterdir()))
    assert bad.outcomes[0].status == "error"
    assert "input.yaml" in str(bad.outcomes[0].error)
    assert "line 2" in str(bad.outcomes[0].error)
    assert good.outcomes[0].status == "scored"


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rewardkit", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
    )


def test_eval_command_on_the_bundled_example(tmp_path: Path) -> None:
    done = cli("eval", EXAMPLE / "eval.yaml", "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert yaml.safe_load((tmp_path / "summary.yaml").read_text()) == summary
    assert summary["judges"]["correct"] == {  # full precision; a boolean's mean is its pass rate
        "mean": 2 / 3,
        "pass_rate": 2 / 3,
        "scored_cases": 3,
        "errored_cases": 0,
        "skipped_cases": 0,
        "std_error": pytest.approx(1 / 3),
        "ci95": pytest.approx([0.2077, 0.9385], abs=1e-4),  # Wilson, 2 of 3
        "ci_method": "wilson",
    }
    assert summary["judges"]["shows_work"]["pass_rate"] is None
    assert summary["judges"]["shows_work"]["mean"] == 3.0
    assert summary["judges"]["concise"]["skipped_cases"] == 1
    rewards = {case: entry["reward"] for case, entry in summary["per_case"].items()}
    # 0.7 * correct + 0.3 * shows_work normalized from [1, 5]; the gate zeroes case-003
    assert rewards == {"case-001": 1.0, "case-002": 0.7, "case-003": 0.0}
    assert summary["per_case"]["case-002"]["judges"]["concise"]["status"] == "skipped"


def test_a_regression_exits_1_with_a_line_each(tmp_path: Path) -> None:
    path = suite_dir(
        tmp_path,
        "- {name: ok, check: 'return False'}\n- {name: num, check: 'return 0.2'}\n",
        {"a": {"x.txt": "x"}},
        reward="thresholds:\n  ok: {min_pass_rate: 0.5}\n  num: {min_mean: 0.5, max_error_rate: 0}\n",
    )
    done = cli("eval", path, "--out", tmp_path / "out")
    assert done.returncode == 1
    assert "REGRESSIONS: 2 detected" in done.stdout
    assert "  [ok] pass_rate: >= 0.5 -> 0.0" in done.stdout
    assert "  [num] mean: >= 0.5 -> 0.2" in done.stdout


def test_eval_command_errors(tmp_path: Path) -> None:
    done = cli("eval", tmp_path / "missing.yaml", "--out", tmp_path / "out")
    assert done.returncode == 2
    assert "eval.yaml not found" in done.stderr or "missing.yaml" in done.stderr


def test_judge_errors_exit_3(tmp_path: Path) -> None:
    path = suite_dir(
        tmp_path, "- {name: boom, module: myjudges, function: boom}\n", {"a": {"x": "1"}}
    )
    assert cli("eval", path, "--out", tmp_path / "out").returncode == 3


# --- the Harbor bridge -----------------------------------------------------------------


def bridge_task(tmp_path: Path, reward: str = "") -> tuple[Path, Path]:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "eval.yaml").write_text(
        "judges:\n"
        "  - {name: has_answer, builtin: files_exist, arguments: {paths: [answer.txt]}}\n"
        "  - {name: quality, check: 'return 4', score_range: [1, 5]}\n"
        "  - {name: broken, check: 'return 1 / 0'}\n" + reward
    )
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "answer.txt").write_text("42")
    return tests, ws


def test_bridge_writes_reward_json_txt_and_details(tmp_path: Path) -> None:
    tests, ws = bridge_task(tmp_path)
    out = tmp_path / "logs" / "reward.json"
    done = cli(tests, "--workspace", ws, "--output", out)
    assert done.returncode == 3  # `broken` errored, and everything was still written
    assert json.loads(out.read_text()) == {"reward": 0.75}  # default composition: (4-1)/4
    assert out.with_name("reward.txt").read_text() == "0.75\n"
    detail = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    assert detail["kind"] == "eval"
    statuses = {c["name"]: c["status"] for c in detail["criteria"]}
    assert statuses == {"has_answer": "scored", "quality": "scored", "broken": "error"}


def test_bridge_emit_judges_adds_normalized_values(tmp_path: Path) -> None:
    tests, ws = bridge_task(tmp_path, "reward:\n  formula: weighted\n  weights: {quality: 1}\n")
    out = tmp_path / "reward.json"
    cli(tests, "--workspace", ws, "--output", out, "--emit-judges")
    assert json.loads(out.read_text()) == {"reward": 0.75, "has_answer": 1.0, "quality": 0.75}


def test_bridge_takes_ground_truth_from_the_tests_dir_never_the_workspace(tmp_path: Path) -> None:
    tests, ws = bridge_task(tmp_path)
    (tests / "eval.yaml").write_text(
        "judges:\n"
        "  - {name: correct, builtin: answer_matches, arguments: {path: answer.txt}}\n"
        "  - {name: seen, check: 'return True, repr(outputs)'}\n"
    )
    (tests / "annotations.yaml").write_text("expected: reference.txt\ncategory: math\n")
    (tests / "reference.txt").write_text("the reference")
    (tests / "input.yaml").write_text("question: what is 6 x 7\n")
    (ws / "annotations.yaml").write_text("expected: '42'\n")  # the answer the agent wants
    (ws / "input.yaml").write_text("question: what is 42\n")
    out = tmp_path / "reward.json"
    done = cli(tests, "--workspace", ws, "--output", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text()) == {"reward": 0.0}  # 42 is not 'reference.txt'
    (seen,) = [
        c
        for c in json.loads(out.with_name("reward-details.json").read_text())["reward"]["criteria"]
        if c["name"] == "seen"
    ]
    assert "'question': 'what is 6 x 7'" in seen["reasoning"]
    assert "'annotation_expected_content': 'the reference'" in seen["reasoning"]
    assert "'annotations.yaml': \"expected: '42'\\n\"" in seen["reasoning"]  # an output


def test_a_bad_tests_dir_annotations_file_is_a_config_error(tmp_path: Path) -> None:
    tests, ws = bridge_task(tmp_path)
    (tests / "annotations.yaml").write_text("expected: [1\n")
    out = tmp_path / "reward.json"
    done = cli(tests, "--workspace", ws, "--output", out)
    assert done.returncode == 2
    assert "annotations.yaml: line 2: invalid YAML" in done.stderr
    assert not out.exists()


def test_check_prints_the_plan(tmp_path: Path) -> None:
    done = cli("check", EXAMPLE / "eval.yaml")
    assert done.returncode == 0, done.stderr
    assert "reward: formula" in done.stdout
    assert "shows_work: code" in done.stdout
    assert "normalized from [1, 5]" in done.stdout
    hello = Path(__file__).parents[1] / "examples" / "hello" / "tests"
    done = cli("check", hello)
    assert done.returncode == 0, done.stderr
    assert "(nested layout)" in done.stdout
    assert "reward: [[reward]] weighted-mean over correctness (w=3), structure (w=1)" in done.stdout
    (tmp_path / "reward.toml").write_text("weight = 1\n")
    done = cli("check", tmp_path)
    assert done.returncode == 2
    assert "unknown key 'weight'" in done.stderr


def test_a_named_file_is_absent_or_read_confined(tmp_path: Path) -> None:
    """An absent file is None at once; a name spelled out of the case directory still says
    so, absent or not, and a link out of it (to a file or through a directory) is never read."""
    case = tmp_path / "case"
    case.mkdir()
    (tmp_path / "secret.txt").write_text("SECRET")
    (case / "link.log").symlink_to(tmp_path / "secret.txt")
    (case / "sub").symlink_to(tmp_path)
    (case / "stdout.log").write_text("hi")
    assert named(case, "input.yaml") is None
    assert named(case, "logs/stdout.log") is None
    assert named(case, "stdout.log") == b"hi"
    for name in (
        "../nowhere.log",
        "../secret.txt",
        "link.log",
        "sub/secret.txt",
        f"{tmp_path}/secret.txt",
    ):
        with pytest.raises(OutsideWorkspace, match="leads outside"):
            named(case, name)


def test_a_named_file_swapped_for_a_link_after_the_absence_check_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent races the shortcut: `stdout.log` is a file when looked at, then a link out."""
    import os

    from rewardkit.evalyaml import _case_files

    case = tmp_path / "case"
    case.mkdir()
    (tmp_path / "secret.txt").write_text("SECRET")
    (case / "stdout.log").write_text("hi")
    real_lstat = os.lstat

    def racing_lstat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = real_lstat(path, *args, **kwargs)
        if Path(path) == case / "stdout.log" and not Path(path).is_symlink():
            Path(path).unlink()
            Path(path).symlink_to(tmp_path / "secret.txt")
        return found

    monkeypatch.setattr(_case_files.os, "lstat", racing_lstat)
    with pytest.raises(OutsideWorkspace):
        named(case, "stdout.log")
