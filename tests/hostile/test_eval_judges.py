"""eval.yaml code judges that hang, exit or exhaust memory: each is its own outcome; the
summary (or, through the Harbor bridge, reward.json) is written with the others kept."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hostile._measure import measure, rewardkit_cmd

JUDGES = {
    "hang": "while True:\n    pass",
    "leave": "import os\nos._exit(0)",
    "hog": "return len(bytearray(3 << 30)) > 0",
    "chdir": "import os\nos.chdir('/')\nreturn True",
}
EXPECTED = {"hang": "timeout", "leave": "error", "hog": "error", "chdir": "scored", "ok": "scored"}


def _eval_yaml(directory: Path) -> Path:
    judges = [{"name": name, "check": body} for name, body in JUDGES.items()]
    judges.append({"name": "ok", "check": 'return outputs["files"].get("answer.txt") == "42"'})
    path = directory / "eval.yaml"
    path.write_text(json.dumps({"judges": judges, "reward": {"judge": "ok"}}))  # JSON is YAML
    return path


def test_eval_code_judges_are_contained(tmp_path: Path) -> None:
    eval_yaml = _eval_yaml(tmp_path)
    case = tmp_path / "cases" / "one"
    case.mkdir(parents=True)
    (case / "answer.txt").write_text("42")
    out = tmp_path / "out"
    flags = ("--judge-timeout", "2", "--judge-memory", "1024", "--no-progress")
    done = measure(
        rewardkit_cmd("eval", eval_yaml, "--cases", tmp_path / "cases", "--out", out, *flags),
        limit_s=30,
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stderr
    assert done.wall_s < 15  # ≈2.5 s (the 2 s deadline); generous for a loaded machine
    assert done.peak_rss_mb < 400
    judges = json.loads((out / "summary.json").read_text())["per_case"]["one"]["judges"]
    assert {name: j["status"] for name, j in judges.items()} == EXPECTED
    assert "2 s deadline" in judges["hang"]["error"]
    assert "exit code 0" in judges["leave"]["error"]
    assert "MemoryError" in judges["hog"]["error"]


def test_bridge_code_judges_are_contained(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    _eval_yaml(tests)
    ws = tmp_path / "app"
    ws.mkdir()
    (ws / "answer.txt").write_text("42")
    out = tmp_path / "out" / "reward.json"
    flags = ("--criterion-timeout", "2", "--criterion-memory", "1024")
    done = measure(
        rewardkit_cmd(tests, "--workspace", ws, "--output", out, *flags), limit_s=30, cwd=tmp_path
    )
    assert done.returncode == 3, done.stderr
    assert done.wall_s < 15
    assert json.loads(out.read_text()) == {"reward": 1.0}
    details = json.loads(out.with_name("reward-details.json").read_text())
    assert {c["name"]: c["status"] for c in details["reward"]["criteria"]} == EXPECTED


def test_an_agent_judges_copy_of_the_case_holds_only_its_own_regular_files(tmp_path: Path) -> None:
    import os

    from rewardkit.evalyaml._agent_judge import SCORE_FILE, _answer_text, _stage

    case, outside = tmp_path / "case", tmp_path / "outside"
    for directory in (case, outside):
        directory.mkdir()
    (outside / "secret.txt").write_text("SECRET")
    (case / "answer.txt").write_text("42")
    (case / "link.txt").symlink_to(outside / "secret.txt")
    (case / "dir").symlink_to(outside)
    os.mkfifo(case / "pipe")
    shown = {name: "" for name in ("answer.txt", "link.txt", "dir/secret.txt", "pipe")}
    staged = _stage({"case_path": str(case), "files": shown}, tmp_path / "staged", [])
    assert sorted(p.name for p in staged.rglob("*")) == ["answer.txt", "output"]
    assert not any(p.is_symlink() for p in staged.rglob("*"))
    (staged / SCORE_FILE).symlink_to(outside / "secret.txt")  # the judging agent's trick
    assert _answer_text(staged, "final") == ("final", "final answer")
