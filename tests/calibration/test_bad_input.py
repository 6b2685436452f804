"""Bad labels and arguments: exit 2, one line naming the file (and line) and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardkit.cli import main

from .judge_table import BOOL, write_suite

GOOD = '{"id": "a", "input": "q", "output": "x", "label": true}\n'


@pytest.mark.parametrize(
    ("second", "where"),
    [
        ('{"id": "b", "input": "q", "output": "x", "label": "yes"}', "labels.jsonl:2: label: "),
        ('{"id": "b", "input": "q", "output": "x"}', "labels.jsonl:2: label: missing"),
        ('{"id": "b", "input": "q", "label": true}', "labels.jsonl:2: output: missing"),
        ('{"id": "b", "output": 3, "label": true}', "labels.jsonl:2: output: must be a string"),
        ('{"id": "a", "output": "x", "label": true}', "labels.jsonl:2: id: id 'a' is used twice"),
        ('{"id": "b", "output": "x", "lable": true}', "labels.jsonl:2: lable: unknown key"),
        ('{"id": "b", "output": "x", "label": 4}', "labels.jsonl:2: label: a score label among"),
        ('{"output": "x", "label": true}', "labels.jsonl:2: id: must be"),
        ("[1, 2]", "labels.jsonl:2: must be a JSON object"),
        ("{not json", "labels.jsonl:2: not valid JSON"),
        (
            '{"id": "b", "output": "x", "output_b": "y", "preferred": "c"}',
            "labels.jsonl:2: preferred: must be",
        ),
        ('{"id": "b", "output": "x", "preferred": "a"}', "labels.jsonl:2: preferred: "),
        (
            '{"id": "b", "output": "x", "output_b": "y", "preferred": "a", "label": true}',
            "labels.jsonl:2: label: a preference item",
        ),
        ('{"id": "b", "output": "x", "label": true, "annotations": 1}', "annotations: must be"),
    ],
)
def test_a_bad_line_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], second: str, where: str
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(GOOD + second + "\n")
    suite = write_suite(tmp_path, BOOL)
    assert (
        main(["calibrate", str(labels), "--eval", str(suite), "--out", str(tmp_path / "c.json")])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.startswith("rewardkit calibrate: error: ")
    assert "\n" not in err
    assert where in err, err
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judge", "corect"], "no judge named 'corect'. Did you mean 'correct'?"),
        (["--judge", "x", "--eval", "missing"], "eval.yaml not found"),
    ],
)
def test_bad_judge_or_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(GOOD)
    suite = write_suite(tmp_path, BOOL)
    assert main(["calibrate", str(labels), "--eval", str(suite), *args]) == 2
    assert message in capsys.readouterr().err


def test_two_judges_need_a_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(GOOD)
    suite = write_suite(tmp_path, BOOL, BOOL.replace("correct", "other"))
    assert main(["calibrate", str(labels), "--eval", str(suite)]) == 2
    assert "pass --judge NAME (one of correct, other)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [[], ["labels.jsonl", "--cases", "cases"], ["labels.jsonl", "--samples", "0"],
     ["labels.jsonl", "--fail-share", "1.5"]],
)  # fmt: skip
def test_bad_arguments_exit_2(tmp_path: Path, args: list[str]) -> None:
    suite = write_suite(tmp_path, BOOL)
    with pytest.raises(SystemExit) as exited:
        main(["calibrate", *args, "--eval", str(suite)])
    assert exited.value.code == 2


def test_missing_file_and_empty_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = str(write_suite(tmp_path, BOOL))
    assert main(["calibrate", str(tmp_path / "none.jsonl"), "--eval", suite]) == 2
    assert "none.jsonl: no such file" in capsys.readouterr().err
    (tmp_path / "empty.jsonl").write_text("\n")
    assert main(["calibrate", str(tmp_path / "empty.jsonl"), "--eval", suite]) == 2
    assert "no labelled items" in capsys.readouterr().err


def test_a_case_without_a_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "annotations.yaml").write_text("expected: 4\n")
    suite = str(write_suite(tmp_path, BOOL))
    assert main(["calibrate", "--cases", str(tmp_path / "cases"), "--eval", suite]) == 2
    assert "c1/annotations.yaml: label: no label" in capsys.readouterr().err
