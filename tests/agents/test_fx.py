"""The fx agent judge against a fake `fx` on PATH."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardkit.judges.agents import AGENT_BACKENDS

from .agent_fakes import FakeAgents, Run, judge_toml, leaf

KEY = "vck-test-gateway-0123456789"


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AI_GATEWAY_API_KEY", KEY)
    monkeypatch.delenv("VERCEL_OIDC_TOKEN", raising=False)


def test_fx_is_registered() -> None:
    assert AGENT_BACKENDS["fx"].executable == "fx"


@pytest.mark.usefixtures("api_key")
def test_a_passing_run(agents: FakeAgents, run_task: Run, tmp_path: Path) -> None:
    rewards, details = run_task({"quality.toml": judge_toml("fx", 'cwd = "src"')})
    assert rewards == {"reward": 1.0}
    detail = leaf(details)
    assert detail["kind"] == "agent"
    assert detail["usage"]["input_tokens"] == 300
    assert detail["usage"]["total_tokens"] == 340
    (call,) = agents.runs
    assert call["argv"] == ["--no-additional-dirs", "ask", "--json", "--yolo"]
    assert "Is the code correct?" in call["prompt"]
    assert "JSON" in call["prompt"]
    assert Path(call["cwd"]) == (tmp_path / "ws" / "src").resolve()
    env = call["env"]
    assert (env["FX_AUTO_UPGRADE"], env["FX_SOUND"]) == ("0", "0")
    assert env["FX_MODEL"] == "openai/gpt-5.6-sol"
    assert env["AI_GATEWAY_API_KEY"] == KEY
    assert Path(env["HOME"]) != tmp_path / "home"
    assert call["home"] == {}  # no effort and no MCP: nothing written
    assert KEY not in json.dumps(details)


@pytest.mark.usefixtures("api_key")
def test_effort_model_and_mcp_go_to_a_fresh_home_per_attempt(
    agents: FakeAgents, run_task: Run
) -> None:
    agents.script({"exit": 2, "stderr": "flaky"}, {})
    extra = """
    model = "anthropic/claude-opus-5-5"
    reasoning_effort = "auto"
    [[judge.mcp_servers]]
    name = "docs"
    transport = "stdio"
    command = "docs-server"
    args = ["--port", "1"]
    [[judge.mcp_servers]]
    name = "web"
    transport = "streamable-http"
    url = "http://localhost:9/mcp"
    """
    rewards, _ = run_task({"quality.toml": judge_toml("fx", extra)})
    assert rewards == {"reward": 1.0}
    first, second = agents.runs
    assert first["env"]["HOME"] != second["env"]["HOME"]
    assert second["env"]["FX_MODEL"] == "anthropic/claude-opus-5-5"
    assert json.loads(second["home"]["settings.json"]) == {"effort": "auto"}
    assert json.loads(second["home"]["mcp.json"]) == {
        "mcp": {
            "docs": {
                "type": "local",
                "command": ["docs-server", "--port", "1"],
                "enabled": True,
                "required": True,
            },
            "web": {
                "type": "http",
                "url": "http://localhost:9/mcp",
                "enabled": True,
                "required": True,
            },
        }
    }


@pytest.mark.usefixtures("api_key")
def test_individual_mode_and_a_failing_answer(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"score": "no"}, {"is_error": True})
    _rewards, details = run_task({"quality.toml": judge_toml("fx", 'mode = "individual"')})
    values = sorted(c["value"] for c in leaf(details)["criteria"] if "error" not in c)
    errors = [c["error"] for c in leaf(details)["criteria"] if "error" in c]
    assert values == [0.0]
    assert len(errors) == 1
    assert "gateway returned 401" in errors[0]
    assert len(agents.runs) == 4  # one call answers; the other fails all three attempts


def test_missing_auth_is_a_clear_error(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AI_GATEWAY_API_KEY", raising=False)
    monkeypatch.delenv("VERCEL_OIDC_TOKEN", raising=False)
    rewards, details = run_task({"quality.toml": judge_toml("fx")})
    assert rewards == {"reward": 0.0}
    error = leaf(details)["criteria"][0]["error"]
    assert "fx judge authentication is missing" in error
    assert "VERCEL_OIDC_TOKEN" in error
    assert agents.runs == []


def test_an_oidc_token_is_enough(
    agents: FakeAgents, run_task: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AI_GATEWAY_API_KEY", raising=False)
    monkeypatch.setenv("VERCEL_OIDC_TOKEN", "oidc-token-0123456789")
    rewards, _ = run_task({"quality.toml": judge_toml("fx")})
    assert rewards == {"reward": 1.0}


@pytest.mark.usefixtures("api_key")
def test_malformed_output_is_retried_then_an_error(agents: FakeAgents, run_task: Run) -> None:
    agents.script({"text": "not json at all"})
    rewards, details = run_task({"quality.toml": judge_toml("fx", criteria=1)})
    assert rewards == {"reward": 0.0}
    assert "unparsable answer" in leaf(details)["criteria"][0]["error"]
    assert len(agents.runs) == 3


@pytest.mark.parametrize(
    ("stdout", "error"),
    [
        ("", "fx returned malformed JSON"),
        ("[1]", "fx returned malformed JSON"),
        ('{"final_output": "{}"}', "fx output has no integer exit_code"),
        ('{"exit_code": 2, "error": "quota"}', "fx reported an error: quota"),
        ('{"exit_code": 2}', "fx reported an error: exit code 2"),
        ('{"exit_code": 0, "final_output": "  "}', "fx returned no answer"),
    ],
)
def test_envelope_errors(stdout: str, error: str) -> None:
    from rewardkit.judges.agents import CliResult, Invocation

    reply = AGENT_BACKENDS["fx"].parse(CliResult(0, stdout, ""), Invocation(argv=["fx"]))
    assert reply.error == error


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize(
    ("server", "message"),
    [
        ('name = "my docs"\nurl = "http://x/sse"', "letters, digits"),
        ('name = "d"\nurl = "u"\nallowed_tools = ["a"]', "fx does not support allowed_tools"),
    ],
)
def test_unusable_mcp_servers(agents: FakeAgents, run_task: Run, server: str, message: str) -> None:
    _, details = run_task({"quality.toml": judge_toml("fx", f"[[judge.mcp_servers]]\n{server}")})
    assert message in leaf(details)["criteria"][0]["error"]
    assert agents.runs == []


@pytest.mark.usefixtures("api_key")
def test_sse_servers_keep_their_type(agents: FakeAgents, run_task: Run) -> None:
    run_task({"quality.toml": judge_toml("fx", '[[judge.mcp_servers]]\nname = "d"\nurl = "u"')})
    (call,) = agents.runs
    assert json.loads(call["home"]["mcp.json"])["mcp"]["d"]["type"] == "sse"
