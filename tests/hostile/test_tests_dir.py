"""A Harbor tests dir graded against hostile work: bounded time and memory, outputs written,
the other criteria's scores kept, nothing outside the workspace in any output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.hostile._measure import assert_no_leak, measure, rewardkit_cmd
from tests.hostile._tests_dir_attacks import ATTACKS, SECRET, Attack, build, remove_tree


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.name)
def test_attack_is_contained(tmp_path: Path, attack: Attack) -> None:
    try:
        _contained(tmp_path, attack)
    finally:
        remove_tree(tmp_path / "ws")  # pytest's own clean-up recurses


def _contained(tmp_path: Path, attack: Attack) -> None:
    tests, ws = build(tmp_path, attack)
    out = tmp_path / "out" / "reward.json"
    run = measure(
        rewardkit_cmd(tests, "--workspace", ws, "--output", "out/reward.json", *attack.flags),
        limit_s=attack.limit_s,
        cwd=tmp_path,  # a relative --output: a criterion's chdir must not move it
    )
    assert run.returncode in (0, 3), run.stderr
    assert run.wall_s < attack.limit_s
    assert run.peak_rss_mb < attack.max_rss_mb, f"peak RSS {run.peak_rss_mb:.0f} MB"
    assert set(json.loads(out.read_text())) == {"reward"}
    details = json.loads((out.parent / "reward-details.json").read_text())
    files = {c["name"]: c["detail"] for c in details["reward"]["components"]}
    assert files["good"]["score"] == 1.0
    hostile = files["hostile"]["criteria"]
    assert {c["status"] for c in hostile} <= attack.statuses, hostile
    if attack.says:
        assert any(attack.says in (c.get("error") or "") for c in hostile), hostile
    assert_no_leak(SECRET, out, out.parent / "reward-details.json", texts=(run.stdout, run.stderr))


def test_authors_absolute_paths_score_as_in_rewardkit(tmp_path: Path) -> None:
    """`/app/output.txt` graded at `/app`, and `/logs/verifier/reply.txt`, both score 1."""
    ws, logs, tests = tmp_path / "app", tmp_path / "logs" / "verifier", tmp_path / "tests"
    for directory in (ws, logs, tests):
        directory.mkdir(parents=True)
    (ws / "output.txt").write_text("done\n")
    (logs / "reply.txt").write_text("verdict: PASS\n")
    (tests / "checks.py").write_text(
        "import rewardkit as rk\n"
        f"rk.file_exists({str(ws / 'output.txt')!r})\n"
        f"rk.file_contains_regex({str(logs / 'reply.txt')!r}, r'verdict: PASS')\n"
    )
    out = tmp_path / "out" / "reward.json"
    run = measure(rewardkit_cmd(tests, "--workspace", ws, "--output", out), limit_s=30)
    assert run.returncode == 0, run.stderr
    assert json.loads(out.read_text()) == {"reward": 1.0}
