"""Sample inputs for reports: a Harbor job directory (with broken trials) and results files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TASKS = ("fix-bug", "add-feature", "write-docs", "refactor")


def _criterion(name: str, value: object, **extra: object) -> dict[str, object]:
    number = float(value) if isinstance(value, bool | int | float) else None
    entry: dict[str, object] = {"name": name, "value": number, "raw": value, "weight": 1.0}
    return entry | {"status": "scored", "duration_ms": 1.0} | extra


def _details(tests_pass: bool, exists: bool, quality: dict[str, object]) -> dict[str, object]:
    checks = (tests_pass + exists) / 2
    q = quality.get("value") or 0.0
    score = round((2 * checks + q) / 3, 4)  # type: ignore[operator]
    return {
        "reward": {
            "kind": "group",
            "score": score,
            "aggregation": "weighted-mean",
            "components": [
                {
                    "name": "checks",
                    "weight": 2.0,
                    "detail": {
                        "score": checks,
                        "kind": "programmatic",
                        "criteria": [
                            _criterion("tests_pass", tests_pass),
                            _criterion("file_exists:out.txt", exists),
                        ],
                    },
                },
                {
                    "name": "quality",
                    "weight": 1.0,
                    "detail": {"score": q, "kind": "llm", "criteria": [quality]},
                },
            ],
        }
    }


def write_job(root: Path) -> Path:
    """`root/demo-job`: 4 tasks by 3 trials, an errored and a timed-out judge, and 3 bad trials."""
    job = root / "demo-job"
    for t, task in enumerate(TASKS):
        for trial in range(3):
            tests_pass = (t + trial) % 3 != 0
            exists = trial != 2 or t == 0
            quality = _criterion(
                "readability",
                round(0.2 + 0.25 * ((t * 3 + trial) % 4), 2),
                reasoning=f"<b>clear</b> code for {task}",
                model="fake/judge",
            )
            if (t, trial) == (1, 1):
                quality = {
                    "name": "readability",
                    "value": None,
                    "raw": None,
                    "weight": 1.0,
                    "error": "JudgeUnavailable: fake/judge: 503 <script>x</script>",
                    "status": "error",
                    "duration_ms": 3.0,
                }
            if (t, trial) == (2, 0):
                quality = {
                    "name": "readability",
                    "value": None,
                    "raw": None,
                    "weight": 1.0,
                    "error": "no reply within 30s",
                    "status": "timeout",
                    "duration_ms": 3.0,
                }
            details = _details(tests_pass, exists, quality)
            verifier = job / f"{task}__{t}{trial}abc" / "verifier"
            verifier.mkdir(parents=True)
            reward = details["reward"]["score"]  # type: ignore[index]
            (verifier / "reward.json").write_text(json.dumps({"reward": reward}))
            (verifier / "reward-details.json").write_text(json.dumps(details))
    broken = job / "broken__x1" / "verifier"
    broken.mkdir(parents=True)
    (broken / "reward.json").write_text('{"reward": 0.')  # truncated
    old = job / "legacy__x1" / "verifier"
    old.mkdir(parents=True)
    (old / "reward.txt").write_text("0.5\n")
    legacy = {
        "reward": {
            "score": 0.5,
            "kind": "programmatic",
            "criteria": [
                {"name": "tests_pass", "value": 1.0, "raw": True, "weight": 1.0},
                {
                    "name": "lint",
                    "value": 0.0,
                    "raw": None,
                    "weight": 1.0,
                    "error": "ValueError: boom",
                },
            ],
        }
    }  # an older rewardkit: no status
    (old / "reward-details.json").write_text(json.dumps(legacy))
    empty = job / "crashed__x1" / "verifier"
    empty.mkdir(parents=True)
    (empty / "test-stdout.txt").write_text("killed")
    return job


@pytest.fixture
def job(tmp_path: Path) -> Path:
    return write_job(tmp_path)


def write_results(path: Path) -> Path:
    """10 groups of 4 samples: `correct` varies in half the groups, `format` is always 1, and
    the reward grows with the completion length within each group (length gaming)."""
    lines = []
    for g in range(10):
        for s in range(4):
            correct = float(g < 5 and s >= 2)
            style = round(0.25 * s, 2)
            reward = round((correct + style + 1.0) / 3, 4)
            lines.append(
                {
                    "id": f"g{g}-s{s}",
                    "line": len(lines) + 1,
                    "reward": reward,
                    "valid": True,
                    "judges": {"correct": correct, "format": 1.0, "style": style},
                    "group": f"prompt-{g}",
                    "length": 100 + 50 * s + g,
                }
            )
    lines.append(
        {
            "id": "bad",
            "line": 41,
            "reward": None,
            "valid": False,
            "judges": {},
            "error": "deadline of 30s exceeded",
            "metadata": {"group": "prompt-0"},
        }
    )
    path.write_text("\n".join(json.dumps(line) for line in lines) + '\n{"id": "cut')
    return path


@pytest.fixture
def results(tmp_path: Path) -> Path:
    return write_results(tmp_path / "results.jsonl")
