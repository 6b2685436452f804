"""`rewardkit init KIND [DIR]`: each starter runs as printed, and nothing is overwritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rewardkit.cli.init import STARTERS

BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def run(command: list[str] | str, cwd: Path) -> subprocess.CompletedProcess[str]:
    if isinstance(command, str):  # what the user types, as printed
        command = ["bash", "-e", "-c", command]
    return subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)


def init(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run([str(BIN / "rewardkit"), "init", *args], cwd)


def next_commands(stdout: str) -> list[str]:
    """The commands `init` prints under "Next, run:", in order."""
    after = stdout.split("Next, run:\n", 1)[1].splitlines()
    commands = []
    for line in after:
        if not line.startswith("  "):
            break
        commands.append(line.strip())
    return commands


def harbor(project: Path, stdout: str) -> None:
    assert "reward: 1.0" in stdout
    assert json.loads((project / "out" / "reward.json").read_text()) == {"reward": 1.0}


def eval_suite(project: Path, stdout: str) -> None:
    assert "REGRESSIONS: 0" in stdout
    summary = json.loads((project / "runs" / "first" / "summary.json").read_text())
    assert {case: r["reward"] for case, r in summary["per_case"].items()} == {
        "paris": 1.0,
        "rome": 1.0,
    }


def rl(project: Path, stdout: str) -> None:
    assert "mean reward 0.7500 over 4 valid" in stdout
    results = [json.loads(line) for line in (project / "scored.jsonl").read_text().splitlines()]
    assert sorted((r["id"], r["reward"]) for r in results) == [
        ("add-1", 1.0),
        ("add-2", 0.0),
        ("mul-1", 1.0),
        ("mul-2", 1.0),
    ]
    assert "3 passed" in stdout  # the generated test file


CHECKS: dict[str, Callable[[Path, str], None]] = {"harbor": harbor, "eval": eval_suite, "rl": rl}


@pytest.mark.parametrize("kind", STARTERS)
def test_starter_runs_as_printed(kind: str, tmp_path: Path) -> None:
    done = init(kind, "start", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = [line.strip() for line in done.stdout.split("Next, run:")[0].splitlines()[1:]]
    on_disk = [p for p in (tmp_path / "start").rglob("*") if p.is_file()]
    assert written == sorted(str(p.relative_to(tmp_path)) for p in on_disk)
    commands = next_commands(done.stdout)
    assert commands == ["cd start", *STARTERS[kind].commands]
    ran = run("\n".join(commands), tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    CHECKS[kind](tmp_path / "start", ran.stdout)


def test_checks_cover_every_kind() -> None:
    assert set(CHECKS) == set(STARTERS)


def test_the_default_dir_is_the_current_one(tmp_path: Path) -> None:
    done = init("harbor", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert next_commands(done.stdout) == list(STARTERS["harbor"].commands)  # no `cd`
    assert (tmp_path / "tests" / "output.py").is_file()
    assert os.access(tmp_path / "tests" / "test.sh", os.X_OK)
    assert not list(tmp_path.rglob("*.tmpl"))


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    assert init("rl", "start", cwd=tmp_path).returncode == 0
    rewards = tmp_path / "start" / "rewards.py"
    rewards.write_text("mine\n")
    (tmp_path / "start" / "rollouts.jsonl").unlink()

    refused = init("rl", "start", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"rewardkit init: error: {Path('start', 'rewards.py')} already exists (and 1 more); "
        "nothing was written. Pass --force to overwrite, or choose another DIR.\n"
    )
    assert rewards.read_text() == "mine\n"
    assert not (tmp_path / "start" / "rollouts.jsonl").exists()  # all or nothing

    forced = init("rl", "start", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert "def reward(" in rewards.read_text()
    assert (tmp_path / "start" / "rollouts.jsonl").is_file()


def test_an_unknown_kind_is_a_usage_error(tmp_path: Path) -> None:
    done = init("harbour", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'harbour'" in done.stderr
    assert list(tmp_path.iterdir()) == []
