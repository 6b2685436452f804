"""`--batch-api`: the model calls of `rewardkit eval` and `rewardkit score` go through the
providers' batch APIs (a local fake of each: `batch_server.py`), and the results are the
ones a live run gets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from batch_server import BatchServer
from server import KEY

from rewardkit.models.batches._run import run_batched

EVAL = """
dataset: {path: cases}
judges:
  - name: correct
    prompt: "Does the answer equal {{ annotations.expected }}?"
    model: MODEL
    feedback_type: bool
  - name: quality
    llm_rubric: "Is the answer well explained?"
    score_range: [1, 5]
    model: MODEL
    samples: 2
reward:
  formula: "0.5 * correct + 0.5 * quality"
"""
ANSWERS = {"c1": "42", "c2": "41", "c3": "42, six sevens"}


def respond(body: dict[str, Any]) -> str:
    """The same verdict live and batched: a function of what the request says."""
    text = json.dumps(body["messages"])
    if "well explained" in text:
        return json.dumps({"score": 5 if "six sevens" in text else 2, "rationale": "r"})
    return json.dumps({"score": "42" in text and "41" not in text, "rationale": "r"})


@pytest.fixture(params=["openai", "anthropic"])
def fake(request: pytest.FixtureRequest) -> BatchServer:
    with BatchServer(respond, protocol=request.param, ticks=2) as server:
        yield server


@pytest.fixture
def suite(tmp_path: Path, fake: BatchServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    model = f"{fake.protocol}/test-model"
    monkeypatch.setenv("REWARDKIT_API_BASE", fake.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("REWARDKIT_BATCH_POLL", "0.01")
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({model: {"input": 1.0, "output": 2.0}}))
    monkeypatch.setenv("REWARDKIT_PRICES", str(prices))
    (tmp_path / "eval.yaml").write_text(EVAL.replace("MODEL", model))
    for case, answer in ANSWERS.items():
        folder = tmp_path / "cases" / case
        folder.mkdir(parents=True)
        (folder / "annotations.yaml").write_text("expected: '42'\n")
        (folder / "answer.txt").write_text(answer)
    return tmp_path / "eval.yaml"


def rewardkit(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rewardkit", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ,
    )


def cases(out: Path) -> dict[str, Any]:
    """Each case's judges and reward, less what differs between runs (times, costs)."""
    found = {}
    for line in (out / "cases.jsonl").read_text().splitlines():
        entry = json.loads(line)
        judges = {
            name: {k: v for k, v in j.items() if k in ("value", "status", "error")}
            for name, j in entry["judges"].items()
        }
        found[entry["case_id"]] = {"reward": entry.get("reward"), "judges": judges}
    return found


def test_an_eval_run_through_the_batch_api_gives_the_live_results(
    suite: Path, fake: BatchServer, tmp_path: Path
) -> None:
    live = rewardkit("eval", suite, "--out", tmp_path / "live")
    assert live.returncode == 0, live.stderr
    calls = fake.live
    assert calls == 3 * 3  # three cases, one call for `correct`, two samples for `quality`
    state = tmp_path / "state"
    batched = rewardkit("eval", suite, "--out", tmp_path / "batched", "--batch-api", state)
    assert batched.returncode == 0, batched.stderr
    assert fake.live == calls  # not one live call more
    assert fake.batched == 9
    assert len(fake.batches) == 1
    assert cases(tmp_path / "batched") == cases(tmp_path / "live")
    assert cases(tmp_path / "live")["c3"]["reward"] == 1.0
    assert "9 model calls to batch, in 1 batch(es)" in batched.stderr
    assert "batch batch_0 " in batched.stderr
    assert ": 9 answered" in batched.stderr
    # priced at half the live price (the price file's rates, tokens as the fake reports them)
    live_summary = json.loads((tmp_path / "live" / "summary.json").read_text())
    half = json.loads((tmp_path / "batched" / "summary.json").read_text())
    assert _cost(half) == pytest.approx(_cost(live_summary) / 2)
    assert _cost(live_summary) > 0
    # run again with the same state: every answer is already there, nothing is sent
    again = rewardkit("eval", suite, "--out", tmp_path / "again", "--batch-api", state)
    assert again.returncode == 0, again.stderr
    assert (fake.live, fake.batched) == (calls, 9)
    assert cases(tmp_path / "again") == cases(tmp_path / "live")


def _cost(summary: dict[str, Any]) -> float:
    return sum(judge["usage"]["cost_usd"] for judge in summary["judges"].values())


def test_a_score_run_through_the_batch_api_gives_the_live_results_file(
    suite: Path, fake: BatchServer, tmp_path: Path
) -> None:
    rollouts = tmp_path / "rollouts.jsonl"
    rows = [{"id": case, "completion": answer, "ground_truth": {"expected": "42"}}
            for case, answer in ANSWERS.items()]  # fmt: skip
    rollouts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    live = rewardkit("score", "--config", suite, rollouts, "--out", tmp_path / "live.jsonl")
    assert live.returncode == 0, live.stderr
    calls = fake.live
    batched = rewardkit(
        "score", "--config", suite, rollouts, "--out", tmp_path / "batched.jsonl",
        "--batch-api", tmp_path / "s",
    )  # fmt: skip
    assert batched.returncode == 0, batched.stderr
    assert fake.live == calls
    assert fake.batched == calls

    def results(name: str) -> list[dict[str, Any]]:
        lines = (tmp_path / name).read_text().splitlines()
        rows = [json.loads(line) for line in lines]
        return sorted(({k: r[k] for k in ("id", "reward", "judges", "valid")} for r in rows),
                      key=lambda r: r["id"])  # fmt: skip

    assert results("batched.jsonl") == results("live.jsonl")
    assert [r["reward"] for r in results("live.jsonl")] == [0.625, 0.0, 1.0]
    # each line has its sample's usage: three calls of 12 + 5 tokens at $1 / $2 per 1M
    for name, share in (("live.jsonl", 1.0), ("batched.jsonl", 0.5)):
        lines = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        assert {line["usage"]["input_tokens"] for line in lines} == {36}
        call = (12 * 1.0 + 5 * 2.0) / 1e6
        assert [line["usage"]["cost_usd"] for line in lines] == pytest.approx(
            [3 * call * share] * 3
        )


def test_requests_that_fail_in_their_batch_are_sent_live(
    suite: Path, fake: BatchServer, tmp_path: Path
) -> None:
    fake.fails = lambda body: "41" in json.dumps(body["messages"])  # every call for case c2
    live = rewardkit("eval", suite, "--out", tmp_path / "live")
    calls = fake.live
    batched = rewardkit("eval", suite, "--out", tmp_path / "batched", "--batch-api", tmp_path / "s")
    assert batched.returncode == live.returncode == 0, batched.stderr
    assert ": 6 answered; 3 without an answer" in batched.stderr
    assert fake.live == calls + 3  # c2's three calls, live
    assert cases(tmp_path / "batched") == cases(tmp_path / "live")


def test_a_batch_run_resumes_without_collecting_or_submitting_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with BatchServer(respond, ticks=3) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        collected: list[int] = []

        def collect() -> None:
            from rewardkit.models.batches._hook import COLLECT_ENV

            collected.append(1)
            folder = Path(os.environ[COLLECT_ENV])
            folder.mkdir(parents=True)
            record = {"key": "k" * 64, "protocol": "openai", "url": f"{fake.url}/chat/completions"}
            body = {
                "model": "m",
                "messages": [{"role": "user", "content": "well explained? six sevens"}],
            }
            record |= {"model": "openai/m", "api_base": fake.url, "body": body}
            (folder / "1.jsonl").write_text(json.dumps(record) + "\n")

        def stop(message: str) -> None:
            if "submitted" in message:
                raise KeyboardInterrupt  # the operator's Ctrl-C, right after submitting

        with pytest.raises(KeyboardInterrupt):
            run_batched(tmp_path / "s", collect, lambda: None, poll=0.01, say=stop)
        state = json.loads((tmp_path / "s" / "state.json").read_text())
        assert [b["id"] for b in state["batches"]] == ["batch_0"]
        said: list[str] = []
        found = run_batched(
            tmp_path / "s",
            collect,
            lambda: os.environ["REWARDKIT_BATCH_ANSWERS"],
            poll=0.01,
            say=said.append,
        )
        assert collected == [1]
        assert len(fake.batches) == 1
        assert said == ["rewardkit: batch batch_0 completed: 1 answered"]
        answer = json.loads((Path(found) / "kk" / f"{'k' * 64}.json").read_text())
        assert json.loads(answer["text"])["score"] == 5


@pytest.mark.parametrize("fake", ["anthropic"], indirect=True)  # only its batches name a URL
def test_a_results_url_on_another_host_is_refused(
    suite: Path, fake: BatchServer, tmp_path: Path
) -> None:
    fake.results_url = "http://198.51.100.7/steal"
    got = rewardkit("eval", suite, "--out", tmp_path / "out", "--batch-api", tmp_path / "s")
    assert got.returncode == 2
    assert "results_url 'http://198.51.100.7/steal' is not on" in got.stderr
    assert "run again" in got.stderr


def test_answers_for_requests_never_submitted_are_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A results file naming other custom_ids cannot plant answers."""
    with BatchServer(respond, ticks=1) as fake:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        real = fake.results

        def planted(name: str) -> bytes:
            forged = {"custom_id": "f" * 64, "response": {"status_code": 200, "body": {}}}
            return real(name) + (json.dumps(forged) + "\n").encode()

        fake.results = planted  # type: ignore[method-assign]
        from rewardkit.models.batches._hook import COLLECT_ENV

        def collect() -> None:
            folder = Path(os.environ[COLLECT_ENV])
            folder.mkdir(parents=True)
            record = {"key": "a" * 64, "protocol": "openai", "url": f"{fake.url}/chat/completions"}
            body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
            record |= {"model": "openai/m", "api_base": fake.url, "body": body}
            (folder / "1.jsonl").write_text(json.dumps(record) + "\n")

        run_batched(tmp_path / "s", collect, lambda: None, poll=0.01, say=lambda _: None)
        answers = tmp_path / "s" / "answers"
        assert sorted(p.name for p in answers.rglob("*.json")) == [f"{'a' * 64}.json"]


def test_batch_api_refuses_a_budget_and_a_bad_state(suite: Path, tmp_path: Path) -> None:
    both = rewardkit(
        "eval", suite, "--out", tmp_path / "o", "--batch-api", tmp_path / "s", "--max-cost-usd", "1"
    )
    assert both.returncode == 2
    assert "--batch-api and --max-cost-usd cannot go together" in both.stderr
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text('{"completion": "42"}\n')
    ray = rewardkit(
        "score", "--config", suite, rollouts, "--out", tmp_path / "o.jsonl",
        "--backend", "ray", "--batch-api", tmp_path / "s",
    )  # fmt: skip
    assert ray.returncode == 2
    assert "--batch-api needs the local backend" in ray.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "state.json").write_text("{}")
    bad = rewardkit("eval", suite, "--out", tmp_path / "o", "--batch-api", tmp_path / "bad")
    assert bad.returncode == 2
    assert "is not a rewardkit batch state; pass an empty directory" in bad.stderr


def test_a_provider_that_refuses_the_key_stops_the_run_keeping_its_state(
    suite: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-wrong")
    got = rewardkit("eval", suite, "--out", tmp_path / "o", "--batch-api", tmp_path / "s")
    assert got.returncode == 2
    assert "HTTP 401" in got.stderr
    assert "run again" in got.stderr
    assert "sk-wrong" not in got.stderr
    state = json.loads((tmp_path / "s" / "state.json").read_text())
    assert state["collected"]
    assert state["batches"][0]["id"] is None
