"""What the command line says: unique judge keys, judge errors, failed checks, --json, --strict."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import write_tree


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rewardkit", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


TWO_OF_ONE_NAME = {
    "checks.py": "import rewardkit as rk\n"
    "rk.json_key_equals('result.json', 'a', 1)\n"
    "rk.json_key_equals('result.json', 'b', 2)\n",
    "more.py": "import rewardkit as rk\nrk.file_exists('result.json')\n",
    "more2.py": "import rewardkit as rk\nrk.file_exists('result.json')\n",
}


def test_criteria_of_one_name_keep_a_key_each_and_check_warns(tmp_path: Path) -> None:
    tests = write_tree(tmp_path / "tests", TWO_OF_ONE_NAME)
    ws = write_tree(tmp_path / "ws", {"result.json": '{"a": 1, "b": 3}'})
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"id": "x", "workspace": str(ws)}) + "\n")
    out = tmp_path / "r.jsonl"
    done = cli("score", samples, "--config", tests, "--out", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["judges"] == {
        "json_key_equals:result.json": 1.0,
        "json_key_equals:result.json #2": 0.0,
        "file_exists:result.json": 1.0,
        "file_exists:result.json #2": 1.0,
    }
    checked = cli("check", tests)
    assert checked.returncode == 0, checked.stderr
    assert "- json_key_equals:result.json #2 (w=1)" in checked.stdout
    warned = [line for line in checked.stderr.splitlines() if "reported as" in line]
    assert len(warned) == 2
    assert "more2.py" in warned[1]
    assert "'file_exists:result.json #2'" in warned[1]
    details = cli(
        "tests", "--workspace", ws, "--output", tmp_path / "o" / "reward.json", cwd=tmp_path
    )
    assert details.returncode == 0, details.stderr
    assert "reported as" not in details.stderr  # a run says nothing: check is where to look


JUDGES = """
def boom(outputs):
    raise ValueError("judge crashed on purpose")

def partial(outputs):
    return 0.75

def right(outputs):
    return True
"""


def suite(tmp_path: Path, judges: str, reward: str = "", cases: int = 3) -> Path:
    (tmp_path / "myjudges.py").write_text(JUDGES)
    (tmp_path / "eval.yaml").write_text(
        "name: demo\ndataset: {path: cases}\njudges:\n" + judges + reward
    )
    for i in range(cases):
        write_tree(tmp_path / "cases" / f"case-{i}", {"output.txt": "yes"})
    return tmp_path / "eval.yaml"


def judge(name: str, function: str, extra: str = "") -> str:
    return f"  - name: {name}\n    module: myjudges\n    function: {function}\n{extra}"


def test_eval_prints_a_line_per_judge_error_and_exits_3(tmp_path: Path) -> None:
    path = suite(tmp_path, judge("boom", "boom") + judge("ok", "right"))
    done = cli("eval", path, "--out", tmp_path / "run")
    assert done.returncode == 3, done.stderr
    lines = [line for line in done.stderr.splitlines() if "judge 'boom' errored" in line]
    assert len(lines) == 3
    assert "ValueError: judge crashed on purpose (myjudges.py:3)" in lines[0]
    assert lines[0].startswith("rewardkit eval: case case-")


def test_eval_error_lines_stop_at_twenty_then_one_line(tmp_path: Path) -> None:
    path = suite(tmp_path, judge("boom", "boom"), cases=25)
    done = cli("eval", path, "--out", tmp_path / "run")
    assert done.stderr.count("judge 'boom' errored") == 20
    assert f"5 more errors; each case's are in {tmp_path / 'run' / 'cases.jsonl'}" in done.stderr


def test_eval_warns_once_about_a_default_scale_and_flags_the_silent_zero(tmp_path: Path) -> None:
    path = suite(tmp_path, judge("partial", "partial"))
    done = cli("eval", path, "--out", tmp_path / "run")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("judge 'partial' returned 0.75 and has no score_range") == 1
    assert "warning: the reward is 0 on 3 of 3 scored cases" in done.stderr
    strict = cli("eval", path, "--out", tmp_path / "run2", "--strict")
    assert strict.returncode == 4
    ranged = suite(tmp_path, judge("partial", "partial", "    score_range: [0, 1]\n"))
    fine = cli("eval", ranged, "--out", tmp_path / "run3", "--strict")
    assert fine.returncode == 0, fine.stderr
    assert fine.stderr == ""


def test_eval_a_formula_that_fails_on_every_case_exits_3_naming_it(tmp_path: Path) -> None:
    path = suite(
        tmp_path,
        judge("correct", "right"),
        reward="reward:\n  formula: corect\n",
    )
    assert cli("check", path).returncode == 2
    done = cli("eval", path, "--out", tmp_path / "run")
    assert done.returncode == 3
    assert done.stderr.count("reward.formula failed on this case (NameError") == 3
    assert "Did you mean 'correct'?" in done.stderr


def test_eval_json_is_the_summary(tmp_path: Path) -> None:
    path = suite(tmp_path, judge("ok", "right"))
    done = cli("eval", path, "--out", tmp_path / "run", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["reward"]["mean"] == 1.0
    assert summary["judges"]["ok"]["pass_rate"] == 1.0
    written = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary == {k: v for k, v in written.items() if k != "per_case"}


def test_check_json_and_the_consequence_of_no_score_range(tmp_path: Path) -> None:
    path = suite(tmp_path, judge("partial", "partial"))
    text = cli("check", path)
    assert "no score_range: a 1.0 from it reads as 0.0" in text.stdout
    done = cli("check", path, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["valid"] is True
    assert data["plan"]["judges"][0]["name"] == "partial"
    assert data["plan"]["judges"][0]["score_range"] is None
    typo = suite(tmp_path, judge("correct", "right"), reward="reward:\n  formula: corect\n")
    bad = json.loads(cli("check", typo, "--json").stdout)
    assert bad["valid"] is False
    assert "Did you mean 'correct'?" in bad["errors"][0]
    missing = cli("check", tmp_path / "nope", "--json")
    assert missing.returncode == 2
    assert json.loads(missing.stdout)["plan"] is None
    tests = write_tree(tmp_path / "tests", TWO_OF_ONE_NAME)
    plan = json.loads(cli("check", tests, "--json").stdout)["plan"]
    assert plan["layout"] == "flat"
    names = [c["name"] for i in plan["keys"][0]["inputs"] for c in i["criteria"]]
    assert names[:2] == ["json_key_equals:result.json", "json_key_equals:result.json #2"]
    assert cli("check", tests, "--strict").returncode == 4


def test_score_json_summary(tmp_path: Path) -> None:
    (tmp_path / "rewards.py").write_text("def reward(messages, **_):\n    return 1.0\n")
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text(
        "".join(json.dumps({"id": i, "prompt": "q", "completion": "x"}) + "\n" for i in range(5))
    )
    done = cli(
        "score",
        rollouts,
        "--config",
        "rewards:reward",
        "--out",
        tmp_path / "o.jsonl",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["scored"] == 5
    assert summary["mean_reward"] == 1.0
    assert summary["silent_zero"] is None
    assert summary["no_value"] == {}


BROKEN = {
    "a file that raises, named in [scoring]": (
        {
            "checks.py": "import rewardkit as rk\nrk.file_exists('a.txt')\nx = 1 / 0\n",
            "reward.toml": '[scoring.checks]\naggregation = "all_pass"\n',
        },
        "checks.py: failed to load: ZeroDivisionError: division by zero (checks.py:3)",
    ),
    "a file that does not parse, under a [[reward]]": (
        {
            "checks.py": "import rewardkit as rk\nrk.file_exists('a'\n",
            "reward.toml": '[[reward]]\nname = "reward"\nweights = {checks = 1}\n',
        },
        "checks.py: failed to load: SyntaxError: '(' was never closed (checks.py:2)",
    ),
    "a broken directory named in weights": (
        {
            "sub/checks.py": "raise RuntimeError('x')\n",
            "other.py": "import rewardkit as rk\nrk.file_exists('a')\n",
            "reward.toml": '[[reward]]\nname = "total"\nweights = {sub = 1, other = 1}\n',
        },
        "sub/checks.py: failed to load: RuntimeError: x (checks.py:1)",
    ),
}


@pytest.mark.parametrize("case", BROKEN, ids=list(BROKEN))
def test_a_file_that_fails_to_load_is_the_only_error(tmp_path: Path, case: str) -> None:
    files, error = BROKEN[case]
    tests = write_tree(tmp_path / "tests", files)
    done = cli("check", tests)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"rewardkit check: error: {tests}/{error}. Fix the file."]


def test_an_error_in_a_helper_module_names_both_lines(tmp_path: Path) -> None:
    tests = write_tree(
        tmp_path / "tests",
        {
            "checks.py": "import rewardkit as rk\nfrom helper import thing\nrk.file_exists('a')\n",
            "helper.py": "thing = undefined_name\n",
        },
    )
    done = cli("check", tests)
    assert "NameError: name 'undefined_name' is not defined (helper.py:1, from checks.py:2)" in (
        done.stderr
    )
    assert "frozen" not in done.stderr


def test_a_file_without_judges_is_nothing_to_score(tmp_path: Path) -> None:
    """Another tool's `kind: Eval` file loads in the harness with 0 judges; scoring it would
    give every case the empty composition's 1.0, so check and eval both refuse it."""
    (tmp_path / "eval.yaml").write_text("kind: Eval\nname: other\ndataset: {path: cases}\n")
    write_tree(tmp_path / "cases" / "a", {"out.txt": "x"})
    for command in (["check"], ["eval", "--out", str(tmp_path / "run")]):
        done = cli(command[0], tmp_path / "eval.yaml", *command[1:])
        assert done.returncode == 2, done.stderr
        assert "nothing to score" in done.stderr
    assert not (tmp_path / "run").exists()


def test_a_judge_error_quoting_the_agent_cannot_flood_or_drive_the_terminal(
    tmp_path: Path,
) -> None:
    """An error message may quote what the agent wrote: 5 MB with escape sequences that
    would clear the screen and print a fake verdict. The line shown is short and inert,
    the recorded error capped."""
    (tmp_path / "hostile.py").write_text(
        "def judge(outputs):\n"
        "    raise ValueError('\\x1b[2J\\x1b[32mall checks PASS\\x1b[0m\\n' + 'A' * 5_000_000)\n"
    )
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n  - {name: j, module: hostile, function: judge}\n"
    )
    write_tree(tmp_path / "cases" / "c1", {"out.txt": "x"})
    done = cli("eval", tmp_path / "eval.yaml", "--out", tmp_path / "run")
    assert done.returncode == 3
    (line,) = [x for x in done.stderr.splitlines() if "judge 'j' errored" in x]
    assert "\x1b" not in done.stderr
    assert len(line) <= 400
    recorded = (tmp_path / "run" / "cases.jsonl").read_text()
    assert len(recorded) < 5_000
    assert "4,998,0" in recorded  # says how much was cut
