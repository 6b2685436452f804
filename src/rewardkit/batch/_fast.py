"""The fast paths of the commonest batches: one sync `@reward_function` over text samples,
passed directly or as an eval.yaml's one code judge.

`fast_scorer` and `fast_eval_scorer` give what `score_sample` gives for such a reward (the
same results, errors included), with fewer steps per sample: a plain `{"prompt",
"completion", ...}` dict is read without building a `Sample` (or a case record), a function
passed directly is scored without building an `EvaluateResult`, and a score on [0, 1] is
the reward without a composition. Any other sample (messages, a workspace, a wrong field) takes
`score_sample`, which checks it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rewardkit.batch._backends import (
    EvalBackend,
    FunctionsBackend,
    failed,
    finished,
    outcome_of,
    raised,
    score_sample,
)
from rewardkit.batch._compose import compose_one
from rewardkit.batch._result import SampleResult, judged, one_judge, scored
from rewardkit.core._outcome import ErrorPolicy
from rewardkit.engine._workers import runs_inline
from rewardkit.functions._decorator import plain_call

__all__ = ["fast_eval_scorer", "fast_scorer"]

_TEXT = frozenset(("prompt", "completion", "ground_truth", "trajectory", "metadata"))
"""The fields of a sample the fast path reads itself."""


def fast_scorer(
    backend: FunctionsBackend, on_error: ErrorPolicy
) -> Callable[[Any], SampleResult] | None:
    """`score_sample` on `backend`, faster; `None` unless it is one sync `@reward_function`
    with the default composition."""
    if len(backend.functions) != 1 or backend.block is not None:
        return None
    ((name, fn, accepted),) = backend.functions
    call = plain_call(fn)
    if call is None:
        return None
    passed = tuple(accepted - {"metadata"})
    wants_metadata = "metadata" in accepted
    info = backend.info
    perf_counter = time.perf_counter

    def score(data: Any) -> SampleResult:
        start = perf_counter()
        messages = _chat(data)
        if messages is None:
            return score_sample(backend, data, on_error=on_error)
        kwargs: dict[str, Any] = {"messages": messages}
        for key in passed:
            kwargs[key] = data.get(key)  # a missing field is None
        if wants_metadata:
            metadata = data.get("metadata")
            kwargs["metadata"] = {} if metadata is None else dict(metadata)
        begun = perf_counter()
        try:
            result = call(kwargs)
        except Exception as exc:
            outcome = raised(name, exc, begun)
        except SystemExit as exc:
            return failed(exc, start)
        else:
            if type(result) is float:  # a finite score (`plain_call`)
                now = perf_counter()
                ms = _ms(now - begun)
                if 0.0 <= result <= 1.0:  # the reward
                    return judged(result, name, ms, now - start)
                outcome = scored(name, result, ms)
            else:
                outcome = outcome_of(name, result, begun)
        value = outcome.value
        if value is not None and 0.0 <= value <= 1.0:  # a score on [0, 1] is the reward
            return one_judge(value, outcome, perf_counter() - start)
        return finished(compose_one(outcome, info, on_error), start)

    return score


def fast_eval_scorer(
    backend: EvalBackend, on_error: ErrorPolicy
) -> Callable[[Any], SampleResult] | None:
    """`score_sample` on `backend` in a worker process, faster; `None` unless its one judge
    is a sync `@reward_function` code judge without `if:` or `step:`, composed by default.
    Such a judge reads only the record's conversation and ground truth: it gets only those."""
    suite = backend.suite
    if len(suite.judges) != 1 or suite.reward is not None:
        return None
    (judge,) = suite.judges
    fn = judge.fn
    call = None if fn is None else plain_call(fn)
    if (
        judge.kind != "code"
        or judge.condition is not None
        or judge.step is not None
        or call is None
        or not judge.arguments.keys().isdisjoint(("messages", "ground_truth"))
    ):
        return None
    info = suite.judge_info
    name, arguments = judge.name, dict(judge.arguments)
    # a score on [0, 1] is the reward; `judged` leaves the outcome's description unset
    unit = info[name].score_range == (0, 1) and judge.description is None
    perf_counter = time.perf_counter

    def score(data: Any) -> SampleResult:
        start = perf_counter()
        messages = _chat(data) if runs_inline() else None  # else each judge in a process
        if messages is None:
            return score_sample(backend, data, on_error=on_error)
        kwargs = {**arguments, "messages": messages, "ground_truth": data.get("ground_truth")}
        try:
            result = call(kwargs)
        except (Exception, SystemExit) as exc:
            outcome = judge.raised(exc, start)
        else:
            if unit and type(result) is float and 0.0 <= result <= 1.0:
                now = perf_counter()
                return judged(result, name, _ms(now - start), now - start)
            outcome = judge.outcome(result, start)
        return finished(compose_one(outcome, info, on_error), start)

    return score


def _ms(seconds: float) -> float:
    """`round(seconds * 1000, 3)`, sooner (a non-negative time)."""
    return int(seconds * 1e6 + 0.5) / 1000


def _chat(data: Any) -> list[dict[str, Any]] | None:
    """The conversation of a plain text sample (a dict of `_TEXT` fields with a text
    `completion`), as `Sample.chat` builds it; `None` for any other sample."""
    if type(data) is not dict or not data.keys() <= _TEXT:
        return None
    get = data.get
    prompt, completion, metadata = get("prompt"), get("completion"), get("metadata")
    if (
        type(completion) is not str
        or (prompt is not None and type(prompt) is not str)
        or (metadata is not None and type(metadata) is not dict)
    ):
        return None
    answer = {"role": "assistant", "content": completion}
    return [answer] if prompt is None else [{"role": "user", "content": prompt}, answer]
