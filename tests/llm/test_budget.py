"""A run's budget (`--max-cost-usd`, `REWARDKIT_MAX_COST_USD`): once the spent cost reaches
it no new call is sent, calls in flight finish, and what was not judged is `skipped` with the
reason, left out of compositions. Against the local chat server, which reports 12 prompt and
5 completion tokens per call (gpt-4o: $0.00008 a call)."""

from __future__ import annotations

import asyncio
import json
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from server import KEY, ChatServer, ok

import rewardkit as rk
from rewardkit.cli import main as cli
from rewardkit.models import CompletionRequest, ModelClient
from rewardkit.models._ledger import run_ledger
from rewardkit.models._prices import BudgetReached, Spend

CALL = (12 * 2.5 + 5 * 10.0) / 1e6
YES = '{"score": "yes", "reasoning": "fine"}'


def requests(server: ChatServer, n: int) -> list[CompletionRequest]:
    return [
        CompletionRequest(
            model="openai/gpt-4o",
            messages=[{"role": "user", "content": f"question {i}"}],  # distinct: none shared
            api_base=server.url,
            api_key=KEY,
            timeout=5.0,
        )
        for i in range(n)
    ]


def send_all(server: ChatServer, n: int, spend: Spend, concurrent: int) -> list[Any]:
    async def main() -> list[Any]:
        async with ModelClient(max_concurrent=concurrent, spend=spend) as client:
            got = await asyncio.gather(
                *(client.complete(r) for r in requests(server, n)), return_exceptions=True
            )
            assert client.stats.refused == sum(isinstance(g, BudgetReached) for g in got)
            return list(got)

    return asyncio.run(main())


def test_one_at_a_time_the_call_that_reaches_the_budget_is_the_last(server: ChatServer) -> None:
    server.script(then=ok())
    spend = Spend(2.5 * CALL)
    got = send_all(server, 6, spend, concurrent=1)
    assert server.count == 3  # after 2 calls $0.00016 < $0.0002; the 3rd reaches it
    refused = [g for g in got if isinstance(g, BudgetReached)]
    assert len(refused) == 3
    assert "budget of $0.0002 reached" in str(refused[0])
    assert "no call was made" in str(refused[0])
    assert spend.spent == pytest.approx(3 * CALL)


def test_calls_in_flight_finish_and_no_new_one_starts() -> None:
    # Four at once, the budget reached by the first reply: the three others already on the
    # wire finish (and are counted); not one more is sent.
    with ChatServer(latency=0.3) as server:
        server.script(then=ok())
        spend = Spend(CALL)
        got = send_all(server, 10, spend, concurrent=4)
        assert server.max_in_flight == 4
        assert server.count == 4  # exactly the calls in flight when the budget was reached
    assert sum(isinstance(g, BudgetReached) for g in got) == 6
    assert spend.spent == pytest.approx(4 * CALL)


def test_clients_sharing_a_ledger_share_the_budget(server: ChatServer, tmp_path: Path) -> None:
    server.script(then=ok())
    ledger = tmp_path / "spend"
    first, second = Spend(1.5 * CALL, ledger), Spend(1.5 * CALL, ledger)
    send_all(server, 1, first, concurrent=1)
    got = send_all(server, 3, second, concurrent=1)  # another client (or process) of the run
    assert server.count == 2
    assert sum(isinstance(g, BudgetReached) for g in got) == 2
    assert first.spent == second.spent == pytest.approx(2 * CALL)


def test_an_unpriced_reply_is_not_counted(server: ChatServer) -> None:
    server.script(then=ok())
    spend = Spend(0.0)
    spend_free = Spend(1.0)

    async def main() -> None:
        async with ModelClient(spend=spend_free) as client:
            request = requests(server, 1)[0]
            await client.complete(replace(request, model="openai/x"))

    asyncio.run(main())
    assert spend_free.unpriced == 1
    assert spend_free.spent == 0.0
    assert isinstance(send_all(server, 1, spend, concurrent=1)[0], BudgetReached)  # $0: none


JUDGE = """
[judge]
judge = "openai/gpt-4o"
files = ["main.py"]
mode = "individual"

[[criterion]]
name = "a"
description = "Is the code correct?"

[[criterion]]
name = "b"
description = "Is it readable?"

[[criterion]]
name = "c"
description = "Is it short?"
"""


@pytest.fixture
def task(tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    tests, ws = tmp_path / "tests", tmp_path / "ws"
    tests.mkdir()
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    (tests / "quality.toml").write_text(textwrap.dedent(JUDGE))
    return tests, ws


def test_a_judge_toml_past_the_budget_is_skipped_and_left_out(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path
) -> None:
    tests, ws = task
    server.script(then=ok(YES))
    out = tmp_path / "out" / "reward.json"
    with run_ledger(1.5 * CALL):
        rewards = rk.run(tests, workspace=ws, output=out, max_concurrent_llm=1)
    assert server.count == 2
    details = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    statuses = [c["status"] for c in details["criteria"]]
    assert sorted(statuses) == ["scored", "scored", "skipped"]
    (skipped,) = [c for c in details["criteria"] if c["status"] == "skipped"]
    assert "budget of $0.00012 reached" in skipped["reasoning"]
    assert skipped["value"] is None
    assert rewards == {"reward": 1.0}  # the two scored ones; the skipped one is left out
    assert details["usage"]["cost_usd"] == pytest.approx(2 * CALL)


def test_a_judge_toml_skipped_whole_is_left_out_of_its_group(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path
) -> None:
    """No call at all (a budget of $0): the judge abstains, so the group's reward is its
    programmatic check's, not that check averaged with a 0 the budget caused."""
    tests, ws = task
    (tests / "checks.py").write_text("import rewardkit as rk\nrk.file_exists('main.py')\n")
    server.script(then=ok(YES))
    out = tmp_path / "out" / "reward.json"
    with run_ledger(0.0):
        rewards = rk.run(tests, workspace=ws, output=out, max_concurrent_llm=1)
    assert server.count == 0
    assert rewards == {"reward": 1.0}
    details = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    quality = next(c["detail"] for c in details["components"] if c["name"] == "quality")
    assert {c["status"] for c in quality["criteria"]} == {"skipped"}


def test_the_cli_flag_sets_the_budget_and_warns(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests, ws = task
    server.script(then=ok(YES))
    out = tmp_path / "out" / "reward.json"
    argv = [str(tests), "--workspace", str(ws), "--output", str(out), "--mcllm", "1"]
    code = cli([*argv, "--max-cost-usd", str(CALL)])
    assert code == 0
    assert server.count == 1
    assert "budget of $8e-05 reached" in capsys.readouterr().err
    assert json.loads(out.read_text()) == {"reward": 1.0}


def test_a_negative_budget_is_refused_before_anything_runs(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests, ws = task
    out = tmp_path / "out" / "reward.json"
    code = cli([str(tests), "--workspace", str(ws), "--output", str(out), "--max-cost-usd", "-1"])
    assert code == 2
    assert "--max-cost-usd must be a number of dollars ≥ 0" in capsys.readouterr().err
    assert server.count == 0


EVAL = """
dataset: {path: cases}
judges:
  - name: quality
    prompt: "Is it right?"
    model: openai/gpt-4o
    feedback_type: bool
"""


def test_eval_cases_past_the_budget_are_skipped_with_the_reason(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script(then=ok('{"score": true, "rationale": "ok"}'))
    (tmp_path / "eval.yaml").write_text(EVAL)
    for i in range(3):
        case = tmp_path / "cases" / f"c{i}"
        case.mkdir(parents=True)
        (case / "answer.txt").write_text(f"answer {i}")  # distinct prompts
    out = tmp_path / "out"
    argv = ["eval", str(tmp_path / "eval.yaml"), "--cases", str(tmp_path / "cases")]
    argv += ["--out", str(out), "--no-progress", "--max-concurrent", "1"]
    cli([*argv, "--max-cost-usd", str(1.5 * CALL)])
    assert server.count == 2
    lines = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    judged = [line["judges"]["quality"] for line in lines]
    assert sorted(j["status"] for j in judged) == ["scored", "scored", "skipped"]
    (skipped,) = [j for j in judged if j["status"] == "skipped"]
    assert "budget of $0.00012 reached" in json.dumps(skipped)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judges"]["quality"]["skipped_cases"] == 1
    assert summary["judges"]["quality"]["usage"]["cost_usd"] == pytest.approx(2 * CALL)
    assert summary["usage"]["cost_usd"] == pytest.approx(2 * CALL)  # the run's spend
    # the run's model clients, summed: two calls sent, one refused by the budget
    assert {k: summary["models"][k] for k in ("calls", "refused")} == {"calls": 2, "refused": 1}
    assert summary["models"]["limits"] == {"openai/gpt-4o": {"lowest": 1, "backoffs": 0}}


def test_rl_scoring_marks_a_sample_with_nothing_judged_invalid(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/rl.md, "One rule for a judge without a value": with nothing left the sample is
    # invalid, never a silent 0. Worker processes share the budget through its ledger.
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script(then=ok('{"score": true, "rationale": "ok"}'))
    (tmp_path / "eval.yaml").write_text(EVAL)
    rows = [json.dumps({"id": i, "completion": f"answer {i}"}) for i in range(3)]
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text("\n".join(rows) + "\n")
    out = tmp_path / "o.jsonl"
    argv = ["score", str(rollouts), "--config", str(tmp_path / "eval.yaml"), "--out", str(out)]
    code = cli([*argv, "--workers", "1", "--no-progress", "--max-cost-usd", str(1.5 * CALL)])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert server.count == 2  # one sample after another: the 2nd reply reaches the budget
    assert sorted(r["valid"] for r in results) == [False, True, True]
    (invalid,) = [r for r in results if not r["valid"]]
    assert invalid["reward"] is None
    assert "budget of $0.00012 reached" in invalid["error"]
    assert code == 1


def test_a_run_says_when_overload_answers_lowered_a_models_concurrency(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run's stats (AIMD): one line per model whose limit came down, summed over the
    run's clients, and the counters in `rewardkit score --json` and eval's summary.json."""
    tests, ws = task
    for name in "defghijk":  # eleven criteria, one call each, at most 8 at once
        with open(tests / "quality.toml", "a") as toml:
            toml.write(f'\n[[criterion]]\nname = "{name}"\ndescription = "Is it {name}?"\n')
    server.latency = 0.05
    server.capacity = 2  # the provider's hidden limit: a third call at once gets a 429
    server.script(then=ok(YES))
    out = tmp_path / "out" / "reward.json"
    code = cli([str(tests), "--workspace", str(ws), "--output", str(out), "--mcllm", "8"])
    assert code == 0
    assert server.rejected > 0
    err = capsys.readouterr().err
    assert "rewardkit: openai/gpt-4o: overload answers (429/503/529) lowered its concurrency" in err
    assert " of 8 at the lowest" in err
    assert json.loads(out.read_text()) == {"reward": 1.0}  # every refused call was retried


def test_a_run_without_overload_says_nothing_about_limits(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tests, ws = task
    server.script(then=ok(YES))
    out = tmp_path / "out" / "reward.json"
    assert cli([str(tests), "--workspace", str(ws), "--output", str(out)]) == 0
    assert "lowered its concurrency" not in capsys.readouterr().err


# -- a judge's own budget (`budget` in a judge TOML or an eval.yaml judge) -----------------


def test_a_judge_tomls_own_budget_stops_its_calls_and_names_the_judge(
    task: tuple[Path, Path], server: ChatServer, tmp_path: Path
) -> None:
    tests, ws = task
    toml = (tests / "quality.toml").read_text()
    (tests / "quality.toml").write_text(
        toml.replace("[judge]\n", f"[judge]\nbudget = {1.5 * CALL}\n")
    )
    server.script(then=ok(YES))
    out = tmp_path / "out" / "reward.json"
    assert cli([str(tests), "--workspace", str(ws), "--output", str(out), "--mcllm", "1"]) == 0
    assert server.count == 2
    details = json.loads(out.with_name("reward-details.json").read_text())["reward"]
    (skipped,) = [c for c in details["criteria"] if c["status"] == "skipped"]
    assert (
        "quality.toml': budget of $0.00012 reached (spent $0.0002); no call" in skipped["reasoning"]
    )
    assert json.loads(out.read_text()) == {"reward": 1.0}


def test_an_eval_judges_budget_is_its_own_and_shared_by_the_runs_processes(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script(then=ok('{"score": true, "rationale": "ok"}'))
    capped = (
        EVAL + f"    budget: {2.5 * CALL}\n" + EVAL.split("judges:\n")[1].replace("quality", "free")
    )
    (tmp_path / "eval.yaml").write_text(capped)
    for i in range(8):
        case = tmp_path / "cases" / f"c{i}"
        case.mkdir(parents=True)
        (case / "answer.txt").write_text(f"answer {i}")
    out = tmp_path / "out"
    argv = ["eval", str(tmp_path / "eval.yaml"), "--out", str(out), "--no-progress"]
    assert cli([*argv, "--max-concurrent", "1"]) == 0
    lines = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
    quality = sorted(line["judges"]["quality"]["status"] for line in lines)
    assert quality == ["scored"] * 3 + ["skipped"] * 5  # 3 calls reach $2.5 calls' worth
    assert all(line["judges"]["free"]["status"] == "scored" for line in lines)  # not its budget
    assert server.count == 3 + 8
    reason = next(
        j["rationale"] for line in lines if (j := line["judges"]["quality"])["status"] == "skipped"
    )
    assert "judge 'quality': budget of $0.0002 reached" in reason


def test_a_judge_budget_ledger_is_one_per_judge_across_clients() -> None:
    from rewardkit.models._prices import JudgeBudget
    from rewardkit.models._usage import Usage

    with run_ledger(None):
        first, second = JudgeBudget("q", 1.0).spend(), JudgeBudget("q", 1.0).spend()
        other = JudgeBudget("r", 1.0).spend()
        first.add(Usage(cost_usd=0.6))
        assert not second.reached()
        second.add(Usage(cost_usd=0.6))  # another process's client of the same judge
        assert first.reached()
        assert not other.reached()


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("toml", "-1", "[judge].budget: must be a number of dollars ≥ 0 (got -1)"),
        ("toml", '"cheap"', "[judge].budget: must be a number of dollars ≥ 0 (got 'cheap')"),
        ("yaml", "-1", "budget: must be the most this judge may spend"),
        ("yaml", "true", "budget: must be the most this judge may spend"),
    ],
)
def test_a_bad_budget_is_a_config_error_naming_the_key(
    where: str, value: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if where == "toml":
        tests = tmp_path / "tests"
        tests.mkdir()
        (tests / "q.toml").write_text(JUDGE.replace("[judge]\n", f"[judge]\nbudget = {value}\n"))
        assert cli(["check", str(tests)]) == 2
    else:
        (tmp_path / "eval.yaml").write_text(EVAL + f"    budget: {value}\n")
        assert cli(["check", str(tmp_path / "eval.yaml")]) == 2
    assert message in capsys.readouterr().err


def test_an_agent_judge_takes_no_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    agent = JUDGE.replace('judge = "openai/gpt-4o"', 'judge = "claude-code"\nbudget = 1')
    (tests / "q.toml").write_text(agent)
    assert cli(["check", str(tests)]) == 2
    assert "[judge].budget: only LLM judges take it" in capsys.readouterr().err
