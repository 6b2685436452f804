"""The engine: limits that hold, isolation, and failures recorded as data."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit.engine._isolation import isolated_view

SLEEPERS = "import rewardkit as rk\n" + "".join(
    f"rk.command_succeeds('sleep 0.5', name='s{i}')\n" for i in range(10)
)


def timed_run(tests: Path, ws: Path, tmp_path: Path, **kwargs: object) -> float:
    start = time.perf_counter()
    rk.run(tests, workspace=ws, output=tmp_path / "out" / "reward.json", **kwargs)  # type: ignore[arg-type]
    return time.perf_counter() - start


def test_zero_means_unlimited_and_a_limit_holds(task, tmp_path: Path) -> None:
    tests, ws = task({"checks.py": SLEEPERS})
    unlimited = timed_run(tests, ws, tmp_path, max_concurrent_programmatic=0)
    two = timed_run(tests, ws, tmp_path, max_concurrent_programmatic=2)
    assert unlimited < 1.5  # all ten at once (Harbor: capped by a 6-thread pool, ~1 s)
    assert two >= 2.5  # five waves of two


def test_a_raising_criterion_is_recorded_and_the_rest_are_kept(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion
            def boom(workspace):
                raise ValueError("no luck")

            @criterion
            def text(workspace):
                return "yes"

            rk.file_exists("f.txt")
            """
        },
        {"f.txt": "x"},
    )
    out = tmp_path / "out" / "reward.json"
    assert rk.run(tests, workspace=ws, output=out) == {"reward": 0.3333}
    criteria = json.loads(out.with_name("reward-details.json").read_text())["reward"]["criteria"]
    by_name = {c["name"]: c for c in criteria}
    assert by_name["boom"]["status"] == "error"
    assert by_name["boom"]["error"] == "ValueError: no luck (checks.py:6)"
    assert by_name["boom"]["value"] == 0.0
    assert by_name["text"]["error"] == (
        "Criterion 'text' returned str, expected bool, int, or float "
        "(bare or under 'score' in a dict) (defined in checks.py:8)."
    )
    assert by_name["file_exists:f.txt"]["status"] == "scored"


@pytest.mark.parametrize(("policy", "expected"), [("zero", 0.5), ("omit", 1.0), ("fail", 0.0)])
def test_error_policies(task, tmp_path: Path, policy: str, expected: float) -> None:
    tests, ws = task(
        {
            "checks.py": """
            import rewardkit as rk
            from rewardkit import criterion

            @criterion
            def boom(workspace):
                raise RuntimeError("x")

            rk.file_exists("f.txt")
            """,
            "other/check.py": "import rewardkit as rk\nrk.file_exists('f.txt')\n",
        },
        {"f.txt": "x"},
    )
    result = rk.run(tests, workspace=ws, output=tmp_path / "o.json", on_error=policy)  # type: ignore[arg-type]
    assert result["checks"] == expected
    assert result["other"] == (0.0 if policy == "fail" else 1.0)


@pytest.mark.parametrize(
    "value", ["float('nan')", "float('inf')", "{'score': 1, 'extra': 2}", "None"]
)
def test_unusable_returns_are_errors(task, tmp_path: Path, value: str) -> None:
    tests, ws = task(
        {"c.py": f"from rewardkit import criterion\n@criterion\ndef c(w):\n    return {value}\n"}
    )
    out = tmp_path / "o.json"
    assert rk.run(tests, workspace=ws, output=out) == {"reward": 0.0}
    (detail,) = json.loads(out.with_name("reward-details.json").read_text())["reward"]["criteria"]
    assert detail["status"] == "error"


def test_numbers_out_of_range_are_kept_with_a_warning(task, tmp_path: Path) -> None:
    tests, ws = task(
        {"c.py": "from rewardkit import criterion\n@criterion\ndef big(w):\n    return 2\n"}
    )
    with pytest.warns(UserWarning, match="returned 2.0000 which exceeds 1.0"):
        assert rk.run(tests, workspace=ws, output=tmp_path / "o.json") == {"reward": 2.0}


def test_numpy_like_bools_are_accepted(task, tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    tests, ws = task(
        {
            "c.py": "import numpy as np\nfrom rewardkit import criterion\n"
            "@criterion\ndef c(w):\n    return np.bool_(True)\n"
        }
    )
    assert np.bool_(True)
    assert rk.run(tests, workspace=ws, output=tmp_path / "o.json") == {"reward": 1.0}


@pytest.mark.parametrize("strategy", ["copy", None])
def test_isolated_view_keeps_writes_away_from_the_workspace(tmp_path: Path, strategy) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "keep.txt").write_text("original")
    with isolated_view(ws, strategy) as view:
        assert view != ws
        assert (view / "keep.txt").read_text() == "original"
        (view / "keep.txt").write_text("changed")
        (view / "new.txt").write_text("new")
    assert (ws / "keep.txt").read_text() == "original"
    assert not (ws / "new.txt").exists()
    assert not view.exists()


def test_isolated_criteria_do_not_leak_side_effects(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": """
            import rewardkit as rk
            rk.command_succeeds("rm f.txt && touch made.txt", isolated=True)
            rk.file_exists("f.txt")
            rk.file_not_exists("made.txt")
            """
        },
        {"f.txt": "x"},
    )
    assert rk.run(tests, workspace=ws, output=tmp_path / "o.json") == {"reward": 1.0}
    assert sorted(os.listdir(ws)) == ["f.txt"]


def test_command_timeout_kills_the_whole_group(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "c.py": "import rewardkit as rk\n"
            "rk.command_succeeds('sleep 20 & sleep 20; wait', timeout=0.5)\n"
        }
    )
    start = time.perf_counter()
    assert rk.run(tests, workspace=ws, output=tmp_path / "o.json") == {"reward": 0.0}
    assert time.perf_counter() - start < 5


def test_a_grandchild_in_its_own_session_cannot_hold_the_deadline(tmp_path: Path) -> None:
    from rewardkit.criteria._command import run_command

    start = time.perf_counter()
    result = run_command("setsid sleep 8 & sleep 30", tmp_path, 0.5)
    assert result.timed_out
    assert time.perf_counter() - start < 6  # ≤1.5 s (the deadline, then 1 s of draining); not 8


def test_sys_exit_in_a_criterion_is_an_error_not_the_end(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "c.py": "import sys\nfrom rewardkit import criterion\n@criterion\ndef c(w):\n    sys.exit(3)\n"
        },
        {"f.txt": "x"},
    )
    out = tmp_path / "o.json"
    assert rk.run(tests, workspace=ws, output=out) == {"reward": 0.0}
    (detail,) = json.loads(out.with_name("reward-details.json").read_text())["reward"]["criteria"]
    assert detail["error"] == "SystemExit: 3 (c.py:5)"
