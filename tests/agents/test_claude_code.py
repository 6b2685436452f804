"""The claude-code agent judge against a fake `claude` on PATH."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import rewardkit as rk

from .agent_fakes import FakeAgents, Run, judge_toml, leaf


def test_a_passing_run_writes_reward_json(
    agents: FakeAgents, run_task: Run, tmp_path: Path
) -> None:
    rewards, details = run_task({"quality.toml": judge_toml()})
    assert rewards == {"reward": 1.0}
    assert json.loads((tmp_path / "out" / "reward.json").read_text()) == {"reward": 1.0}
    detail = leaf(details)
    assert detail["kind"] == "agent"
    assert [c["status"] for c in detail["criteria"]] == ["scored", "scored"]
    assert list(detail) == [
        "score", "criteria", "kind", "judge", "judge_output", "usage", "judge_logs"
    ]  # fmt: skip
    assert detail["judge"]["agent"] == "claude-code"
    assert json.loads(detail["judge_output"])["is_the_code_correct"]["score"] == "yes"
    usage = detail["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["cost_usd"]) == (100, 20, 0.0125)
    assert usage["total_tokens"] == 135
    logs = detail["judge_logs"]
    assert any(Path(p).name.startswith("process.claude-code.batched-1.1.") for p in logs)
    assert any(Path(p).name.startswith("trajectory.claude-code.batched-1.") for p in logs)
    assert all(Path(p).is_file() for p in logs)
    (call,) = agents.runs  # batched: one call
    argv = call["argv"]
    assert argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("--permission-mode") + 1] == "default"
    assert "Bash" in argv[argv.index("--allowedTools") + 1].split()
    assert "--model" not in argv
    assert Path(call["cwd"]).resolve() == (tmp_path / "ws").resolve()
    assert "Is the code correct?" in call["prompt"]


def test_model_effort_and_individual_mode(agents: FakeAgents, run_task: Run) -> None:
    extra = 'model = "anthropic/claude-sonnet-4-5"\nreasoning_effort = "high"\nmode = "individual"'
    rewards, details = run_task({"quality.toml": judge_toml(extra=extra)})
    assert rewards == {"reward": 1.0}
    assert len(agents.runs) == 2  # one call per criterion
    argv = agents.runs[0]["argv"]
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    assert argv[argv.index("--effort") + 1] == "high"
    assert leaf(details)["criteria"][0]["model"] == "anthropic/claude-sonnet-4-5"


def test_a_failing_cli_is_retried_and_attempts_are_logged(
    agents: FakeAgents, run_task: Run
) -> None:
    agents.script({"exit": 3, "stderr": "boom"}, {})
    rewards, details = run_task({"quality.toml": judge_toml()})
    assert rewards == {"reward": 1.0}
    assert len(agents.runs) == 2
    names = [Path(p).name for p in leaf(details)["judge_logs"]]
    assert sum(n.startswith("process.claude-code.batched-1.") for n in names) == 2
    failed = next(p for p in leaf(details)["judge_logs"] if ".batched-1.1." in p)
    assert "boom" in Path(failed).read_text()


@pytest.mark.parametrize(
    ("step", "reason"),
    [
        ({"text": "I think it is fine."}, "unparsable answer"),
        ({"is_error": True}, "claude reported an error: API Error: overloaded"),
        ({"exit": 3, "stderr": "boom"}, "exited with code 3: boom"),
    ],
)
def test_three_failures_make_error_outcomes_and_the_run_goes_on(
    agents: FakeAgents, run_task: Run, step: dict[str, object], reason: str
) -> None:
    agents.script(step)
    checks = "import rewardkit as rk\nrk.file_exists('main.py')\n"
    rewards, details = run_task({"quality.toml": judge_toml(), "checks.py": checks})
    assert len(agents.runs) == 3
    assert rewards["reward"] == 0.5  # the programmatic leaf still counts
    detail = leaf(details)
    assert [c["status"] for c in detail["criteria"]] == ["error", "error"]
    error = detail["criteria"][0]["error"]
    assert error.startswith("claude-code judge failed after 3 attempts")
    assert reason in error
    assert detail["warnings"] == [error]


def test_a_hang_is_killed_at_the_timeout_with_its_process_group(
    agents: FakeAgents, run_task: Run
) -> None:
    agents.script({"hang": True})
    toml = judge_toml().replace("timeout = 20", "timeout = 1")
    started = time.monotonic()
    rewards, details = run_task({"quality.toml": toml})
    assert time.monotonic() - started < 10
    assert len(agents.runs) == 1  # a timeout is not retried
    detail = leaf(details)
    assert [c["status"] for c in detail["criteria"]] == ["timeout", "timeout"]
    assert detail["criteria"][0]["error"] == "judge timed out after 1s"
    assert rewards == {"reward": 0.0}
    grandchild = int((agents.root / "grandchild.pid").read_text())
    time.sleep(0.2)
    assert _dead(grandchild)  # the whole group was killed, not only the CLI
    assert "killed at the timeout" in Path(detail["judge_logs"][0]).read_text()


def test_a_missing_cli_is_an_error_that_says_how_to_install_it(
    agents: FakeAgents, run_task: Run, tmp_path: Path
) -> None:
    (tmp_path / "bin" / "claude").unlink()
    rewards, details = run_task({"quality.toml": judge_toml()})
    assert rewards == {"reward": 0.0}
    error = leaf(details)["criteria"][0]["error"]
    assert "`claude` CLI was not found on PATH" in error
    assert "npm install -g @anthropic-ai/claude-code" in error
    assert "never downloads" in error


def test_a_pinned_version_must_match(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VERSION", "2.0.9 (Claude Code)")
    _, details = run_task({"quality.toml": judge_toml(extra='version = "2.1.0"')})
    error = leaf(details)["criteria"][0]["error"]
    assert "pins claude 2.1.0" in error
    assert "reports 2.0.9" in error
    assert agents.runs == []
    monkeypatch.setenv("FAKE_VERSION", "2.1.0 (Claude Code)")
    rewards, _ = run_task({"quality.toml": judge_toml(extra='version = "v2.1.0"')})
    assert rewards == {"reward": 1.0}


def test_isolated_leaves_the_workspace_untouched(
    agents: FakeAgents, run_task: Run, tmp_path: Path
) -> None:
    agents.script({"write": "judge-notes.txt"})
    extra = 'isolated = true\ncwd = "src"\nsamples = 2'
    rewards, _ = run_task({"quality.toml": judge_toml(extra=extra)})
    assert rewards == {"reward": 1.0}
    assert not list((tmp_path / "ws").rglob("judge-notes.txt"))
    cwds = {Path(r["cwd"]) for r in agents.runs}
    assert len(cwds) == 2
    assert all(c.name == "src" for c in cwds)
    assert not any(c.is_relative_to((tmp_path / "ws").resolve()) for c in cwds)


def test_not_isolated_the_judge_writes_in_its_cwd(
    agents: FakeAgents, run_task: Run, tmp_path: Path
) -> None:
    agents.script({"write": "judge-notes.txt"})
    run_task({"quality.toml": judge_toml(extra='cwd = "src"')})
    assert (tmp_path / "ws" / "src" / "judge-notes.txt").is_file()


def test_a_cwd_outside_the_workspace_is_refused(agents: FakeAgents, run_task: Run) -> None:
    _, details = run_task({"quality.toml": judge_toml(extra='cwd = "../tests"')})
    error = leaf(details)["criteria"][0]["error"]
    assert "[judge].cwd '../tests'" in error
    assert "outside the workspace" in error
    assert agents.runs == []


def test_mcp_servers_go_in_a_per_call_mcp_config(
    agents: FakeAgents, run_task: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = """
        [[judge.mcp_servers]]
        name = "docs"
        transport = "streamable-http"
        url = "http://127.0.0.1:9/mcp"
        allowed_tools = ["search"]

        [[judge.mcp_servers]]
        name = "local"
        transport = "stdio"
        command = "python"
        args = ["-m", "server", "--token=$MCP_TEST_TOKEN"]
    """
    monkeypatch.setenv("MCP_TEST_TOKEN", "t0k")
    rewards, details = run_task({"quality.toml": judge_toml(extra=extra)})
    assert rewards == {"reward": 1.0}
    assert [e for e in agents.entries if not e.get("run")] == []  # no `claude mcp add`
    (call,) = agents.runs
    assert call["mcp_config"] == {
        "mcpServers": {
            "docs": {"type": "http", "url": "http://127.0.0.1:9/mcp"},
            "local": {
                "type": "stdio",
                "command": "python",
                "args": ["-m", "server", "--token=t0k"],
            },
        }
    }
    argv = call["argv"]
    assert "--strict-mcp-config" in argv
    assert not Path(argv[argv.index("--mcp-config") + 1]).exists()  # removed after the run
    assert not (tmp_path / "home" / ".claude.json").exists()
    tools = argv[argv.index("--allowedTools") + 1].split()
    assert {"mcp__docs__search", "mcp__local"} <= set(tools)
    assert leaf(details)["judge"]["mcp_servers"][0]["name"] == "docs"


def test_samples_take_the_lower_median_and_the_guard_penalizes(
    agents: FakeAgents, run_task: Run
) -> None:
    agents.script({"score": "yes"}, {"score": "no"}, {"score": "yes"})
    extra = 'isolated = true\nsamples = 3\nguard = "penalize"'
    rewards, details = run_task({"quality.toml": judge_toml(extra=extra, criteria=1)})
    detail = leaf(details)
    (criterion,) = detail["criteria"]
    assert sorted(criterion["samples"], key=str) == ["no", "yes", "yes"]
    assert criterion["value"] == 1.0
    assert criterion["agreement"] == pytest.approx(0.6667)
    assert detail["guard"]["flagged"] is True  # the upper median of the guard's answers
    assert rewards == {"reward": 0.0}
    assert detail["judge_output"].startswith("--- sample 1 ---")


def test_no_log_dir_means_no_logs(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REWARDKIT_LOG_DIR")
    if Path("/logs").exists():
        pytest.skip("/logs exists here")
    _, details = run_task({"quality.toml": judge_toml()})
    assert "judge_logs" not in leaf(details)


def test_secrets_are_redacted_from_logs(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-123456")
    agents.script({"exit": 2, "stderr": "bad key sk-ant-secret-123456"})
    _, details = run_task({"quality.toml": judge_toml()})
    text = json.dumps(details) + "".join(Path(p).read_text() for p in leaf(details)["judge_logs"])
    assert "sk-ant-secret-123456" not in text
    assert "bad key ***" in text
    assert all("sk-ant" not in a for r in agents.runs for a in r["argv"])


def test_rk_run_is_importable_without_a_judge(agents: FakeAgents) -> None:
    assert callable(rk.run)


def _dead(pid: int) -> bool:
    """True when `pid` is gone or a zombie (an orphan waits for init to reap it)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status
