"""OpenRLHF's remote reward protocol: `POST /get_reward` (see `docs/openrlhf.md`).

OpenRLHF's trainer (`--reward.remote_url URL`; `--remote_rm_url` before 0.10.2) POSTs
`{"query": [...], "prompts": [...], "labels": [...]}` to the URL it is given, one entry per
rollout, and reads `{"rewards": [...], "scores": [...], "extra_logs": {key: [...]}}` back, one
float per query. Each query becomes a sample: `completion` is the query less its prompt when the
query starts with it (else the whole query), `prompt` the prompt, `ground_truth` the label (an
empty label, what OpenRLHF sends without `--data.label_key`, is none). The samples are scored by
the same workers, under the same token, body limits and deadlines, as `/score/batch`.

OpenRLHF needs a float for every query, so an invalid sample scores `INVALID` (0.0, the bottom
of the [0, 1] range, like `verl_compute_score`), is counted in `extra_logs` as
`<name>/invalid` (1.0) and logged on the server's stderr; `/score/batch` shows it as `null`.
A batch whose `prompts` or `labels` are not one per query is scored as all invalid, saying why.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel, ConfigDict, Field

from rewardkit.batch import Scorer
from rewardkit.server._limits import Limits
from rewardkit.server._models import ErrorOut
from rewardkit.server._pool import Workers

__all__ = ["ROUTE", "OpenRLHFIn", "OpenRLHFOut", "add_openrlhf", "openrlhf_sample"]

ROUTE = "/get_reward"
"""The path of OpenRLHF's own reward server (`openrlhf.cli.serve_rm`)."""

INVALID = 0.0
"""What an invalid sample scores for OpenRLHF."""

_LOG = logging.getLogger("rewardkit.server")
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut} for code in (400, 401, 408, 413, 422, 501, 503, 504)
}
T = TypeVar("T")


class OpenRLHFIn(BaseModel):
    """A batch as OpenRLHF sends it; `prompts` and `labels`, when sent, one per query (else
    every sample of the batch is invalid: which item goes with which query is unknown)."""

    model_config = ConfigDict(extra="forbid")
    query: list[str] = Field(
        description="prompt + response, as the trainer decoded them (special tokens kept)"
    )
    prompts: list[str] | None = Field(default=None, description="the prompt of each query")
    labels: list[Any] | None = Field(
        default=None, description="each query's label (`--data.label_key`): its ground truth"
    )


class OpenRLHFOut(BaseModel):
    """OpenRLHF's answer: one float per query, in query order."""

    rewards: list[float] = Field(description="the reward, in [0, 1]; an invalid sample: 0.0")
    scores: list[float] = Field(description="the same values (OpenRLHF's dynamic filtering)")
    extra_logs: dict[str, list[float]] = Field(
        description="`<name>/<judge>`: each judge's value; `<name>/invalid`: 1.0 when invalid"
    )


END_MARKERS = (
    "<|im_end|>", "<|eot_id|>", "<|end_of_text|>", "<|endoftext|>", "</s>", "<end_of_turn>",
    "<|end|>", "<|return|>", "<｜end▁of▁sentence｜>",
)  # fmt: skip
"""End-of-turn and end-of-text tokens of common chat templates (ChatML, Llama 3, Gemma, Phi,
Mistral, gpt-oss, DeepSeek): the trainer decodes the query with them, and they are no part of
the answer a judge reads."""


def openrlhf_sample(query: str, prompt: str | None, label: Any) -> dict[str, Any]:
    """The sample fields for one OpenRLHF query: the completion is the query less its prompt
    and less the end-of-turn tokens that close it (`END_MARKERS`).

    Example:
        >>> openrlhf_sample("Q: 2+2? A: 4<|im_end|>", "Q: 2+2? A:", "4")
        {'completion': ' 4', 'prompt': 'Q: 2+2? A:', 'ground_truth': '4'}
    """
    completion = query
    if prompt is not None and query.startswith(prompt):
        completion = query[len(prompt) :]
    fields: dict[str, Any] = {"completion": _without_end_markers(completion)}
    if prompt is not None:
        fields["prompt"] = prompt
    if label is not None and label != "":
        fields["ground_truth"] = label
    return fields


_ENDING = re.compile("(?:\\s*+(?:" + "|".join(re.escape(m[::-1]) for m in END_MARKERS) + "))*+")
"""Markers, each after any whitespace, read backwards (possessive: no backtracking)."""


def _without_end_markers(text: str) -> str:
    """`text` less the markers (and the whitespace around them) that end it, in linear time:
    an answer of a million markers costs one reversed copy and one regex match."""
    ending = _ENDING.match(text[::-1])
    return text[: len(text) - ending.end()] if ending else text


def add_openrlhf(
    app: FastAPI, scorer: Scorer, workers: Workers, limits: Limits, auth: list[Any]
) -> None:
    """Add `POST /get_reward`, scoring through `workers` under `limits`."""
    judges = _judge_names(scorer)
    invalids = _Invalids(scorer.name)

    @app.post(ROUTE, dependencies=auth, responses=_ERRORS, tags=["trainers"])
    async def get_reward(batch: OpenRLHFIn) -> OpenRLHFOut:
        """OpenRLHF's remote reward model (`--reward.remote_url http://HOST:PORT/get_reward`)."""
        if judges is None:
            raise HTTPException(
                501,
                "this server scores a tests directory, which needs a workspace per sample; "
                "OpenRLHF sends text only. Serve an eval.yaml instead "
                "(rewardkit serve --config eval.yaml)",
            )
        n = len(batch.query)
        if n > limits.max_batch:
            raise HTTPException(
                413,
                f"batch of {n} queries exceeds the limit of {limits.max_batch}; raise the "
                "server's --max-batch, or list the URL more than once in --reward.remote_url "
                "(OpenRLHF splits a batch across its URLs)",
            )
        mismatch = _mismatch(batch)
        if mismatch is not None:  # not a 422: no JSON Schema can ask for equal lengths, and
            # a body the published schema accepts must not be refused (test_server_schema.py)
            results = [_invalid(mismatch)] * n
        else:
            prompts: Sequence[str | None] = batch.prompts or [None] * n
            labels = batch.labels or [None] * n
            data = [
                openrlhf_sample(*item) for item in zip(batch.query, prompts, labels, strict=True)
            ]
            scoring = asyncio.gather(*(workers.score(d) for d in data))
            results = await _within(limits.deadline, scoring)
        invalids.see(results)
        return _answer(results, scorer.name, judges)


def _mismatch(batch: OpenRLHFIn) -> str | None:
    """Why `prompts` or `labels` cannot be paired with the queries, if they cannot."""
    for name in ("prompts", "labels"):
        given = getattr(batch, name)
        if given is not None and len(given) != len(batch.query):
            return (
                f"{name} has {len(given)} items but query has {len(batch.query)}; send one "
                "per query, in the same order (no sample of this request was scored)"
            )
    return None


def _invalid(error: str) -> dict[str, Any]:
    """An invalid result, as `Workers.score` returns one."""
    fields: dict[str, Any] = {"reward": None, "valid": False, "judges": {}, "rewards": {}}
    return {**fields, "error": error, "reason": error, "duration_s": 0.0}


def _answer(results: Sequence[dict[str, Any]], name: str, judges: Sequence[str]) -> OpenRLHFOut:
    rewards = [INVALID if r["reward"] is None else r["reward"] for r in results]
    logs = {f"{name}/{judge}": _values(results, judge) for judge in judges}
    logs[f"{name}/invalid"] = [0.0 if r["valid"] else 1.0 for r in results]
    return OpenRLHFOut(rewards=rewards, scores=list(rewards), extra_logs=logs)


def _values(results: Sequence[dict[str, Any]], judge: str) -> list[float]:
    """One judge's values; `INVALID` where it has none (skipped, failed, sample invalid):
    OpenRLHF logs numbers, and every answer must carry the same keys."""
    values = (r["judges"].get(judge) for r in results)
    return [INVALID if v is None else v for v in values]


def _judge_names(scorer: Scorer) -> tuple[str, ...] | None:
    """The judges of the loaded reward, fixed for the server's life; `None` for a tests dir,
    which cannot score text."""
    from rewardkit.batch._backends import EvalBackend, FunctionsBackend, TestsDirBackend

    backend = scorer.backend
    if isinstance(backend, TestsDirBackend):
        return None
    if isinstance(backend, EvalBackend):
        return tuple(backend.suite.judge_info)
    return tuple(backend.info) if isinstance(backend, FunctionsBackend) else ()


class _Invalids:
    """Logs invalid samples on stderr: the first, then every 100th, with the count so far."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def see(self, results: Sequence[dict[str, Any]]) -> None:
        for result in results:
            if result["valid"]:
                continue
            self.count += 1
            if self.count == 1 or self.count % 100 == 0:
                _LOG.warning(
                    "rewardkit serve: warning: %s: %d invalid sample(s) so far, each scored "
                    "%s for OpenRLHF (%s/invalid); latest: %s",
                    ROUTE,
                    self.count,
                    INVALID,
                    self.name,
                    result["error"],
                )


async def _within(deadline: float | None, work: Awaitable[T]) -> T:
    """`work`, or 504 past `deadline` (cancelling it ends its scoring processes)."""
    try:
        return await asyncio.wait_for(work, deadline)
    except TimeoutError:
        raise HTTPException(504, f"request deadline of {deadline:g}s exceeded") from None
