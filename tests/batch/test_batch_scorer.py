"""`rewardkit.load` → `Scorer`: each source kind, invalid samples, deadlines, order."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.batch import Sample, SampleError, Scorer, as_sample

QA = Path(__file__).parents[2] / "examples" / "qa-eval"


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    return bool(messages[-1]["content"] == ground_truth)


@rk.reward_function
def short(messages: list[dict[str, Any]]) -> float:
    return 1.0 if len(messages[-1]["content"]) <= 3 else 0.5


@rk.reward_function
def boom(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    if messages[-1]["content"] == "boom":
        raise RuntimeError("kaput")
    return 1.0


def test_functions_default_composition_and_outcomes() -> None:
    scorer = rk.load([exact, short])
    result = scorer.score({"prompt": "2+2?", "completion": "4", "ground_truth": "4"})
    assert result.valid
    assert result.reward == 1.0
    assert result.judges == {"exact": 1.0, "short": 1.0}
    wrong = scorer.score({"prompt": "2+2?", "completion": "five", "ground_truth": "4"})
    assert wrong.reward == 0.25  # the default composition: the mean of the scores


def test_functions_dict_with_reward_block() -> None:
    scorer = rk.load(
        {"right": exact, "brief": short}, reward={"formula": "0.5 * right + 0.5 * brief"}
    )
    result = scorer.score({"completion": "four", "ground_truth": "four"})
    assert result.reward == pytest.approx(0.75)


def test_bad_reward_block_is_a_config_error() -> None:
    with pytest.raises(rk.ConfigError, match=r"reward\.gate: must be true or false"):
        rk.load({"right": exact}, reward={"formula": "right", "gate": "yes"})


def test_a_formula_naming_no_judge_warns_at_load() -> None:
    # As documented for eval.yaml: an undefined name is a run-time failure (0.0), so it loads.
    with pytest.warns(UserWarning, match="'nope', which is not a declared judge"):
        rk.load({"right": exact}, reward={"formula": "nope"})


def test_functions_receive_messages_and_metadata() -> None:
    seen: dict[str, Any] = {}

    @rk.reward_function
    def spy(messages: Any, ground_truth: Any = None, metadata: Any = None) -> float:
        seen.update(messages=messages, ground_truth=ground_truth, metadata=metadata)
        return 1.0

    rk.load([spy]).score({"messages": [{"role": "user", "content": "hi"}], "metadata": {"k": 1}})
    assert seen == {
        "messages": [{"role": "user", "content": "hi"}],
        "ground_truth": None,
        "metadata": {"k": 1},
    }


def test_async_reward_function() -> None:
    @rk.reward_function
    async def later(messages: Any, **kwargs: Any) -> float:
        await asyncio.sleep(0)
        return 0.25

    assert rk.load([later]).score({"completion": "x"}).reward == 0.25


def test_eval_yaml_source() -> None:
    scorer = rk.load(QA / "eval.yaml")
    result = scorer.score({"workspace": QA / "cases" / "case-001"})
    assert result.valid
    assert [o.name for o in result.outcomes] == ["answered", "correct", "shows_work", "concise"]
    assert rk.load(QA).score({"workspace": QA / "cases" / "case-001"}).reward == result.reward


def test_eval_yaml_sample_fields_reach_the_record() -> None:
    from rewardkit.batch._backends import EvalBackend

    record = EvalBackend.record(
        as_sample({"prompt": "q", "completion": "a", "ground_truth": "g", "metadata": {"m": 1}})
    )
    assert record["conversation"][-1] == {"role": "assistant", "content": "a"}
    assert record["stdout"] == "a"
    assert record["inputs"]["prompt"] == "q"
    assert record["annotations"]["ground_truth"] == "g"
    assert record["metadata"] == {"m": 1}


def _tests_dir(tmp_path: Path) -> Path:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "checks.py").write_text(
        "import rewardkit as rk\nrk.file_exists('a.txt')\nrk.file_exists('b.txt')\n"
    )
    return tests


def test_tests_dir_source(tmp_path: Path) -> None:
    scorer = rk.load(_tests_dir(tmp_path))
    good, half = tmp_path / "good", tmp_path / "half"
    for ws, names in ((good, "ab"), (half, "a")):
        ws.mkdir()
        for n in names:
            (ws / f"{n}.txt").write_text("x")
    results = scorer.score_batch([{"workspace": good}, {"workspace": half}, {"completion": "x"}])
    assert [r.reward for r in results] == [1.0, 0.5, None]
    assert len(results[0].outcomes) == 2
    assert "'workspace'" in (results[2].error or "")


def test_invalid_samples_do_not_stop_the_batch() -> None:
    scorer = rk.load([boom])
    results = scorer.score_batch(
        [
            {"completion": "ok"},
            {"completion": "boom"},
            {"prompt": "no answer"},
            {"complete": "x"},
            {"completion": "ok"},
        ]
    )
    assert [r.reward for r in results] == [1.0, None, None, None, 1.0]
    assert [r.valid for r in results] == [True, False, False, False, True]
    assert "kaput" in (results[1].error or "")
    assert results[1].outcomes[0].status == "error"
    assert "'completion'" in (results[2].error or "")
    assert "Did you mean 'completion'" in (results[3].error or "")


def test_deadline_makes_a_slow_sample_invalid() -> None:
    release = threading.Event()

    @rk.reward_function
    def slow(messages: Any, **kwargs: Any) -> float:
        if messages[-1]["content"] == "slow":
            release.wait(5)
        return 1.0

    scorer = rk.load([slow], deadline=0.2, max_concurrent=2)
    try:
        results = scorer.score_batch([{"completion": "slow"}, {"completion": "fast"}])
    finally:
        release.set()
    assert results[0].reward is None
    assert "deadline of 0.2s" in (results[0].error or "")
    assert results[1].reward == 1.0


def test_order_is_preserved_under_concurrency() -> None:
    @rk.reward_function
    def value(messages: Any, **kwargs: Any) -> float:
        n = int(messages[-1]["content"])
        time.sleep((10 - n) / 1000)  # later samples finish first
        return n / 10

    results = rk.load([value], max_concurrent=4).score_batch(
        {"completion": str(n)} for n in range(10)
    )
    assert [r.reward for r in results] == [n / 10 for n in range(10)]


def test_ascore_and_concurrency_limit() -> None:
    running, peak = 0, 0
    lock = threading.Lock()

    @rk.reward_function
    def counted(messages: Any, **kwargs: Any) -> float:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.01)
        with lock:
            running -= 1
        return 1.0

    scorer = rk.load([counted], max_concurrent=3)
    assert asyncio.run(scorer.ascore({"completion": "x"})).reward == 1.0
    scorer.score_batch([{"completion": "x"}] * 20)
    assert peak <= 3


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"messages": "hi"}, "'messages'"),
        ({"messages": [{"content": "no role"}]}, "'messages'[0]"),
        ({"completion": 3}, "'completion'"),
        ({"metadata": [1]}, "'metadata'"),
        ({"workspace": 1}, "'workspace'"),
    ],
)
def test_invalid_fields_are_named(data: dict[str, Any], field: str) -> None:
    with pytest.raises(SampleError, match=field.replace("[", r"\[").replace("]", r"\]")):
        as_sample(data)


def test_sample_passes_through_and_text() -> None:
    sample = Sample(completion=[{"role": "assistant", "content": "hi"}])
    assert as_sample(sample) is sample
    assert sample.text() == "hi"
    assert Sample().text() is None


@pytest.mark.parametrize(
    ("source", "kwargs", "match"),
    [
        (Path("nowhere"), {}, "not a tests directory"),
        (42, {}, "cannot load"),
        ([], {}, "no reward functions"),
        ({"x": 3}, {}, "not callable"),
        ([exact], {"max_concurrent": 0}, "max_concurrent"),
        ([exact], {"deadline": 0}, "deadline"),
        (QA, {"reward": {"judge": "x"}}, "reward="),
    ],
)
def test_bad_sources(source: Any, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(rk.ConfigError, match=match):
        rk.load(source, **kwargs)


def test_repr_names_the_kind() -> None:
    assert repr(rk.load(exact)).startswith("Scorer(Functions")
    assert isinstance(rk.load(exact), Scorer)


def test_a_reward_calling_sys_exit_is_an_invalid_sample() -> None:
    @rk.reward_function
    def leaves(messages: Any, **kwargs: Any) -> float:
        raise SystemExit(4)

    result = rk.load([leaves]).score({"completion": "x"})
    assert (result.reward, result.error) == (None, "SystemExit: 4")


def test_an_input_that_fails_while_read_ends_the_stream_with_its_error() -> None:
    def items() -> Any:
        yield 0, {"completion": "x"}
        raise OSError("disk gone")

    async def drain() -> None:
        async for _ in rk.load([exact]).stream(items()):
            pass

    with pytest.raises(OSError, match="disk gone"):
        asyncio.run(asyncio.wait_for(drain(), 10))  # an error, never a hang


def test_a_rollout_cannot_supply_its_own_ground_truth(tmp_path: Path) -> None:
    """The agent writes `annotations.yaml` agreeing with its wrong answer: it is just an output."""
    ws = tmp_path / "rollout"
    ws.mkdir()
    (ws / "answer.txt").write_text("8")
    (ws / "annotations.yaml").write_text('expected: "8"\n')
    (ws / "run_result.json").write_text('{"exit_code": 0}')
    scorer = rk.load(QA / "eval.yaml")
    forged = scorer.score({"workspace": ws})
    correct = next(o for o in forged.outcomes if o.name == "correct")
    assert correct.value != 1.0
    truthful = scorer.score({"workspace": ws, "ground_truth": {"expected": "7"}})
    assert next(o for o in truthful.outcomes if o.name == "correct").value == 0.0
    (ws / "answer.txt").write_text("7")
    right = scorer.score({"workspace": ws, "ground_truth": {"expected": "7"}})
    assert next(o for o in right.outcomes if o.name == "correct").value == 1.0
