"""`rewardkit report` over a Harbor job directory or a results file an agent could have written.

Each attack sits next to a benign trial (or result line). The report must end within
`MAX_WALL_S` and `MAX_RSS_MB`, still write its HTML, warn about the hostile file naming it and
the cap, keep the benign case, escape every word of the input in the page, and never show a
secret planted outside the job directory (and linked to).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from hostile._measure import Measured, assert_no_leak, measure, rewardkit_cmd

SECRET = "s3cret-planted-outside-the-job"
LIMIT_S = 60
"""The run is killed here; `measure` then reports no exit code."""
MAX_WALL_S = 20
MAX_RSS_MB = 400
DEPTH = 100_000
PAYLOAD = '<script>alert("rk-xss")</script>'
IMG = '"><img src=x onerror=alert(1)>'

Builder = Callable[[Path, Path], None]
"""Writes the hostile trial's `verifier/` (given it, and the directory holding the secret)."""


# --- attack builders ---------------------------------------------------------------------


def sparse_reward(verifier: Path, outside: Path) -> None:
    with open(verifier / "reward.json", "wb") as handle:
        handle.truncate(1 << 30)  # sparse: 1 GiB that costs no disk


def deep_reward(verifier: Path, outside: Path) -> None:
    (verifier / "reward.json").write_text("[" * DEPTH + "]" * DEPTH)


def deep_details(verifier: Path, outside: Path) -> None:
    (verifier / "reward.json").write_text('{"reward": 0.5}')
    (verifier / "reward-details.json").write_text('{"reward": ' + "[" * DEPTH + "]" * DEPTH + "}")


def million_criteria(verifier: Path, outside: Path) -> None:
    (verifier / "reward.json").write_text('{"reward": 0.5}')
    criteria = ",".join(['{"value": 1}'] * 1_000_000)
    (verifier / "reward-details.json").write_text(
        '{"reward": {"score": 0.5, "kind": "programmatic", "criteria": [' + criteria + "]}}"
    )


def linked_out(verifier: Path, outside: Path) -> None:
    (verifier / "reward.json").symlink_to(outside / "secret.json")


def details_linked_out(verifier: Path, outside: Path) -> None:
    (verifier / "reward.json").write_text('{"reward": 0.5}')
    (verifier / "reward-details.json").symlink_to(outside / "details.json")


def fifo(verifier: Path, outside: Path) -> None:
    os.mkfifo(verifier / "reward.json")


def fifo_details(verifier: Path, outside: Path) -> None:
    (verifier / "reward.json").write_text('{"reward": 0.5}')
    os.mkfifo(verifier / "reward-details.json")


ATTACKS: dict[str, tuple[Builder, tuple[str, ...]]] = {
    "1 GiB sparse reward.json": (sparse_reward, ("reward.json", "over the 1 MiB read cap")),
    "reward.json nested 100,000 deep": (deep_reward, ("reward.json", "deeper than 100 levels")),
    "reward-details.json nested 100,000 deep": (
        deep_details,
        ("reward-details.json", "deeper than 100 levels"),
    ),
    "reward-details.json with 1,000,000 criteria": (
        million_criteria,
        ("reward-details.json", "more than 1,000,000 values (the cap)"),
    ),
    "reward.json linked outside the job": (linked_out, ("reward.json", "outside")),
    "reward-details.json linked outside the job": (
        details_linked_out,
        ("reward-details.json", "outside"),
    ),
    "a FIFO named reward.json": (fifo, ()),  # not a file: an empty verifier, passed over
    "a FIFO named reward-details.json": (fifo_details, ()),
}
"""Attack → (builder, fragments of the warning about it; none: the file is passed over)."""


# --- helpers -----------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory outside the job, holding the secret as a reward file and as details."""
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.json").write_text(json.dumps({SECRET: 0.25}))
    criterion = {"name": SECRET, "value": 1.0, "raw": True, "reasoning": SECRET}
    details = {"reward": {"score": 1.0, "kind": "programmatic", "criteria": [criterion]}}
    (directory / "details.json").write_text(json.dumps(details))
    return directory


def job_dir(tmp_path: Path) -> Path:
    """A job with one benign trial, `ok__1` (reward 1.0, one scored criterion)."""
    verifier = tmp_path / "job" / "ok__1" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text('{"reward": 1.0}')
    criterion = {"name": "tests_pass", "value": 1.0, "raw": True, "status": "scored"}
    details = {"reward": {"score": 1.0, "kind": "programmatic", "criteria": [criterion]}}
    (verifier / "reward-details.json").write_text(json.dumps(details))
    return tmp_path / "job"


def run_report(
    tmp_path: Path, source: Path, *flags: str | Path, limit_s: float = LIMIT_S
) -> tuple[Measured, str]:
    out = tmp_path / "report.html"
    done = measure(rewardkit_cmd("report", source, "--out", out, *flags), limit_s=limit_s)
    assert done.returncode is not None, f"killed at {limit_s} s"
    assert done.wall_s < MAX_WALL_S, f"took {done.wall_s:.1f} s"
    assert done.peak_rss_mb < MAX_RSS_MB, f"peak RSS {done.peak_rss_mb:.0f} MB"
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.is_file(), done.stderr[-2000:]
    assert_no_leak(SECRET, out, texts=(done.stdout, done.stderr))
    return done, out.read_text()


# --- a Harbor job directory --------------------------------------------------------------


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_hostile_trial_is_a_warning_and_the_others_are_reported(
    tmp_path: Path, outside: Path, attack: str
) -> None:
    build, expected = ATTACKS[attack]
    job = job_dir(tmp_path)
    verifier = job / "bad__1" / "verifier"
    verifier.mkdir(parents=True)
    build(verifier, outside)
    done, page = run_report(tmp_path, job)
    warnings = [line for line in done.stderr.splitlines() if line.startswith("rewardkit: warning")]
    if expected:
        assert any(all(f in w for f in expected) for w in warnings), done.stderr[-2000:]
    assert "ok__1" in page
    assert "tests_pass" in page


def test_names_and_reasons_are_escaped_in_the_page(tmp_path: Path) -> None:
    job = job_dir(tmp_path)
    verifier = job / "bad__1" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text(json.dumps({"reward": 0.0, PAYLOAD: 0.5}))
    criteria = [
        {"name": PAYLOAD, "value": 0.0, "raw": False, "reasoning": PAYLOAD, "status": "scored"},
        {"name": IMG, "value": None, "error": PAYLOAD, "status": "error"},
        {"name": "judge", "value": 0.5, "reasoning": IMG, "description": PAYLOAD},
    ]
    node = {"score": 0.0, "kind": PAYLOAD, "aggregation": PAYLOAD, "criteria": criteria}
    details = {
        "reward": {
            "score": 0.0,
            "aggregation": PAYLOAD,
            "components": [{"name": PAYLOAD, "weight": 1, "detail": node}],
        },
        PAYLOAD: node,
    }
    (verifier / "reward-details.json").write_text(json.dumps(details))
    _, page = run_report(tmp_path, job, "--title", PAYLOAD)
    assert PAYLOAD not in page
    assert "<img" not in page
    assert "&lt;script&gt;alert(" in page  # shown, escaped


def test_ids_groups_and_errors_of_a_results_file_are_escaped(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    rows = [
        {"id": PAYLOAD, "group": IMG, "reward": 1.0, "judges": {PAYLOAD: True, IMG: 0.5}},
        {"id": IMG, "group": IMG, "reward": 0.0, "judges": {PAYLOAD: False}, "error": PAYLOAD},
    ]
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    _, page = run_report(tmp_path, results)
    assert PAYLOAD not in page
    assert "<img" not in page


# --- a results file ----------------------------------------------------------------------


def test_a_deep_or_overlong_results_line_is_skipped(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    with open(results, "w") as handle:
        handle.write('{"id": "ok", "reward": 1.0, "judges": {"tests_pass": true}}\n')
        handle.write("[" * DEPTH + "]" * DEPTH + "\n")
        handle.write('{"id": "long", "reward": 0.5, "pad": "' + "x" * (2 << 20) + '"}\n')
        handle.write('{"id": "also-ok", "reward": 0.0}\n')
        handle.truncate(1 << 30)  # then a sparse gigabyte of NUL without a newline
    done, page = run_report(tmp_path, results)
    assert "results.jsonl:2 is nested deeper than 100 levels" in done.stderr
    assert "results.jsonl:3: not a result object" in done.stderr
    assert "results.jsonl:5: not a result object" in done.stderr
    assert "also-ok" in page
    assert "2 cases" in done.stdout


def test_a_results_file_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    with open(results, "wb") as handle:
        handle.truncate((1 << 30) + 1)
    done = measure(rewardkit_cmd("report", results), limit_s=LIMIT_S)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.wall_s < MAX_WALL_S
    assert "over the 1024 MiB read cap" in done.stderr


# --- many criteria: under the caps, but each costs its own row -----------------------------

NEAR_CAP = 999_990
"""Criteria in one reward-details.json: `{}` is one value, so this is just under the cap."""


@pytest.mark.xfail(
    strict=True,
    reason="999,990 criteria (under the 1,000,000-value cap) take 12 s and 560 MB just to load; "
    "each is then a column of statistics (bootstrapped) and a row of the page and the charts, "
    "which outgrows the limits",
)
def test_a_trial_with_a_million_distinct_criteria_reports_in_bounded_time(
    tmp_path: Path,
) -> None:
    job = job_dir(tmp_path)
    verifier = job / "bad__1" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text('{"reward": 0.5}')
    criteria = ",".join(["{}"] * NEAR_CAP)  # each is "?", made unique as "? #2", "? #3", ...
    (verifier / "reward-details.json").write_text(
        '{"reward": {"score": 0.5, "kind": "programmatic", "criteria": [' + criteria + "]}}"
    )
    run_report(tmp_path, job, limit_s=MAX_WALL_S + 5)


@pytest.mark.xfail(
    strict=True,
    reason="two results lines of one group with 40,000 judges each (0.5 MiB a line): the "
    "report now counts each value once, but bootstraps every judge's mean (2,000 resamples "
    "each, about 12 ms a judge: 8 minutes)",
)
def test_results_lines_with_many_judges_report_in_bounded_time(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    lines = [  # values that differ between the lines: each judge's interval is bootstrapped
        {
            "id": name,
            "group": "g",
            "reward": 1.0,
            "judges": {f"j{i}": (i + k) % 2 for i in range(40_000)},
        }
        for k, name in enumerate("ab")
    ]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run_report(tmp_path, results, limit_s=MAX_WALL_S + 5)
