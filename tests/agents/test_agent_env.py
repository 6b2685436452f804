"""Agent CLIs get an allow-listed environment: what they need, their own key, the names in
`REWARDKIT_AGENT_ENV` (`--judge-env`), and nothing else of the verifier's environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardkit.judges.agents import AGENT_BACKENDS
from rewardkit.judges.agents._base import COMMON_ENV, agent_env

from .agent_fakes import FakeAgents, Run, judge_toml
from .test_eval_agent_judges import run, suite

PLANTED = {
    "AWS_SECRET_ACCESS_KEY": "aws-planted-secret-0123456789",
    "AWS_ACCESS_KEY_ID": "AKIAPLANTED0123456789",
    "DATABASE_URL": "postgres://admin:planted-password@db/prod",
    "GITHUB_TOKEN": "ghp_planted0123456789",
    "REWARDKIT_FORCE_SUBSCRIPTION": "",
}
KEYS = {
    "claude-code": ("ANTHROPIC_API_KEY", "sk-ant-test-0123456789"),
    "codex": ("OPENAI_API_KEY", "sk-openai-test-0123456789"),
    "fx": ("AI_GATEWAY_API_KEY", "vck-test-0123456789"),
}


@pytest.fixture
def planted(agents: FakeAgents, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verifier's environment holds secrets no agent CLI needs, and every provider key."""
    for name, value in {**PLANTED, **dict(KEYS.values())}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("JUDGE_FLAG", "from-judge-env")
    monkeypatch.setenv("REWARDKIT_AGENT_ENV", "FAKE_AGENT_DIR,FAKE_VERSION, JUDGE_FLAG")


def _assert_allow_listed(environ: dict[str, str], judge: str) -> None:
    own_name, own_key = KEYS[judge]
    assert environ[own_name] == own_key
    assert environ["JUDGE_FLAG"] == "from-judge-env"  # listed, as --judge-env lists its keys
    assert environ["LC_ALL"] == "C.UTF-8"
    assert environ["HTTPS_PROXY"] == "http://proxy.internal:3128"
    for name, value in PLANTED.items():
        assert name not in environ
        assert all(value not in v for v in environ.values() if value)
    others = [key for other, (_, key) in KEYS.items() if other != judge]
    assert all(key not in v for key in others for v in environ.values())  # no other provider's
    assert "REWARDKIT_AGENT_ENV" not in environ


@pytest.mark.usefixtures("planted")
@pytest.mark.parametrize("judge", sorted(KEYS))
def test_a_tests_dir_agent_judge_gets_the_allow_list(
    agents: FakeAgents, run_task: Run, judge: str
) -> None:
    rewards, _ = run_task({"quality.toml": judge_toml(judge)})
    assert rewards == {"reward": 1.0}
    (call,) = agents.runs
    _assert_allow_listed(call["environ"], judge)


@pytest.mark.usefixtures("planted")
@pytest.mark.parametrize("runner", ["claude-code", "codex"])  # `cli`: test_cli_runner.py
def test_an_eval_yaml_agent_judge_gets_the_allow_list(
    agents: FakeAgents, tmp_path: Path, runner: str
) -> None:
    path = suite(
        tmp_path,
        f"- {{name: q, prompt: 'Is it right?', feedback_type: bool, agent: {{runner: {runner}}}}}",
    )
    (outcome,) = run(path)
    assert outcome.status == "scored", outcome.error
    (call,) = agents.runs
    _assert_allow_listed(call["environ"], runner)


def test_the_common_part_is_what_any_cli_needs_to_run() -> None:
    env = {name: "x" for name in COMMON_ENV} | {"LC_CTYPE": "C", "XDG_CONFIG_HOME": "/c"}
    env |= {"AWS_SECRET_ACCESS_KEY": "s", "DATABASE_URL": "d", "PYTHONPATH": "/p", "PWD": "/"}
    for backend in AGENT_BACKENDS.values():
        kept = agent_env(backend, env)
        assert set(kept) == set(COMMON_ENV) | {"LC_CTYPE", "XDG_CONFIG_HOME"}


@pytest.mark.parametrize(
    ("judge", "kept", "dropped"),
    [
        ("claude-code", ["ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR", "DISABLE_TELEMETRY",
                         "MCP_TIMEOUT"], ["OPENAI_API_KEY", "CODEX_HOME", "AI_GATEWAY_API_KEY"]),
        ("codex", ["OPENAI_BASE_URL", "CODEX_HOME", "CODEX_API_KEY"],
         ["ANTHROPIC_API_KEY", "CLAUDE_CONFIG_DIR", "FX_MODEL", "VERCEL_OIDC_TOKEN"]),
        ("fx", ["FX_MODEL", "AI_GATEWAY_API_KEY", "VERCEL_OIDC_TOKEN"],
         ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "VERCEL_TOKEN"]),
    ],
)  # fmt: skip
def test_each_cli_gets_its_own_variables_only(
    judge: str, kept: list[str], dropped: list[str]
) -> None:
    env = dict.fromkeys([*kept, *dropped], "v")
    assert set(agent_env(AGENT_BACKENDS[judge], env)) == set(kept)


def test_listed_names_pass_whatever_they_are() -> None:
    env = {"AWS_REGION": "eu-west-1", "AWS_PROFILE": "bedrock", "AWS_SECRET_ACCESS_KEY": "s"}
    env["REWARDKIT_AGENT_ENV"] = "AWS_REGION,,AWS_PROFILE "
    assert agent_env(AGENT_BACKENDS["claude-code"], env) == {
        "AWS_REGION": "eu-west-1",
        "AWS_PROFILE": "bedrock",
    }
