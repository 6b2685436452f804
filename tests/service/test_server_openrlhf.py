"""`POST /get_reward`, OpenRLHF's remote reward protocol, over a real uvicorn on 127.0.0.1.

OpenRLHF cannot be installed here (its pinned flash-attn builds only with torch present), so
`OpenRLHFClient` below plays its trainer, written from OpenRLHF's source (not copied):

- 0.9.1 and later (`openrlhf/utils/agent.py`, `SingleTurnAgentExecutor`): each rollout is
  scored alone; the executor POSTs `{"query": [q], "prompts": [p], "labels": [l]}` (JSON, no
  other header) to one of the `--reward.remote_url` URLs, takes `rewards`, `scores` (when
  missing or null: `rewards`) and `extra_logs` (or `{}`) from the answer;
- up to 0.9.0 (`openrlhf/utils/remote_rm_utils.py`, `RemoteRewardModel.get_rewards`): the
  whole rollout batch is split into one contiguous shard per URL, and the answers' `rewards`,
  `scores` and each `extra_logs` key are concatenated in shard order
  (`experience_maker.update_samples_with_rewards`);
- both: any failure (a connection error, any non-2xx status, a body that is not JSON) is
  retried, 5 tries in all, 1 s apart, each within 180 s; then the trainer gets an error.

When the `openrlhf` package can be found (not imported: that needs torch), its own client is
run against the server too, loaded the way OpenRLHF's `tests/test_agent.py` loads it.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import live_server
import pytest
from fastapi import FastAPI
from serve_rewards import exact, fails_on_boom

import rewardkit as rk
from rewardkit.server import create_app

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "openrlhf-t0k"


class TrainerError(RuntimeError):
    """What OpenRLHF's client raises after its last try."""


class OpenRLHFClient:
    """OpenRLHF's side of the protocol (see the module docstring); `pause` is 1 s in theirs."""

    tries = 5
    timeout = 180.0

    def __init__(self, urls: list[str], *, pause: float = 1.0, headers: Any = None) -> None:
        self.urls = urls
        self.pause = pause
        self.headers = headers
        self.attempts = 0

    def post(self, url: str, payload: dict[str, Any]) -> Any:
        for _ in range(self.tries):
            self.attempts += 1
            try:  # theirs: a new session for every try
                with httpx.Client(timeout=self.timeout, headers=self.headers) as client:
                    response = client.post(url, json=payload)
                response.raise_for_status()
                return response.json()
            except Exception:  # theirs: log it, wait, try again
                time.sleep(self.pause)
        raise TrainerError(f"request error for {self.tries} times; check the API server")

    def single_turn(self, query: str, prompt: str, label: Any) -> tuple[Any, Any, dict[str, Any]]:
        """One rollout, as 0.9.1+ scores it: `(reward, score, extra_logs)`."""
        url = self.urls[self.attempts % len(self.urls)]  # 0.11 rotates over its URLs
        info = self.post(url, {"query": [query], "prompts": [prompt], "labels": [label]})
        score = info.get("scores")
        if score is None:
            score = info.get("rewards")
        return info.get("rewards"), score, info.get("extra_logs") or {}

    def batch(
        self, queries: list[str], prompts: list[str], labels: list[Any]
    ) -> tuple[list[float], list[float], dict[str, list[float]]]:
        """A rollout batch, as up to 0.9.0 scores it: one shard per URL, concatenated."""
        size = -(-len(queries) // len(self.urls))
        answers = [
            self.post(
                url,
                {
                    "query": queries[i * size : (i + 1) * size],
                    "prompts": prompts[i * size : (i + 1) * size],
                    "labels": labels[i * size : (i + 1) * size],
                },
            )
            for i, url in enumerate(self.urls)
        ]
        rewards = [r for a in answers for r in a["rewards"]]
        scores = [s for a in answers for s in a["scores"]] if "scores" in answers[0] else rewards
        logs = {
            k: [v for a in answers for v in a["extra_logs"][k]] for k in answers[0]["extra_logs"]
        }
        return rewards, scores, logs


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """`app` under uvicorn on 127.0.0.1; yields its `/get_reward` URL."""
    with live_server.serving(app) as base:
        yield f"{base}/get_reward"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving(create_app(rk.load([exact], max_concurrent=4), max_batch=2000)) as url:
        yield url


@pytest.fixture(scope="module")
def eval_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    suite = tmp_path_factory.mktemp("arith") / "eval.yaml"
    suite.write_text(
        textwrap.dedent("""\
        name: arith
        judges:
          - name: correct
            builtin: answer_matches
          - name: shows_work
            builtin: stdout_contains
            arguments:
              text: "="
        reward:
          formula: 0.75 * correct + 0.25 * shows_work
          gate: false
        """)
    )
    with serving(create_app(rk.load(suite, max_concurrent=2))) as url:
        yield url


def _prompt(question: str) -> str:
    return f"<|im_start|>user\n{question}<|im_end|>\n<|im_start|>assistant\n"


def test_a_rollout_is_scored_as_openrlhf_reads_it(url: str) -> None:
    client = OpenRLHFClient([url])
    prompt = _prompt("2+2?")
    assert client.single_turn(prompt + "4", prompt, "4") == (
        [1.0],
        [1.0],
        {"exact/exact": [1.0], "exact/invalid": [0.0]},
    )
    assert client.single_turn(prompt + "5", prompt, "4")[0] == [0.0]
    assert client.attempts == 2  # no retry on a good answer


def test_the_completion_is_the_query_less_its_prompt(url: str) -> None:
    client = OpenRLHFClient([url])
    # `exact` compares the whole completion, so only the right cut scores 1
    assert client.single_turn("Q: 2+2? A:4", "Q: 2+2? A:", "4")[0] == [1.0]
    # a prompt that does not start the query (e.g. truncated by the trainer): the whole query
    assert client.single_turn("4", "another prompt", "4")[0] == [1.0]
    assert client.single_turn("Q: 4", "another prompt", "4")[0] == [0.0]
    # the end-of-turn tokens the trainer decodes close the answer, they are not in it
    for end in ("<|im_end|>", "<|eot_id|>\n", "</s></s>", "<end_of_turn>"):
        assert client.single_turn(f"Q: 2+2? A:4{end}", "Q: 2+2? A:", "4")[0] == [1.0], end
    assert client.single_turn("Q: 2+2? A:4<|im_end|>x", "Q: 2+2? A:", "4")[0] == [0.0]


def test_a_batch_keeps_its_order_across_shards(url: str) -> None:
    n = 300
    queries = [f"q{i}:" + (str(i) if i % 3 else "wrong") for i in range(n)]
    prompts = [f"q{i}:" for i in range(n)]
    labels = [str(i) for i in range(n)]
    client = OpenRLHFClient([url, url, url])  # one URL listed thrice: three shards
    rewards, scores, logs = client.batch(queries, prompts, labels)
    expected = [0.0 if i % 3 == 0 else 1.0 for i in range(n)]
    assert rewards == expected
    assert scores == expected
    assert logs == {"exact/exact": expected, "exact/invalid": [0.0] * n}


def test_a_large_batch_within_the_limits(url: str) -> None:
    n = 2000  # the server's --max-batch; 2000 long queries stay under the 10 MiB body limit
    filler = "x" * 2000
    queries = [f"{filler}{i}" for i in range(n)]
    client = OpenRLHFClient([url])
    rewards, _, logs = client.batch(queries, [filler] * n, [str(i) for i in range(n)])
    assert rewards == [1.0] * n
    assert logs["exact/invalid"] == [0.0] * n
    assert client.attempts == 1


def test_a_batch_over_the_limits_is_413_naming_the_fix(url: str) -> None:
    response = httpx.post(url, json={"query": ["a"] * 2001})
    assert response.status_code == 413
    assert "exceeds the limit of 2000" in response.json()["detail"]
    assert "--max-batch" in response.json()["detail"]
    response = httpx.post(url, json={"query": ["x" * (11 * 1024 * 1024)]})
    assert response.status_code == 413
    assert "--max-body-bytes" in response.json()["detail"]


def test_labels_and_prompts_are_optional(url: str) -> None:
    # the first protocol (OpenRLHF 0.4) sent only `query`; `exact` then has no ground truth
    answer = httpx.post(url, json={"query": ["4"], "labels": ["4"]}).json()
    assert answer["rewards"] == [1.0]
    answer = httpx.post(url, json={"query": []}).json()
    assert answer == {
        "rewards": [],
        "scores": [],
        "extra_logs": {"exact/exact": [], "exact/invalid": []},
    }


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({}, "body.query", "Field required"),
        ({"query": "one string"}, "body.query", "valid list"),
        ({"query": [1]}, "body.query.0", "valid string"),
        ({"query": ["a"], "prompts": [None]}, "body.prompts.0", "valid string"),
        ({"query": ["a"], "metadata": [{}]}, "body.metadata", "Extra inputs"),
    ],
)
def test_a_bad_body_is_422_naming_the_field(url: str, body: Any, field: str, says: str) -> None:
    response = httpx.post(url, json=body)
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail.startswith(f"{field}: "), detail
    assert says in detail, detail


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"query": ["4", "4"], "prompts": [""]}, "prompts has 1 items but query has 2"),
        ({"query": ["4"], "labels": ["4", "4"]}, "labels has 2 items but query has 1"),
    ],
)
def test_lists_that_do_not_pair_up_score_nothing_and_say_why(
    body: Any, says: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(rk.load([exact], max_concurrent=1))  # its first invalid sample is logged
    with serving(app) as url, caplog.at_level(logging.WARNING, logger="rewardkit.server"):
        response = httpx.post(url, json=body)
    assert response.status_code == 200  # the schema cannot require equal lengths
    n = len(body["query"])
    assert response.json() == {
        "rewards": [0.0] * n,
        "scores": [0.0] * n,
        "extra_logs": {"exact/exact": [0.0] * n, "exact/invalid": [1.0] * n},
    }
    logged = " ".join(r.getMessage() for r in caplog.records if r.name == "rewardkit.server")
    assert says in logged
    assert "no sample of this request was scored" in logged


def test_a_body_that_is_not_json_is_422_and_a_bad_one_is_retried_then_given_up(
    url: str,
) -> None:
    response = httpx.post(url, content=b'{"query": [', headers={"Content-Type": "application/json"})
    assert response.status_code == 422
    assert "JSON" in response.json()["detail"]
    response = httpx.post(url, content=b"query=a")  # a form, like curl's -d alone
    assert response.status_code == 422
    assert "body: Input should be a valid dictionary" in response.json()["detail"]
    client = OpenRLHFClient([url], pause=0)
    with pytest.raises(TrainerError):
        client.post(url, {"query": "not a list"})
    assert client.attempts == OpenRLHFClient.tries  # OpenRLHF retries a 4xx too


def test_an_invalid_sample_scores_zero_counted_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(rk.load([fails_on_boom], max_concurrent=2))
    with serving(app) as url, caplog.at_level(logging.WARNING, logger="rewardkit.server"):
        rewards, scores, logs = OpenRLHFClient([url]).batch(
            ["p:fine", "p:boom", "p:fine"], ["p:"] * 3, [""] * 3
        )
    assert rewards == scores == [1.0, 0.0, 1.0]
    assert logs == {
        "fails_on_boom/fails_on_boom": [1.0, 0.0, 1.0],
        "fails_on_boom/invalid": [0.0, 1.0, 0.0],
    }
    (message,) = [r.getMessage() for r in caplog.records if r.name == "rewardkit.server"]
    assert "/get_reward: 1 invalid sample(s) so far, each scored 0.0" in message
    assert "ValueError: boom" in message


def test_an_eval_yaml_scores_the_completion_against_the_label(eval_url: str) -> None:
    client = OpenRLHFClient([eval_url])
    prompt = _prompt("What is 2+2?")
    rewards, _, logs = client.batch(
        [
            prompt + "2+2=4",  # right, with its working
            prompt + "4",  # right, no working
            prompt + "2+2=5",  # wrong
            prompt + "so 2+2 = \\boxed{4}<|im_end|>",  # the end token the trainer decodes
        ],
        [prompt] * 4,
        ["4"] * 4,
    )
    assert rewards == [1.0, 0.75, 0.25, 1.0]
    assert logs == {
        "arith/correct": [1.0, 1.0, 0.0, 1.0],
        "arith/shows_work": [1.0, 0.0, 1.0, 1.0],
        "arith/invalid": [0.0] * 4,
    }


def test_a_tests_dir_cannot_score_text_and_says_so() -> None:
    app = create_app(rk.load(ROOT / "examples" / "hello" / "tests", max_concurrent=1))
    with serving(app) as url:
        response = httpx.post(url, json={"query": ["a"], "prompts": [""], "labels": [""]})
        assert response.status_code == 501
        assert "Serve an eval.yaml instead" in response.json()["detail"]
        client = OpenRLHFClient([url], pause=0)
        with pytest.raises(TrainerError):
            client.single_turn("a", "", "")
        assert client.attempts == OpenRLHFClient.tries


def test_the_token_is_required_and_goes_in_the_url() -> None:
    app = create_app(rk.load([exact], max_concurrent=1), token=TOKEN)
    with serving(app) as url:
        response = httpx.post(url, json={"query": ["4"], "labels": ["4"]})
        assert response.status_code == 401
        assert "bearer token" in response.json()["detail"]
        trainer = OpenRLHFClient([url], pause=0)
        with pytest.raises(TrainerError):
            trainer.single_turn("4", "", "4")
        assert trainer.attempts == OpenRLHFClient.tries  # a 401 is retried, then given up
        # the token as the URL's password: the client sends it as Basic credentials
        in_url = url.replace("http://", f"http://rewardkit:{TOKEN}@")
        assert OpenRLHFClient([in_url]).single_turn("4", "", "4")[0] == [1.0]
        wrong = url.replace("http://", "http://rewardkit:guess@")
        with pytest.raises(TrainerError):
            OpenRLHFClient([wrong], pause=0).single_turn("4", "", "4")
        # or behind a proxy that adds the header (see docs/openrlhf.md)
        proxied = OpenRLHFClient([url], headers={"Authorization": f"Bearer {TOKEN}"})
        assert proxied.single_turn("4", "", "4")[0] == [1.0]


def _their_agent_module() -> Any:
    """OpenRLHF's own `openrlhf/utils/agent.py`, loaded by path as their tests load it."""
    spec = importlib.util.find_spec("openrlhf")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("openrlhf is not installed (it needs torch, deepspeed, vllm)")
    pytest.importorskip("aiohttp")
    path = Path(next(iter(spec.submodule_search_locations))) / "utils" / "agent.py"
    stub = SimpleNamespace(init_logger=logging.getLogger)
    saved = sys.modules.get("openrlhf.utils.logging_utils")
    sys.modules["openrlhf.utils.logging_utils"] = stub  # type: ignore[assignment]
    try:
        loaded = importlib.util.spec_from_file_location("_openrlhf_agent", path)
        assert loaded is not None
        assert loaded.loader is not None
        module = importlib.util.module_from_spec(loaded)
        loaded.loader.exec_module(module)
    finally:
        if saved is None:
            del sys.modules["openrlhf.utils.logging_utils"]
        else:
            sys.modules["openrlhf.utils.logging_utils"] = saved
    return module


def test_openrlhf_own_client_when_installed(url: str) -> None:
    agent = _their_agent_module()
    executor = agent.SingleTurnAgentExecutor([url, url])
    fetch = executor._fetch_rewards_via_http(["p:4", "p:5", "p:6"], ["p:"] * 3, ["4", "4", "6"])
    answers = asyncio.run(fetch)
    assert [r for a in answers for r in a["rewards"]] == [1.0, 0.0, 1.0]
    assert [v for a in answers for v in a["extra_logs"]["exact/exact"]] == [1.0, 0.0, 1.0]
