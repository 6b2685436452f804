"""`json_schema_reward_with_llm_judge`: schema validity, blended with an LLM's opinion.

The schema part is `json_schema_reward`. The LLM part asks an OpenAI chat model (the
`openai` package, from the `llm` extra; the key from `openai_api_key` or
`OPENAI_API_KEY`) to grade the JSON against the schema and the expected behaviour, and
reads the `SCORE: <0..1>` line of its reply. A failed call or an unreadable reply is
kept in the `llm_score` metric and gives the LLM part 0 (no credit for an unjudged part).
This judge speaks to OpenAI directly, not through rewardkit's judge transport (no
cache, per-model limits or usage accounting); `weights={"llm": 0}` skips it entirely.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._extras import require
from rewardkit.functions.builtin._response import NoResponse, no_response, response_text
from rewardkit.functions.builtin.json._json import json_schema_reward
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["json_schema_reward_with_llm_judge"]

_SCORE = re.compile(r"SCORE:\s*([-+]?\d*\.?\d+)", re.IGNORECASE)
_MAX_PROMPT_JSON = 20_000
"""Characters of the JSON shown to the judge (the rest is cut, and the prompt says so)."""
_INSTRUCTIONS = (
    "You grade JSON produced by an AI assistant. Judge how well it fits the expected "
    "schema and the expected behaviour. Reply with exactly two lines:\n"
    "SCORE: <a number from 0.0 to 1.0>\nEXPLANATION: <one sentence>"
)


def _weights(weights: Mapping[str, float] | None) -> tuple[float, float]:
    given = {"schema": 0.7, "llm": 0.3, **(weights or {})}
    schema, llm = given["schema"], given["llm"]
    unknown = set(given) - {"schema", "llm"}
    ok = all(isinstance(w, int | float) and math.isfinite(w) and w >= 0 for w in (schema, llm))
    if unknown or not ok or schema + llm <= 0:
        raise ValueError(
            'json_schema_reward_with_llm_judge: weights must be {"schema": w, "llm": w} with '
            f"non-negative numbers, not both 0 (got {weights!r})"
        )
    return schema / (schema + llm), llm / (schema + llm)


def _prompt(shown: str, schema: Any, behavior: str | None) -> str:
    cut = f"\n(cut at {_MAX_PROMPT_JSON} characters)" if len(shown) > _MAX_PROMPT_JSON else ""
    return (
        f"Expected schema:\n{json.dumps(schema, indent=2, default=str)}\n\n"
        f"Expected behaviour:\n{behavior or '(none given)'}\n\n"
        f"JSON to grade:\n{shown[:_MAX_PROMPT_JSON]}{cut}"
    )


def _ask(prompt: str, *, model: str, api_key: str | None, temperature: float) -> tuple[float, str]:
    """The judge's score in [0, 1] and its reply; raises on a failed call or bad reply."""
    openai = require(
        "openai", package="openai", extra="llm", function="json_schema_reward_with_llm_judge"
    )
    client = openai.OpenAI(api_key=api_key)
    reply = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": _INSTRUCTIONS},
            {"role": "user", "content": prompt},
        ],
        temperature=temperature,
    )
    text = str(reply.choices[0].message.content or "")
    found = _SCORE.search(text)
    if found is None:
        raise ValueError(f"the reply has no 'SCORE: <number>' line: {text!r:.200}")
    return min(1.0, max(0.0, float(found.group(1)))), text


@reward_function
def json_schema_reward_with_llm_judge(
    messages: list[Message],
    ground_truth: Any = None,
    json_content: Any = None,
    expected_schema: Any = None,
    expected_behavior: str | None = None,
    openai_api_key: str | None = None,
    model: str = "gpt-4o-mini",
    temperature: float = 0.0,
    weights: Mapping[str, float] | None = None,
    **kwargs: Any,
) -> EvaluateResult:
    """`w_schema * schema score + w_llm * LLM score`, the weights normalised.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The schema, when `expected_schema` is not given.
        json_content: Check this (a string or a parsed value) instead of the response.
        expected_schema: The JSON Schema, as a dict or a JSON string.
        expected_behavior: What the JSON should do, in words, for the judge.
        openai_api_key: The OpenAI key (default: `OPENAI_API_KEY`).
        model: The OpenAI chat model that judges.
        temperature: The judge's sampling temperature.
        weights: `{"schema": 0.7, "llm": 0.3}` by default; `"llm": 0` skips the LLM.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `weights` is malformed, or the schema is missing or invalid.
        ImportError: the LLM part is weighted and `openai` is not installed.

    Example:
        >>> json_schema_reward_with_llm_judge(
        ...     [{"role": "assistant", "content": '{"name": "Ada"}'}],
        ...     expected_schema={"type": "object", "required": ["name"]},
        ...     weights={"schema": 1, "llm": 0},
        ... ).score
        1.0
    """
    w_schema, w_llm = _weights(weights)
    schema_result = json_schema_reward(
        messages, ground_truth, json_content=json_content, expected_schema=expected_schema
    )
    try:
        shown = response_text(messages) if json_content is None else json_content
    except NoResponse as problem:
        return no_response("schema_score", problem)
    if not isinstance(shown, str):
        shown = json.dumps(shown, indent=2, default=str)
    llm_score, llm_ok = 0.0, False
    if w_llm == 0:
        llm_reason = "Not asked (weight 0)"
    else:
        schema = expected_schema if expected_schema is not None else ground_truth
        try:
            llm_score, llm_reason = _ask(
                _prompt(shown, schema, expected_behavior),
                model=model,
                api_key=openai_api_key,
                temperature=temperature,
            )
            llm_ok = True
        except ImportError:
            raise
        except Exception as exc:  # a failed call is data: recorded, no credit given
            llm_reason = f"LLM judge failed ({type(exc).__name__}: {exc!s:.200}); counted as 0"
    score = w_schema * schema_result.score + w_llm * llm_score
    reason = (
        f"{w_schema:.2f} × schema {schema_result.score:.2f} + {w_llm:.2f} × LLM "
        f"{llm_score:.2f} = {score:.3f}"
    )
    metrics = {
        "schema_score": MetricResult(
            score=schema_result.score,
            reason=schema_result.reason or "",
            success=schema_result.score == 1.0,
        ),
        "llm_score": MetricResult(score=llm_score, reason=llm_reason, success=llm_ok),
        "weights": MetricResult(  # informational: its score is the schema weight
            score=w_schema, reason=f"Weights: schema {w_schema:.2f}, llm {w_llm:.2f}"
        ),
    }
    return EvaluateResult(score=score, reason=reason, metrics=metrics)
