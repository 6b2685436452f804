"""The codex agent judge against a fake `codex` on PATH."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from .agent_fakes import FakeAgents, Run, judge_toml, leaf

KEY = "sk-test-openai-0123456789"


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


@pytest.mark.usefixtures("api_key")
def test_a_passing_run(agents: FakeAgents, run_task: Run, tmp_path: Path) -> None:
    extra = 'model = "openai/gpt-5-codex"\nreasoning_effort = "low"\ncwd = "src"'
    rewards, details = run_task({"quality.toml": judge_toml("codex", extra)})
    assert rewards == {"reward": 1.0}
    detail = leaf(details)
    assert list(detail) == [
        "score", "criteria", "kind", "judge", "judge_output", "usage", "judge_logs"
    ]  # fmt: skip
    assert detail["usage"]["input_tokens"] == 200
    assert detail["usage"]["cache_read_input_tokens"] == 50
    assert detail["usage"]["total_tokens"] == 230
    assert any(Path(p).name.startswith("trajectory.codex.batched-1.") for p in detail["judge_logs"])
    (call,) = agents.runs
    argv = call["argv"]
    assert argv[:2] == ["exec", "--json"]
    assert argv[-1] == "-"
    assert "Is the code correct?" in call["prompt"]  # on stdin, not the command line
    assert argv[argv.index("-m") + 1] == "gpt-5-codex"
    assert argv[argv.index("-c") + 1] == "model_reasoning_effort=low"
    assert Path(argv[argv.index("-C") + 1]) == (tmp_path / "ws" / "src").resolve()
    assert argv[argv.index("--sandbox") + 1] == "danger-full-access"
    assert call["env"]["CODEX_API_KEY"] == KEY
    assert all(KEY not in a for a in argv)
    assert KEY not in json.dumps(details)


def test_missing_auth_is_a_clear_error(agents: FakeAgents, run_task: Run) -> None:
    rewards, details = run_task({"quality.toml": judge_toml("codex")})
    assert rewards == {"reward": 0.0}
    error = leaf(details)["criteria"][0]["error"]
    assert "Codex judge authentication is missing" in error
    assert "OPENAI_API_KEY" in error
    assert "CODEX_AUTH_JSON" in error
    assert agents.runs == []


def test_a_subscription_auth_json_goes_to_a_temp_codex_home(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    auth = json.dumps({"tokens": {"access_token": "secret-access-token"}})
    monkeypatch.setenv("CODEX_AUTH_JSON", auth)
    rewards, _ = run_task({"quality.toml": judge_toml("codex")})
    assert rewards == {"reward": 1.0}
    (call,) = agents.runs
    assert call["home"]["auth.json"] == auth
    assert call["env"]["CODEX_API_KEY"] is None
    assert not Path(call["env"]["CODEX_HOME"]).exists()  # removed after the run


def test_a_bad_auth_json_is_a_clear_error(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_AUTH_JSON", "{not json")
    _, details = run_task({"quality.toml": judge_toml("codex")})
    assert "CODEX_AUTH_JSON is not valid JSON" in leaf(details)["criteria"][0]["error"]


@pytest.mark.usefixtures("api_key")
def test_mcp_servers_go_into_config_toml(agents: FakeAgents, run_task: Run) -> None:
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
        args = ["-m", "server"]
    """
    rewards, _ = run_task({"quality.toml": judge_toml("codex", extra)})
    assert rewards == {"reward": 1.0}
    config = tomllib.loads(agents.runs[0]["home"]["config.toml"])
    assert config["mcp_servers"]["docs"]["url"] == "http://127.0.0.1:9/mcp"
    assert config["mcp_servers"]["docs"]["enabled_tools"] == ["search"]
    assert config["mcp_servers"]["local"]["command"] == "python"
    assert config["mcp_servers"]["local"]["args"] == ["-m", "server"]


@pytest.mark.usefixtures("api_key")
def test_an_sse_mcp_server_is_refused(agents: FakeAgents, run_task: Run) -> None:
    extra = '[[judge.mcp_servers]]\nname = "docs"\ntransport = "sse"\nurl = "http://x/sse"'
    _, details = run_task({"quality.toml": judge_toml("codex", extra)})
    assert "codex does not support transport = 'sse'" in leaf(details)["criteria"][0]["error"]


@pytest.mark.usefixtures("api_key")
def test_turn_failed_then_success_is_retried(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"is_error": True}, {"exit": 1, "stderr": "crash"}, {})
    rewards, details = run_task({"quality.toml": judge_toml("codex")})
    assert rewards == {"reward": 1.0}
    assert len(agents.runs) == 3
    assert "warnings" not in leaf(details)


@pytest.mark.usefixtures("api_key")
def test_three_turn_failures_are_an_error_outcome(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"is_error": True})
    _, details = run_task({"quality.toml": judge_toml("codex")})
    error = leaf(details)["criteria"][0]["error"]
    assert "codex reported an error: unexpected status 401 Unauthorized" in error
    assert len(agents.runs) == 3


@pytest.mark.usefixtures("api_key")
def test_unparsable_answers_are_retried(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"text": "looks good to me"}, {})
    rewards, _ = run_task({"quality.toml": judge_toml("codex", 'mode = "individual"', 1)})
    assert rewards == {"reward": 1.0}
    assert len(agents.runs) == 2


@pytest.mark.usefixtures("api_key")
def test_isolated_codex_leaves_the_workspace_untouched(
    agents: FakeAgents, run_task: Run, tmp_path: Path
) -> None:
    agents.script({"write": "notes.txt"})
    rewards, _ = run_task({"quality.toml": judge_toml("codex", "isolated = true")})
    assert rewards == {"reward": 1.0}
    assert not (tmp_path / "ws" / "notes.txt").exists()


@pytest.mark.usefixtures("api_key")
def test_a_hang_times_out(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"hang": True})
    toml = judge_toml("codex").replace("timeout = 20", "timeout = 1")
    _, details = run_task({"quality.toml": toml})
    assert [c["status"] for c in leaf(details)["criteria"]] == ["timeout", "timeout"]
    assert len(agents.runs) == 1
