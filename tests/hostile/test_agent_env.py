"""Agent judge CLIs run with an allow-listed environment: secrets of the verifier's own
environment (cloud credentials, a database URL, another provider's key) never reach them,
nor the tools they run for the graded agent's workspace.

The verifier is run the way Harbor runs it (`rewardkit TESTS_DIR ...` in a subprocess) with
fake `claude`, `codex` and `fx` on PATH that record the environment they were given.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.agents.agent_fakes import judge_toml
from tests.hostile._measure import assert_no_leak, measure, rewardkit_cmd

FAKE = Path(__file__).parents[1] / "agents" / "fake_cli.py"
PLANTED = {
    "AWS_SECRET_ACCESS_KEY": "aws-planted-secret-0123456789",
    "AWS_SESSION_TOKEN": "aws-planted-session-0123456789",
    "DATABASE_URL": "postgres://admin:planted-db-password@db.internal/prod",
    "GITHUB_TOKEN": "ghp_planted0123456789abcdef",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/planted-hook",
}
KEYS = {
    "claude-code": ("ANTHROPIC_API_KEY", "sk-ant-planted-0123456789"),
    "codex": ("OPENAI_API_KEY", "sk-openai-planted-0123456789"),
    "fx": ("AI_GATEWAY_API_KEY", "vck-planted-0123456789"),
}


def _verifier(tmp_path: Path, *flags: str) -> tuple[list[dict[str, object]], Path]:
    """Run the verifier on three agent judges; the fakes' recorded runs, and the output dir."""
    bin_dir, ctl, home, tests, ws = (tmp_path / d for d in ("bin", "ctl", "home", "tests", "ws"))
    for d in (bin_dir, ctl, home, tests, ws):
        d.mkdir()
    for name in ("claude", "codex", "fx"):
        exe = bin_dir / name
        exe.write_text(f"#!{sys.executable}\n" + FAKE.read_text())
        exe.chmod(0o755)
    for judge in KEYS:
        (tests / f"{judge}.toml").write_text(judge_toml(judge, criteria=1))
    (ws / "main.py").write_text("print('hello')\n")
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "FAKE_AGENT_DIR": str(ctl),
        "REWARDKIT_AGENT_ENV": "FAKE_AGENT_DIR",
        **PLANTED,
        **dict(KEYS.values()),
    }
    out = tmp_path / "out" / "reward.json"
    done = measure(
        rewardkit_cmd(tests, "--workspace", ws, "--output", out, "--mca", "1", *flags),
        limit_s=120,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["reward"] == 1.0
    assert_no_leak(PLANTED["DATABASE_URL"], out, out.with_name("reward-details.json"))
    calls = [json.loads(line) for line in (ctl / "calls.jsonl").read_text().splitlines()]
    return [c for c in calls if c.get("run")], out.parent


def _judge_of(run: dict[str, object]) -> str:
    environ = run["environ"]
    assert isinstance(environ, dict)
    if "CODEX_HOME" in environ:
        return "codex"
    return "fx" if "FX_MODEL" in environ else "claude-code"


def test_planted_secrets_never_reach_an_agent_cli(tmp_path: Path) -> None:
    runs, _ = _verifier(tmp_path)
    assert sorted(_judge_of(r) for r in runs) == sorted(KEYS)
    for run in runs:
        environ = run["environ"]
        assert isinstance(environ, dict)
        judge = _judge_of(run)
        name, key = KEYS[judge]
        assert environ[name] == key  # its own provider key
        for secret_name, secret in PLANTED.items():
            assert secret_name not in environ, f"{secret_name} reached {judge}"
            assert all(secret not in value for value in environ.values())
        for other, (other_name, other_key) in KEYS.items():
            if other != judge:  # another provider's key is a secret to this CLI
                assert other_name not in environ, f"{other_name} reached {judge}"
                assert all(other_key not in value for value in environ.values())
        assert set(environ) <= _ALLOWED[judge] | {"FAKE_AGENT_DIR"}


_ALLOWED = {  # what the verifier's environment above leaves each CLI
    "claude-code": {"PATH", "HOME", "LANG", "ANTHROPIC_API_KEY"},
    "codex": {"PATH", "HOME", "LANG", "OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME"},
    "fx": {"PATH", "HOME", "LANG", "AI_GATEWAY_API_KEY", "FX_AUTO_UPGRADE", "FX_MODEL", "FX_SOUND"},
}


def test_judge_env_entries_reach_every_agent_cli(tmp_path: Path) -> None:
    runs, _ = _verifier(tmp_path, "--judge-env", "JUDGE_FLAG=explicit-value")
    for run in runs:
        environ = run["environ"]
        assert isinstance(environ, dict)
        assert environ.get("JUDGE_FLAG") == "explicit-value"


def test_judge_env_entries_listed_in_rewardkit_agent_env_reach_every_agent_cli(
    tmp_path: Path,
) -> None:
    listed = "REWARDKIT_AGENT_ENV=FAKE_AGENT_DIR,JUDGE_FLAG"
    runs, _ = _verifier(tmp_path, "--judge-env", "JUDGE_FLAG=explicit", "--judge-env", listed)
    assert len(runs) == 3
    for run in runs:
        environ = run["environ"]
        assert isinstance(environ, dict)
        assert environ.get("JUDGE_FLAG") == "explicit"
        assert "AWS_SECRET_ACCESS_KEY" not in environ
