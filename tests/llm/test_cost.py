"""What each call costs: the price table for native calls, its override file, unknown models,
and the cost summed into a judge's details, against the local chat server."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server import KEY, ChatServer, Reply, ok

import rewardkit as rk
from rewardkit.core._errors import ConfigError
from rewardkit.models import CompletionRequest, ModelClient, Usage
from rewardkit.models._prices import PRICES, load_prices, price, price_of

GPT4O = (12 * 2.5 + 5 * 10.0) / 1e6
"""The server reports 12 prompt and 5 completion tokens; gpt-4o is $2.50 / $10 per 1M."""


def test_the_table_prices_tokens_per_million() -> None:
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    assert price(usage, "openai/gpt-4o").cost_usd == pytest.approx(12.5)
    cached = Usage(input_tokens=1_000_000, cache_read_input_tokens=400_000)
    assert price(cached, "openai/gpt-4o").cost_usd == pytest.approx(0.6 * 2.5 + 0.4 * 1.25)


def test_snapshots_have_their_models_price_and_unknown_models_none() -> None:
    assert price_of("openai/gpt-4o-2024-08-06") == PRICES["openai/gpt-4o"]
    assert price_of("anthropic/claude-sonnet-4-20250514") == PRICES["anthropic/claude-sonnet-4"]
    assert price_of("openai/gpt-4o-mini") == PRICES["openai/gpt-4o-mini"]
    assert price_of("openai/test-model") is None
    unknown = price(Usage(input_tokens=10, output_tokens=3), "hosted_vllm/qwen")
    assert unknown.cost_usd is None  # unknown, never 0


def test_a_reported_cost_is_kept() -> None:
    reported = Usage(input_tokens=10, cost_usd=0.5)
    assert price(reported, "openai/gpt-4o").cost_usd == 0.5


def ask(server: ChatServer, model: str, **client: Any) -> Usage:
    import asyncio

    request = CompletionRequest(
        model=model,
        messages=[{"role": "user", "content": "Is the file there?"}],
        api_base=server.url,
        api_key=KEY,
        timeout=5.0,
    )

    async def main() -> Usage:
        async with ModelClient(**client) as model_client:
            result, _ = await model_client.complete(request)
            return result.usage

    return asyncio.run(main())


def test_a_native_openai_call_is_priced_from_the_table(server: ChatServer) -> None:
    server.script(ok())
    usage = ask(server, "openai/gpt-4o")
    assert usage.input_tokens == 12
    assert usage.output_tokens == 5
    assert usage.cost_usd == pytest.approx(GPT4O)
    assert usage.as_dict()["cost_usd"] == pytest.approx(GPT4O)


def test_a_native_anthropic_call_is_priced_from_the_table() -> None:
    with ChatServer(protocol="anthropic") as server:
        server.script(Reply(usage=(1000, 200)))
        usage = ask(server, "anthropic/claude-sonnet-4-20250514")
    assert usage.cost_usd == pytest.approx((1000 * 3.0 + 200 * 15.0) / 1e6)


def test_an_unknown_model_costs_null_not_zero(server: ChatServer) -> None:
    server.script(ok())
    usage = ask(server, "openai/test-model")
    assert usage.input_tokens == 12
    assert usage.cost_usd is None
    assert "cost_usd" not in usage.as_dict()  # absent in details: unknown


def test_a_price_file_overrides_and_extends_the_table(
    server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {
                "openai/test-model": {"input": 1.0, "output": 2.0},
                "openai/gpt-4o": {"input": 100.0, "output": 100.0, "cached_input": 50.0},
            }
        )
    )
    monkeypatch.setenv("REWARDKIT_PRICES", str(prices))
    server.script(ok(), ok())
    assert ask(server, "openai/test-model").cost_usd == pytest.approx((12 + 10) / 1e6)
    assert ask(server, "openai/gpt-4o").cost_usd == pytest.approx(17 * 100 / 1e6)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("not json", "cannot read the price file"),
        ("[1]", "must be a JSON object"),
        ('{"m": {"input": 1}}', "'input' and 'output'"),
        ('{"m": {"input": 1, "output": -2}}', "must be a number ≥ 0"),
        ('{"m": {"input": 1, "output": 2, "cache": 1}}', "unknown key"),
    ],
)
def test_a_bad_price_file_is_a_config_error(tmp_path: Path, content: str, problem: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=problem):
        load_prices(path)


JUDGE = """
[judge]
judge = "openai/gpt-4o"
files = ["main.py"]
mode = "individual"

[[criterion]]
name = "correct"
description = "Is the code correct?"

[[criterion]]
name = "readable"
description = "Is it readable?"
"""


@pytest.fixture
def judged(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> Callable[[], dict[str, Any]]:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    tests, ws = tmp_path / "tests", tmp_path / "ws"
    tests.mkdir()
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    (tests / "quality.toml").write_text(textwrap.dedent(JUDGE))

    def run() -> dict[str, Any]:
        out = tmp_path / "out" / "reward.json"
        rk.run(tests, workspace=ws, output=out)
        details: dict[str, Any] = json.loads(out.with_name("reward-details.json").read_text())
        return details

    return run


def test_a_judges_details_sum_the_cost_of_its_calls(
    judged: Callable[[], dict[str, Any]], server: ChatServer
) -> None:
    server.script(then=ok('{"score": "yes", "reasoning": "fine"}'))
    details = judged()
    leaf = details["reward"]
    assert server.count == 2
    assert leaf["usage"]["cost_usd"] == pytest.approx(2 * GPT4O)
    assert leaf["usage"]["models"]["openai/gpt-4o"]["cost_usd"] == pytest.approx(2 * GPT4O)
    for criterion in leaf["criteria"]:  # individual mode: each criterion's own call
        assert criterion["usage"]["cost_usd"] == pytest.approx(GPT4O)


def test_check_estimate_projects_calls_tokens_and_cost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardkit.cli import main as cli

    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "quality.toml").write_text(textwrap.dedent(JUDGE).replace("individual", "batched"))
    (tests / "quality.toml").write_text(
        (tests / "quality.toml").read_text().replace("[judge]", "[judge]\nsamples = 3")
    )
    assert cli(["check", str(tests), "--estimate", "--json"]) == 0
    estimate = json.loads(capsys.readouterr().out)["estimate"]
    (judge,) = estimate["judges"]
    assert judge["calls"] == estimate["calls"] == 3  # batched: one call per sample
    assert judge["output_tokens"] == 3 * 2 * 150  # two criteria answered per call
    tokens = judge["input_tokens"]
    assert tokens > 100
    assert judge["cost_usd"] == pytest.approx((tokens * 2.5 + 900 * 10.0) / 1e6)
    assert estimate["cost_usd"] == judge["cost_usd"]
    assert "characters / 4" in estimate["assumes"]
    assert cli(["check", str(tests), "--estimate"]) == 0
    text = capsys.readouterr().out
    assert "quality.toml (openai/gpt-4o): 3 calls" in text
    assert "assumes:" in text


def test_check_estimate_counts_cases_and_leaves_unpriced_models_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rewardkit.cli import main as cli

    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n"
        "  - {name: q, prompt: 'Is it right?', model: openai/gpt-4o, feedback_type: bool}\n"
        "  - {name: r, prompt: 'Is it right?', model: openai/mystery, feedback_type: bool,"
        " samples: 2}\n"
    )
    for i in range(4):
        (tmp_path / "cases" / f"c{i}").mkdir(parents=True)
        (tmp_path / "cases" / f"c{i}" / "answer.txt").write_text("x" * 4000)
    assert cli(["check", str(tmp_path / "eval.yaml"), "--estimate", "--json"]) == 0
    estimate = json.loads(capsys.readouterr().out)["estimate"]
    assert estimate["cases"] == 4
    q, r = estimate["judges"]
    assert (q["calls"], r["calls"]) == (4, 8)
    assert q["input_tokens"] > 4 * 1000  # each case's 4,000 characters: ~1,000 tokens
    assert r["cost_usd"] is None
    assert estimate["unpriced_models"] == ["openai/mystery"]
    assert estimate["cost_usd"] == q["cost_usd"]
