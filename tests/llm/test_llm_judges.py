"""Judge TOMLs end to end: `rewardkit` → prompts → the local chat server → reward.json,
with the same verdicts for every provider (native OpenAI, native Anthropic, LiteLLM)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from server import KEY, PROVIDERS, ChatServer, Reply, error, ok, schema_of

import rewardkit as rk


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def answer_all(body: dict[str, Any]) -> Reply:
    """Answer every criterion the request's schema asks for with a top score."""
    schema = schema_of(body)
    props = schema.get("properties", {})
    if set(props) == {"score", "reasoning"}:  # one criterion: the flat answer
        return ok(json.dumps({"score": "yes", "reasoning": "fine"}))
    return ok(json.dumps({name: {"score": "yes", "reasoning": "fine"} for name in props}))


@pytest.fixture
def task(
    tmp_path: Path,
    server: ChatServer,
    monkeypatch: pytest.MonkeyPatch,
    structured: str,
    provider: str,
):
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY", KEY)

    def make(judge_toml: str) -> tuple[Path, Path]:
        tests, ws = tmp_path / "tests", tmp_path / "ws"
        tests.mkdir()
        ws.mkdir()
        (ws / "main.py").write_text("print('hello')\n")
        (tests / "checks.py").write_text("import rewardkit as rk\nrk.file_exists('main.py')\n")
        (tests / "quality.toml").write_text(
            textwrap.dedent(judge_toml).replace("MODEL", structured)
        )
        return tests, ws

    return make


BATCHED = """
[judge]
judge = "MODEL"
files = ["main.py"]

[[criterion]]
description = "Is the code correct?"

[[criterion]]
description = "Is it readable?"
"""


def run(tests: Path, ws: Path, tmp_path: Path, **kw: Any) -> tuple[dict[str, float], dict]:
    out = tmp_path / "out" / "reward.json"
    rewards = rk.run(tests, workspace=ws, output=out, **kw)
    return rewards, json.loads(out.with_name("reward-details.json").read_text())


def test_a_batched_llm_judge_scores_and_reports(task, server: ChatServer, tmp_path: Path) -> None:
    tests, ws = task(BATCHED)
    server.respond_with(answer_all)
    rewards, details = run(tests, ws, tmp_path)
    assert rewards == {"reward": 1.0}
    assert server.count == 1  # both criteria in one call
    quality = next(c["detail"] for c in details["reward"]["components"] if c["name"] == "quality")
    assert [c["status"] for c in quality["criteria"]] == ["scored", "scored"]
    assert list(quality)[:5] == ["score", "criteria", "kind", "judge", "judge_output"]
    assert quality["usage"]["input_tokens"] > 0
    prompt = json.dumps(server.requests[0]["messages"])
    assert "hello" in prompt
    assert "<submission>" in prompt  # judged content is fenced


def test_garbage_then_valid_is_asked_again(task, server: ChatServer, tmp_path: Path) -> None:
    tests, ws = task(BATCHED)
    replies = iter([ok("I think it is fine.")])
    server.respond_with(lambda body: next(replies, None) or answer_all(body))
    rewards, _ = run(tests, ws, tmp_path)
    assert rewards == {"reward": 1.0}
    assert server.count == 2


def test_an_auth_error_is_recorded_and_the_run_goes_on(
    task, server: ChatServer, tmp_path: Path
) -> None:
    tests, ws = task(BATCHED)
    server.script(error(401, "bad key"), then=error(401, "bad key"))
    rewards, details = run(tests, ws, tmp_path)
    assert rewards == {"reward": 0.5}  # checks.py still scores 1.0
    quality = next(c["detail"] for c in details["reward"]["components"] if c["name"] == "quality")
    assert {c["status"] for c in quality["criteria"]} == {"error"}
    assert server.count == 1  # permanent errors are not retried
    assert KEY not in json.dumps(details)


def test_individual_mode_respects_the_llm_limit(task, server: ChatServer, tmp_path: Path) -> None:
    criteria = "".join(f'\n[[criterion]]\ndescription = "Criterion {i}?"\n' for i in range(6))
    tests, ws = task(
        '[judge]\njudge = "MODEL"\nmode = "individual"\nfiles = ["main.py"]\n' + criteria
    )
    server.respond_with(lambda body: Reply(content=answer_all(body).content, delay=0.2))
    rewards, details = run(tests, ws, tmp_path, max_concurrent_llm=2)
    assert rewards == {"reward": 1.0}
    assert server.count == 6
    assert server.max_in_flight <= 2
    quality = next(c["detail"] for c in details["reward"]["components"] if c["name"] == "quality")
    per_criterion = [c["usage"]["input_tokens"] for c in quality["criteria"]]
    assert all(tokens > 0 for tokens in per_criterion)  # each call's cost, on its criterion
    assert sum(per_criterion) == quality["usage"]["input_tokens"]


def test_the_cache_makes_an_unchanged_rerun_free(task, server: ChatServer, tmp_path: Path) -> None:
    tests, ws = task(BATCHED)
    server.respond_with(answer_all)
    out = tmp_path / "out" / "reward.json"
    cache = tmp_path / "cache"
    from rewardkit.cli import main

    args = [str(tests), "--workspace", str(ws), "--output", str(out), "--cache", str(cache)]
    assert main(args) == 0
    assert server.count == 1
    assert main(args) == 0
    assert server.count == 1  # second run: zero requests
    assert json.loads(out.read_text()) == {"reward": 1.0}


def test_a_missing_api_key_is_named_before_any_call(
    task, server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    tests, ws = task(BATCHED)
    variable = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"
    monkeypatch.delenv(variable)
    rewards, details = run(tests, ws, tmp_path)
    assert rewards == {"reward": 0.5}
    quality = next(c["detail"] for c in details["reward"]["components"] if c["name"] == "quality")
    assert "quality.toml: model" in quality["criteria"][0]["error"]
    assert f"needs {variable}" in quality["criteria"][0]["error"]
    assert server.count == 0


TRAJECTORY_JUDGE = """
[judge]
judge = "MODEL"
files = ["main.py"]
atif-trajectory = "PATH"

[[criterion]]
description = "Did the agent test its change?"
"""


def test_a_trajectory_is_rendered_inside_the_submission(
    task, server: ChatServer, tmp_path: Path
) -> None:
    logs = tmp_path / "logs" / "agent"  # an absolute path: Harbor's log, read as given
    logs.mkdir(parents=True)
    steps = [
        {"step_id": 1, "source": "user", "message": "Fix main.py."},
        {
            "step_id": 2,
            "source": "agent",
            "tool_calls": [{"function_name": "bash", "arguments": {"cmd": "pytest"}}],
            "observation": {"results": [{"content": "1 passed"}]},
        },
    ]
    (logs / "trajectory.json").write_text(json.dumps({"agent": {"name": "x"}, "steps": steps}))
    tests, ws = task(TRAJECTORY_JUDGE.replace("PATH", str(logs / "trajectory.json")))
    server.respond_with(answer_all)
    rewards, _ = run(tests, ws, tmp_path)
    assert rewards == {"reward": 1.0}
    texts = [b["text"] for b in server.requests[0]["messages"][-1]["content"]]
    inner = texts[texts.index("<submission>") + 1 : texts.index("</submission>")]
    rendered = "\n".join(inner)
    assert "hello" in rendered  # the files first
    assert "## Agent Trajectory (2 steps, agent: x)\n\n### Step 1 [user]\nFix main.py." in rendered
    assert '[tool_call] bash(cmd="pytest")\n[result] 1 passed' in rendered


def test_an_unusable_trajectory_fails_only_that_judge(
    task, server: ChatServer, tmp_path: Path
) -> None:
    tests, ws = task(TRAJECTORY_JUDGE.replace("PATH", "logs/trajectory.json"))
    rewards, details = run(tests, ws, tmp_path)
    assert rewards == {"reward": 0.5}  # checks.py still scores 1.0
    quality = next(c["detail"] for c in details["reward"]["components"] if c["name"] == "quality")
    [criterion] = quality["criteria"]
    assert criterion["status"] == "error"
    assert criterion["error"].startswith(
        "quality.toml: [judge].atif-trajectory: Trajectory not found: '"
    )
    assert "logs/trajectory.json" in criterion["error"]
    assert server.count == 0
