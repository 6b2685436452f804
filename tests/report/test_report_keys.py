"""A Harbor job whose trials' `reward.json` hold several keys: one row per key (mean, 95%
interval, pass rate, n, missing) in the terminal, in `--json` and in the page."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewardkit.cli import main as cli
from rewardkit.report import build_report, estimate
from rewardkit.report._keys import MAX_KEYS, MAX_NAME, Keys
from rewardkit.report._report import Scan
from rewardkit.report._run import Case, Run
from rewardkit.report._terminal import print_report

CORRECTNESS = [1.0, 1.0, 0.5, 1.0, 1.0, 0.5, 1.0, 1.0]
"""`correctness` of the keyed job's 8 trials (add-feature, fix-bug, old-task)."""
STYLE = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
REWARD = [1.0, 0.75, 0.375, 1.0, 0.75, 0.375]
"""`style` and `reward`: only the 6 trials of the two-dimension tests dir have them."""
PAYLOAD = '"><img src=x onerror=alert(1)><script>alert("rk")</script>'
LONG_KEY = PAYLOAD + "-" + "k" * 2000


def _ci(values: list[float]) -> str:
    e = estimate(values)
    assert e.low is not None
    assert e.high is not None
    return f"[{e.low:.4g}, {e.high:.4g}]"


def test_each_reward_json_key_is_a_row_in_the_terminal(
    keyed_job: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["report", str(keyed_job)]) == 0
    out = capsys.readouterr().out
    rows = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") > 6}
    assert [c.strip() for c in rows["correctness"].split("│")[2:7]] == [
        "0.875",
        _ci(CORRECTNESS),
        "75.0%",
        "8",
        "0",
    ]
    assert [c.strip() for c in rows["style"].split("│")[2:7]] == [
        "0.3333",
        _ci(STYLE),
        "33.3%",
        "6",
        "2",
    ]
    assert [c.strip() for c in rows["reward"].split("│")[2:7]][2:] == ["33.3%", "6", "2"]
    assert (
        "reward keys missing from some trials: style (2 of 8), reward (2 of 8); each key's row "
        "is over the trials that have it (Harbor's mean counts a missing key as 0)"
    ) in out


def test_plain_key_table_and_the_pass_threshold(keyed_job: Path) -> None:
    report = build_report(keyed_job, pass_threshold=0.5)
    out = io.StringIO()
    print_report(report.run, report.stats, out, use_rich=False)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("reward key"))
    assert lines[start].split() == [
        "reward",
        "key",
        "mean",
        "95%",
        "CI",
        "pass",
        "rate",
        "n",
        "missing",
    ]
    assert lines[start + 1].split() == [
        "correctness",
        "0.875",
        *_ci(CORRECTNESS).split(),
        "100.0%",
        "8",
        "0",
    ]
    assert lines[start + 2].split()[-3:] == ["33.3%", "6", "2"]  # style: 1 passes, 0 fails
    assert lines[start + 3].split()[-3:] == ["66.7%", "6", "2"]  # reward 0.375 fails twice


def _rewardkit(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "rewardkit", "report", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_json_has_every_key_with_its_interval_and_missing_count(keyed_job: Path) -> None:
    done = _rewardkit(str(keyed_job), "--json")
    assert done.returncode == 0, done.stderr
    keys = json.loads(done.stdout)["reward_keys"]
    assert list(keys) == ["correctness", "style", "reward"]  # as they first appear
    for name, values in (("correctness", CORRECTNESS), ("style", STYLE), ("reward", REWARD)):
        e = estimate(values)  # the estimator the reward's interval uses, on the key's values
        row = keys[name]
        assert (row["mean"], row["n"], row["ci95"]) == (e.mean, e.n, [e.low, e.high]), name
        assert (row["std_error"], row["ci_method"]) == (e.std_error, "bootstrap")
        assert row["missing"] == 8 - len(values)
        assert row["passes"] == sum(v >= 1.0 for v in values)
        assert row["pass_rate"] == row["passes"] / len(values)


def test_json_of_a_job_with_one_key_lists_it_and_other_inputs_none(
    job: Path, results: Path
) -> None:
    keys = build_report(job).data()["reward_keys"]
    assert list(keys) == ["reward"]  # reward.json and reward.txt alike
    assert keys["reward"]["n"] == 13
    assert build_report(job).stats.key_rows == ()  # the lone key is the reward: no table
    assert build_report(results).data()["reward_keys"] == {}


def test_page_has_a_row_per_key(keyed_job: Path) -> None:
    page = build_report(keyed_job).html()
    assert '<section id="keys">' in page
    section = page[
        page.index('<section id="keys">') : page.index(
            "</section>", page.index('<section id="keys">')
        )
    ]
    assert "<td>correctness</td>" in section
    assert "<td>style</td>" in section
    assert _ci(STYLE) in section
    assert '<td class="num warn">2</td>' in section
    assert "Harbor's own mean counts a missing key as 0" in section


def test_no_key_section_without_several_keys(job: Path, results: Path) -> None:
    assert '<section id="keys">' not in build_report(job).html()
    assert '<section id="keys">' not in build_report(results).html()


def _hostile_trial(job: Path) -> None:
    verifier = job / "hostile__1" / "verifier"
    verifier.mkdir(parents=True)
    (verifier / "reward.json").write_text(json.dumps({"reward": 0.5, LONG_KEY: 0.25}))


def test_a_hostile_key_is_escaped_and_capped_in_the_page(keyed_job: Path) -> None:
    _hostile_trial(keyed_job)
    page = build_report(keyed_job).html()
    assert "<img" not in page
    assert "<script>alert" not in page
    start = page.index('<section id="keys">')
    section = page[start : page.index("</section>", start)]
    assert "k" * 900 in section  # the cell's title: cut at 1,000 characters
    assert "k" * 1000 not in section
    cell = section.index("&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")
    assert section[cell - 200 : cell].count("title=") == 1
    shown = section[section.index(">", cell) + 1 : section.index("</td>", cell)]
    assert shown.endswith("…")
    assert "k" * (MAX_NAME - len(PAYLOAD) - 2) in shown
    assert "k" * (MAX_NAME - len(PAYLOAD)) not in shown


def test_a_hostile_key_is_capped_in_the_terminal_and_whole_in_json(
    keyed_job: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _hostile_trial(keyed_job)
    assert cli(["report", str(keyed_job)]) == 0
    out = capsys.readouterr().out
    assert LONG_KEY[: MAX_NAME - 1] + "…" in out
    assert LONG_KEY[:MAX_NAME] not in out
    assert max(len(line) for line in out.splitlines() if "│" in line) <= 200
    keys = build_report(keyed_job).data()["reward_keys"]
    assert keys[LONG_KEY]["n"] == 1
    assert keys[LONG_KEY]["missing"] == 8
    assert keys["correctness"]["missing"] == 1


def test_keys_past_the_cap_are_counted_and_said(tmp_path: Path) -> None:
    for trial in range(2):
        verifier = tmp_path / f"t__{trial}" / "verifier"
        verifier.mkdir(parents=True)
        rewards = {f"key-{trial}-{i:03d}": i / 100 for i in range(MAX_KEYS)}
        (verifier / "reward.json").write_text(json.dumps(rewards))
    report = build_report(tmp_path)
    assert len(report.stats.keys) == MAX_KEYS
    assert [p.message for p in report.run.problems] == [
        f"more than {MAX_KEYS} distinct reward keys: only the first {MAX_KEYS} to appear are "
        f"tabulated ({MAX_KEYS:,} values of the others left out)"
    ]
    assert report.stats.keys[0].missing == 1


def test_keys_stream_like_the_reward() -> None:
    keys = Keys(pass_threshold=0.5)
    keys.add({})  # a trial without a readable reward file is no trial of any key
    keys.add({"a": 0.5, "b": 0.25})
    keys.add({"a": 1.0})
    a, b = keys.stats()
    assert (a.estimate.mean, a.pass_rate, a.missing) == (0.75, 1.0, 0)
    assert (b.estimate.n, b.pass_rate, b.missing) == (1, 0.0, 1)
    assert keys.warning is None


def _keyed_cases(n: int) -> Iterator[Case]:
    """`n` trials with three reward keys, one missing at times, and a key never seen before
    in each (a hostile verifier): the keys tabulated stop at the cap."""
    rng = random.Random(n)
    for i in range(n):
        rewards = {"correctness": rng.random(), "reward": rng.random(), f"fresh-{i}": 1.0}
        if i % 3:
            rewards["style"] = float(rng.random() < 0.5)
        yield Case(id=f"t{i}", reward=rewards["reward"], rewards=rewards, group=f"task{i // 4}")


def _peak_bytes(n: int) -> int:
    run = Run(kind="harbor", source="job")
    tracemalloc.start()
    try:
        scan = Scan(run, _keyed_cases(n), pass_threshold=0.5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    keys = scan.summary.stats(scan.groups).keys
    assert len(keys) == MAX_KEYS
    assert keys[0].estimate.n == n
    return peak


def test_memory_does_not_grow_with_the_number_of_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("rewardkit.report._report.MAX_CASES", 100)
    monkeypatch.setattr("rewardkit.report._groups.MAX_OPEN", 50)
    monkeypatch.setattr("rewardkit.report._groups._BLOOM_LOG2", 16)
    monkeypatch.setattr("rewardkit.core._moments.BOOTSTRAP_MAX_N", 100)
    monkeypatch.setattr("rewardkit.core._stats.BOOTSTRAP_MAX_N", 100)
    small, large = _peak_bytes(2_000), _peak_bytes(20_000)
    assert large < small * 1.2, (small, large)
