"""`rewardkit calibrate` against judges of known agreement: the figures it reports contain
the true values in their 95% intervals, the probes catch rigged judges, and the exit codes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from rewardkit.cli import main

from .judge_table import BOOL, SCORE, Judge, write_labels, write_suite

N = 200


def _flip(item: int, sample: int, p: float) -> bool:
    return random.Random(f"{item}-{sample}").random() < p


def _pass_fail(tmp_path: Path) -> tuple[Path, list[bool]]:
    labels = [random.Random(f"label-{i}").random() < 0.5 for i in range(N)]
    items = [
        {"id": f"i{i}", "input": "2+2?", "output": f"answer item={i}", "label": labels[i]}
        for i in range(N)
    ]
    return write_labels(tmp_path / "labels.jsonl", items), labels


def calibrate(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "calibration.json"
    code = main(["calibrate", *args, "--out", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def inside(figure: dict[str, Any], true: float) -> bool:
    low, high = figure["ci95"]
    return bool(low <= true <= high)


def test_kappa_of_a_judge_that_flips_one_label_in_five(judge: Judge, tmp_path: Path) -> None:
    """Balanced labels, each verdict flipped with p = 0.2: the true kappa is
    (0.8 - 0.5) / (1 - 0.5) = 0.6 and the true accuracy 0.8."""
    labels_path, labels = _pass_fail(tmp_path)
    judge.answer = lambda item, text, sample: labels[item] != _flip(item, sample, 0.2)
    code, data = calibrate(tmp_path, str(labels_path), "--eval", str(write_suite(tmp_path, BOOL)))
    assert code == 0
    agreement = data["agreement"]
    assert inside(agreement["kappa"], 0.6), agreement["kappa"]
    assert inside(agreement["accuracy"], 0.8), agreement["accuracy"]
    counts = agreement["confusion"]
    assert sum(counts.values()) == N
    assert data["thresholds"] is None  # verdicts need no threshold
    assert data["labels"] == {"kind": "pass_fail", "items": N, "judged": N}


def test_alpha_across_samples(judge: Judge, tmp_path: Path) -> None:
    """Each sample flips the label with p = 0.2, independently: two samples agree with
    p = 0.8² + 0.2² = 0.68 against 0.5 by chance, so the true alpha is 0.36."""
    labels_path, labels = _pass_fail(tmp_path)
    judge.answer = lambda item, text, sample: labels[item] != _flip(item, sample, 0.2)
    suite = str(write_suite(tmp_path, BOOL))
    code, data = calibrate(tmp_path, str(labels_path), "--eval", suite, "--samples", "3")
    assert code == 0
    assert data["samples"] == 3
    assert data["samples_agreement"]["level"] == "nominal"
    assert inside(data["samples_agreement"]["alpha"], 0.36), data["samples_agreement"]
    # majority of 3: wrong with p = 3 * 0.2² * 0.8 + 0.2³ = 0.104, so kappa = 0.792
    assert inside(data["agreement"]["kappa"], 0.792), data["agreement"]["kappa"]


def _scores(tmp_path: Path) -> tuple[Path, list[int]]:
    labels = [2 + i % 3 for i in range(N)]
    items = [
        {"id": i, "prompt": "rate", "completion": f"text item={i}", "label": labels[i]}
        for i in range(N)
    ]
    return write_labels(tmp_path / "scores.jsonl", items), labels


def _noise(item: int, sample: int) -> int:
    draw = random.Random(f"noise-{item}-{sample}").random()
    return -1 if draw < 0.15 else 1 if draw > 0.85 else 0


def test_alpha_and_correlations_of_a_noisy_score_judge(judge: Judge, tmp_path: Path) -> None:
    """Labels uniform on {2, 3, 4}, the judge's score off by ±1 with p = 0.15 each: the true
    interval alpha is 1 - 0.3 / (2 * (2/3 + 0.9667) / 2) = 0.8163."""
    labels_path, labels = _scores(tmp_path)
    judge.answer = lambda item, text, sample: labels[item] + _noise(item, sample)
    code, data = calibrate(tmp_path, str(labels_path), "--eval", str(write_suite(tmp_path, SCORE)))
    assert code == 0
    agreement = data["agreement"]
    assert inside(agreement["alpha_interval"], 1 - 0.3 / (2 / 3 + 0.3 / 2 + 2 / 3)), agreement
    assert agreement["spearman"]["ci95"][0] > 0.6
    assert agreement["kendall_tau_b"]["ci95"][0] > 0.5


def test_thresholds_recover_the_cut_the_labels_were_made_with(judge: Judge, tmp_path: Path) -> None:
    """People pass a latent quality of 3 or more (uniform on 1..5); the judge reports it,
    off by one with p = 0.2: the best threshold is 3, and 3 makes 40% fail."""
    latent = [1 + i % 5 for i in range(N)]
    items = [
        {"id": f"c{i}", "input": "q", "output": f"item={i}", "label": latent[i] >= 3}
        for i in range(N)
    ]
    labels_path = write_labels(tmp_path / "labels.jsonl", items)

    def answer(item: int, text: str, sample: int) -> int:
        step = 1 if random.Random(item).random() < 0.5 else -1
        score = latent[item] + (step if _flip(item, sample, 0.2) else 0)
        return min(5, max(1, score))

    judge.answer = answer
    suite = str(write_suite(tmp_path, SCORE))
    code, data = calibrate(tmp_path, str(labels_path), "--eval", suite, "--fail-share", "0.4")
    assert code == 0
    best = data["thresholds"]["best"]
    assert best["value"] == 3.0
    assert inside(best, 3.0), best
    assert best["rule"].startswith("max accuracy")
    share = data["thresholds"]["fail_share"]
    assert share["share"] == 0.4
    assert inside(share, 3.0), share
    assert data["agreement"]["pass_at"] == 3.0  # the middle of score_range [1, 5]


def _preferences(tmp_path: Path) -> Path:
    items = []
    for i in range(60):
        good, bad = f"GOOD item={i}", f"poor item={i}"
        first_good = i % 2 == 0
        items.append(
            {
                "id": f"p{i}",
                "input": "which?",
                "output": good if first_good else bad,
                "output_b": bad if first_good else good,
                "preferred": "a" if first_good else "b",
            }
        )
    return write_labels(tmp_path / "prefs.jsonl", items)


def _first_is_good(text: str) -> bool:
    return text.find("GOOD") < text.find("poor")


@pytest.mark.parametrize(("rigged", "bias"), [(False, 0.0), (True, 1.0)])
def test_order_swap_probe_finds_a_position_bias(
    judge: Judge, tmp_path: Path, rigged: bool, bias: float
) -> None:
    """A fair judge prefers GOOD wherever it is; a rigged one always says "a"."""
    judge.answer = lambda item, text, sample: True if rigged else _first_is_good(text)
    suite = str(write_suite(tmp_path, BOOL))
    code, data = calibrate(tmp_path, str(_preferences(tmp_path)), "--eval", suite, "--probes")
    assert code == 0
    swap = data["probes"]["order_swap"]
    assert swap["items"] == 60
    assert swap["shift"]["value"] == bias
    assert inside(swap["shift"], bias)
    assert data["agreement"]["accuracy"]["value"] == (0.5 if rigged else 1.0)


def test_padding_probe_finds_a_length_bias(judge: Judge, tmp_path: Path) -> None:
    """The judge passes anything long: padded wrong answers pass, right ones already did."""
    labels_path, labels = _pass_fail(tmp_path)
    judge.answer = lambda item, text, sample: labels[item] or len(text) > 350
    code, data = calibrate(
        tmp_path, str(labels_path), "--eval", str(write_suite(tmp_path, BOOL)), "--probes"
    )
    assert code == 0
    probes = data["probes"]
    wrong = labels.count(False) / N
    assert inside(probes["padding"]["shift"], wrong)
    assert probes["padding"]["shift"]["ci95"][0] > 0
    assert probes["confident_wrong"]["shift"] == {"value": 0.0, "ci95": [0.0, 0.0]}
    assert "order_swap" not in probes  # no preferences


def test_confident_wrong_probe_finds_a_tone_bias(judge: Judge, tmp_path: Path) -> None:
    labels_path, labels = _pass_fail(tmp_path)
    judge.answer = lambda item, text, sample: labels[item] or "completely certain" in text
    _code, data = calibrate(
        tmp_path, str(labels_path), "--eval", str(write_suite(tmp_path, BOOL)), "--probes"
    )
    probes = data["probes"]
    assert probes["confident_wrong"]["items"] == labels.count(False)
    assert probes["confident_wrong"]["shift"] == {"value": 1.0, "ci95": [1.0, 1.0]}
    assert probes["padding"]["shift"]["value"] == 0.0


@pytest.mark.parametrize(("minimum", "code"), [("0.3", 0), ("0.9", 1)])
def test_min_agreement_sets_the_exit_code(
    judge: Judge, tmp_path: Path, capsys: pytest.CaptureFixture[str], minimum: str, code: int
) -> None:
    labels_path, labels = _pass_fail(tmp_path)
    judge.answer = lambda item, text, sample: labels[item] != _flip(item, sample, 0.2)
    suite = str(write_suite(tmp_path, BOOL))
    got, data = calibrate(tmp_path, str(labels_path), "--eval", suite, "--min-agreement", minimum)
    assert got == code
    assert data["min_agreement"]["statistic"] == "kappa"
    assert data["min_agreement"]["passed"] is (code == 0)
    captured = capsys.readouterr()
    assert "kappa" in captured.out
    assert "wrote" in captured.out
    assert ("below --min-agreement" in captured.err) is (code == 1)


def test_judge_errors_are_counted_and_exit_3(judge: Judge, tmp_path: Path) -> None:
    labels_path, labels = _pass_fail(tmp_path)
    judge.answer = lambda item, text, sample: "not a verdict" if item == 7 else labels[item]
    code, data = calibrate(tmp_path, str(labels_path), "--eval", str(write_suite(tmp_path, BOOL)))
    assert code == 3
    assert data["judge_errors"]["count"] == 1
    assert data["judge_errors"]["first"][0]["id"] == "i7"
    assert data["labels"]["judged"] == N - 1
    assert data["agreement"]["kappa"]["value"] == 1.0


def test_cases_with_labels_in_their_annotations(judge: Judge, tmp_path: Path) -> None:
    for i, label in enumerate([True, False, True, False]):
        case = tmp_path / "cases" / f"case{i}"
        case.mkdir(parents=True)
        (case / "input.yaml").write_text("question: 2+2\n")
        (case / "annotations.yaml").write_text(f"label: {str(label).lower()}\n")
        (case / "answer.txt").write_text(f"item={i}")
    judge.answer = lambda item, text, sample: item % 2 == 0
    suite = str(write_suite(tmp_path, BOOL))
    code, data = calibrate(tmp_path, "--cases", str(tmp_path / "cases"), "--eval", suite)
    assert code == 0
    assert data["agreement"]["accuracy"]["value"] == 1.0
    assert data["labels"]["items"] == 4


JUDGE_TOML = """[judge]
judge = "openai/test-model"
files = ["answer.txt"]

[[criterion]]
description = "Is the answer correct?"
type = "binary"
"""


def test_a_judge_toml_in_a_tests_dir(judge: Judge, tmp_path: Path) -> None:
    """The same judge of known kappa 0.6, as a judge TOML grading each item's workspace."""
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "quality.toml").write_text(JUDGE_TOML)
    labels = [random.Random(f"label-{i}").random() < 0.5 for i in range(N)]
    items = []
    for i in range(N):
        (tmp_path / "ws" / f"w{i}").mkdir(parents=True)
        (tmp_path / "ws" / f"w{i}" / "answer.txt").write_text(f"answer item={i}")
        items.append({"id": i, "workspace": f"ws/w{i}", "label": labels[i]})
    labels_path = write_labels(tmp_path / "labels.jsonl", items)
    judge.toml = True
    judge.answer = lambda item, text, sample: labels[item] != _flip(item, sample, 0.2)
    code, data = calibrate(tmp_path, str(labels_path), "--tests", str(tests))
    assert code == 0, data
    assert data["judge"]["kind"] == "tests"
    assert data["labels"]["judged"] == N
    assert inside(data["agreement"]["kappa"], 0.6), data["agreement"]["kappa"]
    assert data["agreement"]["pass_at"] == 0.5


def test_tests_dir_items_need_a_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "quality.toml").write_text(JUDGE_TOML)
    labels = write_labels(tmp_path / "l.jsonl", [{"id": 1, "output": "x", "label": True}])
    assert main(["calibrate", str(labels), "--tests", str(tests)]) == 2
    assert "l.jsonl:1: workspace: no workspace" in capsys.readouterr().err
    labels = write_labels(tmp_path / "l.jsonl", [{"id": 1, "workspace": "nope", "label": True}])
    assert main(["calibrate", str(labels), "--tests", str(tests)]) == 2
    assert "l.jsonl:1: workspace: no such directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["calibrate", str(labels), "--tests", str(tests), "--probes"])


def test_an_eval_judge_reads_an_items_workspace(judge: Judge, tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "answer.txt").write_text("answer item=3")
    labels = write_labels(tmp_path / "l.jsonl", [{"id": 1, "workspace": "ws", "label": True}])
    judge.answer = lambda item, text, sample: item == 3 and "answer.txt" in text
    code, data = calibrate(tmp_path, str(labels), "--eval", str(write_suite(tmp_path, BOOL)))
    assert code == 0
    assert data["agreement"]["accuracy"]["value"] == 1.0


def test_a_numeric_judge_of_preferences_and_json_output(
    judge: Judge, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A score above the middle of score_range picks the first output."""
    judge.answer = lambda item, text, sample: 5 if _first_is_good(text) else 1
    suite = str(write_suite(tmp_path, SCORE))
    code, data = calibrate(tmp_path, str(_preferences(tmp_path)), "--eval", suite, "--json")
    assert code == 0
    assert data["agreement"]["accuracy"]["value"] == 1.0
    assert data["agreement"]["kappa"]["value"] == 1.0
    assert data["thresholds"] is None  # no threshold for preferences
    assert json.loads(capsys.readouterr().out) == data
