"""The shared-workspace guard: agent judges that may write while another one reads."""

from __future__ import annotations

import pytest

from rewardkit.core._errors import ConfigError

from .agent_fakes import FakeAgents, Run, judge_toml


def test_one_judge_with_several_runs_is_allowed(agents: FakeAgents, run_task: Run) -> None:
    extra = 'samples = 2\nmode = "individual"'  # its four runs go one after another
    rewards, _ = run_task({"quality.toml": judge_toml(extra=extra)})
    assert rewards == {"reward": 1.0}
    assert len(agents.runs) == 4


def test_two_agent_judges_with_one_not_isolated_are_refused(
    agents: FakeAgents, run_task: Run
) -> None:
    tests = {
        "quality.toml": judge_toml(),
        "style.toml": judge_toml(judge="codex", extra="isolated = true"),
    }
    with pytest.raises(
        ConfigError, match=r"quality\.toml: not isolated, so it can write to the workspace"
    ) as info:
        run_task(tests)
    assert "isolated = true" in str(info.value)
    assert "--yolo" in str(info.value)
    assert "style.toml" not in str(info.value)
    assert agents.runs == []  # before anything runs


def test_yolo_runs_anyway(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-0000")
    tests = {"quality.toml": judge_toml(), "style.toml": judge_toml(judge="codex")}
    rewards, _ = run_task(tests, yolo=True)
    assert rewards["reward"] == 1.0
    assert len(agents.runs) == 2


@pytest.mark.parametrize("isolated", [True, False])
def test_isolated_judges_or_one_at_a_time_are_allowed(
    agents: FakeAgents, run_task: Run, isolated: bool
) -> None:
    extra = "isolated = true" if isolated else ""
    tests = {"quality.toml": judge_toml(extra=extra), "style.toml": judge_toml(extra=extra)}
    rewards, _ = run_task(tests, max_concurrent_agent=2 if isolated else 1)
    assert rewards["reward"] == 1.0
