"""`python` graders run in the jail, under their deadline: never in our process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk

CASES = Path(__file__).with_name("cases")


def python_grader(tmp_path: Path, source: str, **fields: Any) -> Path:
    path = tmp_path / "grader.json"
    path.write_text(json.dumps({"type": "python", "name": "code", "source": source, **fields}))
    return path


def score(path: Path, **given: Any) -> rk.SampleResult:
    with rk.load(path) as scorer:
        return scorer.score({"completion": "x", **given})


def test_a_grader_that_loops_forever_ends_at_its_deadline() -> None:
    result = score(CASES / "python_forever.json")
    assert result.reward is None
    assert result.error == "forever: grade did not return within 1s (the deadline)"
    assert result.duration_s < 10


def test_a_grader_cannot_read_a_file_outside_its_cell(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the answer key")
    result = score(CASES / "python_reads_outside.json", metadata={"secret": str(secret)})
    assert result.reward is None
    assert "snoop: grade raised" in (result.error or "")
    assert "Error" in (result.error or "")  # FileNotFoundError or PermissionError
    assert "the answer key" not in str(result)


def test_a_grader_that_catches_the_denial_learns_nothing(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the answer key")
    source = (
        "def grade(sample, item):\n"
        "    try:\n"
        "        return 1.0 if open(item['secret']).read() else 0.5\n"
        "    except OSError:\n"
        "        return 0.0\n"
    )
    result = score(python_grader(tmp_path, source), metadata={"secret": str(secret)})
    assert result.reward == 0.0


def test_a_grader_has_no_network(tmp_path: Path) -> None:
    source = (
        "import socket\n"
        "def grade(sample, item):\n"
        "    try:\n"
        "        socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "    except OSError:\n"
        "        return 0.0\n"
        "    return 1.0\n"
    )
    assert score(python_grader(tmp_path, source)).reward == 0.0


def test_the_sample_enters_as_data_not_code(tmp_path: Path) -> None:
    source = "def grade(sample, item):\n    return float(sample['output_text'] == '__import__(\"os\")')\n"
    result = score(python_grader(tmp_path, source), completion='__import__("os")')
    assert result.reward == 1.0


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (
            "def grade(sample, item):\n    raise ValueError('no')\n",
            "code: grade raised ValueError: no",
        ),
        (
            "def grade(sample, item):\n    return 'high'\n",
            "code: grade returned str 'high', not a number",
        ),
        (
            "def grade(sample, item):\n    return float('nan')\n",
            "code: grade returned nan, not a finite number",
        ),
        (
            "grade = 3\ndef grade(sample, item):\n    return item['missing']\n",
            "code: grade raised KeyError: 'missing'",
        ),
    ],
)
def test_a_failing_grader_is_an_error_with_its_reason(
    tmp_path: Path, source: str, error: str
) -> None:
    result = score(python_grader(tmp_path, source))
    assert result.reward is None
    assert result.error == error


def test_a_grader_value_above_one_is_clamped_and_its_reason_kept(tmp_path: Path) -> None:
    result = score(python_grader(tmp_path, "def grade(sample, item):\n    return 3\n"))
    assert result.reward == 1.0
    assert result.outcomes[0].reasoning == "grade returned 3"


def test_a_multi_formula_reads_a_python_grader_s_own_value(tmp_path: Path) -> None:
    path = tmp_path / "multi.json"
    sub = {"type": "python", "name": "steps", "source": "def grade(sample, item):\n    return 4\n"}
    path.write_text(
        json.dumps(
            {
                "type": "multi",
                "name": "m",
                "graders": {"steps": sub},
                "calculate_output": "steps / 8",
            }
        )
    )
    assert score(path).reward == 0.5  # 4 / 8, not min(4, 1) / 8
