"""`--max-concurrent-agent` bounds agent CLI processes, not agent judges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .agent_fakes import FakeAgents, Run, judge_toml


def peak(spans_file: Path) -> int:
    """The most CLI runs that overlapped, from the fake's start/end times."""
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    events = sorted([(s["start"], 1) for s in spans] + [(s["end"], -1) for s in spans])
    running = most = 0
    for _, delta in events:
        running += delta
        most = max(most, running)
    return most


@pytest.mark.parametrize("limit", [1, 2])
def test_samples_of_an_isolated_judge_share_the_run_limit(
    agents: FakeAgents, run_task: Run, limit: int
) -> None:
    agents.script({"sleep": 0.3})
    toml = judge_toml(extra="isolated = true\nsamples = 4")
    rewards, _ = run_task({"quality.toml": toml}, max_concurrent_agent=limit)
    assert rewards == {"reward": 1.0}
    assert len(agents.runs) == 4
    assert peak(agents.root / "spans.jsonl") == limit


def test_two_judges_individual_mode_stay_under_the_limit(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"sleep": 0.2})
    toml = judge_toml(extra='isolated = true\nmode = "individual"\nsamples = 2')
    tests = {"quality.toml": toml, "style.toml": toml}
    rewards, _ = run_task(tests, max_concurrent_agent=3)
    assert rewards["reward"] == 1.0
    assert len(agents.runs) == 8  # 2 judges x 2 samples x 2 criteria
    assert peak(agents.root / "spans.jsonl") == 3
