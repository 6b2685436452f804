"""An Inspect AI scorer over any rewardkit reward: `Scorer.inspect_scorer()`.

Inspect awaits its scorers on its own event loop; this one awaits `Scorer.ascore`, which
scores on the scorer's worker threads (or worker processes, with a deadline), so the loop
never blocks. `inspect_ai` is imported only when a scorer is built.

Decisions (see docs/inspect.md):
- The score's value is the reward, a float, with `mean()` and `stderr()`, as Inspect's own
  numeric scorers do; `judges=True` makes it a dict of the reward and each judge's value
  instead (a judge without a value is NaN), with both metrics per key. A sample without
  judge outcomes (a bad field, a deadline) is then NaN at the root, as Inspect needs every
  key of a dict value or none.
- An invalid sample is *unscored*: Inspect's NaN value, left out of every metric and counted
  in the log's `unscored_samples`, with `reason="scoring_failed"` (Inspect's word for a
  scorer that could not run) and the error as the explanation; the eval goes on, as rewardkit
  keeps errors as data. `invalid="raise"` follows Inspect's scoring policy for broken
  machinery instead (a sample error, under `retry_on_error`/`fail_on_error`); a number
  scores it that. Never a silent 0.
- The scorer is made by `inspect_ai.scorer.scorer` at run time, so Inspect registers it
  (as `rewardkit/<name>` once rewardkit is installed) and records its arguments in the log.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from rewardkit.batch._result import SampleResult
from rewardkit.core._errors import ConfigError, RewardKitError

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage
    from inspect_ai.scorer import Score, Target
    from inspect_ai.scorer import Scorer as InspectScorer
    from inspect_ai.solver import TaskState

    from rewardkit.batch._scorer import Scorer

__all__ = ["INSTALL", "inspect_sample", "inspect_scorer"]

INSTALL = "pip install inspect-ai"
_FIELDS = ("workspace", "trajectory")
"""Sample metadata keys that fill those sample fields (as verl's `extra_info` does)."""


def inspect_scorer(
    scorer: Scorer,
    *,
    name: str | None = None,
    judges: bool = False,
    invalid: float | str | None = None,
) -> InspectScorer:
    """An Inspect AI scorer (`Task(scorer=...)`) that scores each sample with `scorer`.

    Args:
        name: the scorer's name in Inspect's logs (default: `scorer.name`).
        judges: make the value `{"reward": ..., <judge>: ...}` with per-key metrics,
            instead of the reward alone.
        invalid: what an invalid sample scores: `None` (the default) leaves it unscored
            (NaN: out of the metrics, counted as unscored), a number scores it that (both
            with `reason="scoring_failed"` and the error as explanation), and `"raise"`
            makes it an Inspect sample error.

    Raises:
        ImportError: `inspect_ai` is not installed.
        ConfigError: `invalid` is a string other than `"raise"`.

    Example (in a task file run by `inspect eval`):

        Task(dataset=..., solver=generate(), scorer=rk.load("eval.yaml").inspect_scorer())
    """
    try:
        from inspect_ai.scorer import mean, stderr
        from inspect_ai.scorer import scorer as register
    except ImportError:
        raise ImportError(f"Scorer.inspect_scorer needs Inspect AI: {INSTALL}") from None

    if isinstance(invalid, str) and invalid != "raise":
        raise ConfigError(
            f"inspect_scorer(invalid=...) must be a number, None or 'raise' (got {invalid!r})"
        )
    metrics: Any = {"*": [mean(), stderr()]} if judges else [mean(), stderr()]

    def rewardkit(
        source: str,
        on_error: str,
        deadline: float | None,
        judges: bool,
        invalid: float | str | None,
    ) -> InspectScorer:
        # Inspect records these arguments in the log; the scorer itself is the one given.
        async def score(state: TaskState, target: Target) -> Score:
            result = await scorer.ascore(inspect_sample(state, target))
            return _score(result, judges=judges, invalid=invalid)

        return score

    factory = register(metrics, name=name or scorer.name)(rewardkit)
    return factory(
        source=_source(scorer),
        on_error=scorer.on_error,
        deadline=scorer.deadline,
        judges=judges,
        invalid=invalid,
    )


def inspect_sample(state: TaskState, target: Target) -> dict[str, Any]:
    """The rewardkit sample of an Inspect `TaskState` and `Target`.

    `messages` and `prompt` are the transcript and the input as `{"role", "content"}` dicts,
    `completion` is `state.output.completion`, `ground_truth` the target (a string, a list
    for several, `None` for none), `metadata` the sample's metadata, whose `workspace` and
    `trajectory` keys, when present, fill those fields.
    """
    metadata = dict(state.metadata or {})
    texts = [text for text in target.target if text]
    sample: dict[str, Any] = {
        "messages": _messages(state.messages),
        "prompt": state.input if isinstance(state.input, str) else _messages(state.input),
        "completion": state.output.completion,
        "ground_truth": texts[0] if len(texts) == 1 else (texts or None),
        "metadata": metadata,
    }
    for key in _FIELDS:
        if metadata.get(key) is not None:
            sample[key] = metadata[key]
    return sample


def _messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    return [_message(m) for m in messages]


def _message(message: ChatMessage) -> dict[str, Any]:
    """An OpenAI-style message dict: role, text content, and tool calls or their ids."""
    out: dict[str, Any] = {"role": message.role, "content": message.text}
    calls = getattr(message, "tool_calls", None)
    if calls:
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.function, "arguments": json.dumps(call.arguments)},
            }
            for call in calls
        ]
    if message.role == "tool" and message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    return out


def _score(result: SampleResult, *, judges: bool, invalid: float | str | None) -> Score:
    from inspect_ai.scorer import Score

    reward = result.reward
    if reward is None:
        if isinstance(invalid, str):  # "raise": Inspect records a sample error
            raise RewardKitError(f"rewardkit could not score this sample: {result.error}")
        reward = math.nan if invalid is None else invalid
    value: float | dict[str, float] = reward
    if judges and result.outcomes:  # without outcomes NaN: Inspect wants every key or none
        value = {"reward": reward}  # a judge named "reward" is in the metadata only
        for judge, judged in result.judges.items():
            value.setdefault(judge, math.nan if judged is None else judged)
    elif judges:
        value = math.nan
    return Score(
        value=value,
        explanation=result.error or _explanation(result),
        reason=None if result.valid else "scoring_failed",
        metadata=_metadata(result),
    )


def _explanation(result: SampleResult) -> str | None:
    """`judge=value: reason` per judge, so a reader sees why without opening the metadata."""
    parts = []
    for outcome in result.outcomes:
        value = "-" if outcome.value is None else f"{outcome.value:g}"
        why = outcome.reasoning or outcome.error
        parts.append(f"{outcome.name}={value}" + (f": {why}" if why else ""))
    return "; ".join(parts) or None


def _metadata(result: SampleResult) -> dict[str, Any]:
    return {
        "reward": result.reward,
        "valid": result.valid,
        "error": result.error,
        "rewards": dict(result.rewards),
        "judges": {
            o.name: {"value": o.value, "status": o.status, "reason": o.reasoning, "error": o.error}
            for o in result.outcomes
        },
    }


def _source(scorer: Scorer) -> str:
    """What the log records as the reward's source: a path, or the functions' names."""
    recipe = scorer.recipe
    if recipe is None:
        return repr(scorer)
    if isinstance(recipe.source, str):
        return recipe.source
    return ", ".join(f"{getattr(fn, '__module__', '?')}:{judge}" for judge, fn in recipe.source)
