"""`score_model` and `label_model`: ask a model, on our transport, and read its answer.

The input messages are rendered per sample; a system message asking for a JSON answer comes
first, and the answer's JSON schema is sent where the model takes one. The reply is read
as that JSON, else as a bare number (or label). A reply that says neither scores 0, as on
OpenAI, with the reply kept in the reason. A call that fails (after the transport's
retries) is an error, never a 0.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from rewardkit.graders._graded import Graded, threshold_note
from rewardkit.graders._input import GraderInput
from rewardkit.graders._template import Template, TemplateError

if TYPE_CHECKING:
    from rewardkit.models import ModelClient

__all__ = ["TIMEOUT", "LabelModel", "ModelCall", "ScoreModel", "Turn"]

TIMEOUT = 120.0
"""Seconds one grader's model call may take, retries included."""
_SHOWN = 200  # characters of an unusable reply kept in the reason


@dataclass(frozen=True)
class Turn:
    """One input message: a role and its content, text parts joined by newlines."""

    role: str
    parts: tuple[Template, ...]

    def render(self, given: GraderInput) -> dict[str, str]:
        return {"role": self.role, "content": "\n".join(p.render(given) for p in self.parts)}


@dataclass(frozen=True, kw_only=True)
class ModelCall:
    """The model, the input messages and the sampling parameters of a model grader."""

    model: str
    """As our transport spells it: OpenAI's bare names get `openai/`."""
    turns: tuple[Turn, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    reasoning_effort: str | None = None

    async def ask(
        self, given: GraderInput, client: ModelClient, instruction: str, schema: dict[str, Any]
    ) -> str:
        """The model's reply text.

        Raises:
            TemplateError: a message names a field this sample lacks.
            JudgeError: no reply could be had.
        """
        from rewardkit.models import CompletionRequest

        messages = [{"role": "system", "content": instruction}]
        messages += [turn.render(given) for turn in self.turns]
        request = CompletionRequest(
            model=self.model,
            messages=messages,
            schema=schema,
            timeout=TIMEOUT,
            reasoning_effort=self.reasoning_effort,
            api_base=os.environ.get("REWARDKIT_API_BASE") or None,
            params=dict(self.params),
        )
        result, _ = await client.complete(request)
        return result.text


@dataclass(frozen=True, kw_only=True)
class ScoreModel:
    """The model's number, clipped to `range`."""

    kind: ClassVar[str] = "score_model"
    name: str
    call: ModelCall
    range: tuple[float, float] = (0.0, 1.0)
    pass_threshold: float | None = None

    async def ask(self, given: GraderInput, client: ModelClient) -> Graded:
        low, high = self.range
        instruction = (
            f"Grade the answer with a number from {low:g} to {high:g}. Reply with JSON only: "
            '{"reasoning": "<why>", "result": <number>}.'
        )
        reply = await _reply(self.call, given, client, instruction, _SCORE_SCHEMA)
        if isinstance(reply, Graded):
            return reply
        number, why = _number(reply)
        if number is None:
            return Graded(0.0, f"non-numeric model output, scored 0: {_shown(reply)}")
        value = min(high, max(low, number))
        clipped = f" (clipped from {number:g})" if value != number else ""
        passed, note = threshold_note(value, self.pass_threshold)
        reason = f"{value:g}{clipped}{note}" + (f": {why}" if why else "")
        return Graded(value, reason, passed=passed)


@dataclass(frozen=True, kw_only=True)
class LabelModel:
    """1 when the model's label is one of `passing_labels`, else 0."""

    kind: ClassVar[str] = "label_model"
    name: str
    call: ModelCall
    labels: tuple[str, ...]
    passing_labels: tuple[str, ...]

    async def ask(self, given: GraderInput, client: ModelClient) -> Graded:
        instruction = (
            f"Classify the answer with one label of {json.dumps(list(self.labels))}. "
            'Reply with JSON only: {"label": "<label>"}.'
        )
        schema = {
            "type": "object",
            "properties": {"label": {"type": "string", "enum": list(self.labels)}},
            "required": ["label"],
            "additionalProperties": False,
        }
        reply = await _reply(self.call, given, client, instruction, schema)
        if isinstance(reply, Graded):
            return reply
        label = _label(reply, self.labels)
        if label is None:
            return Graded(0.0, f"the model gave no known label, scored 0: {_shown(reply)}")
        passed = label in self.passing_labels
        return Graded(1.0 if passed else 0.0, f"label {label!r}", passed=passed)


_SCORE_SCHEMA = {
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "result": {"type": "number"}},
    "required": ["reasoning", "result"],
    "additionalProperties": False,
}


async def _reply(
    call: ModelCall,
    given: GraderInput,
    client: ModelClient,
    instruction: str,
    schema: dict[str, Any],
) -> str | Graded:
    """The reply, or the failed `Graded` saying why there is none."""
    from rewardkit.core._errors import ConfigError, JudgeError

    try:
        return await call.ask(given, client, instruction, schema)
    except TemplateError as exc:
        return Graded.failed(str(exc))
    except (JudgeError, ConfigError) as exc:  # ConfigError: the model needs LiteLLM
        return Graded.failed(f"model call failed: {exc}")


def _parsed(text: str) -> Any:
    body = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        return json.loads(body)
    except ValueError:
        return None


def _number(text: str) -> tuple[float | None, str]:
    """The number a reply gives (as JSON `result`, or bare), and its reasoning."""
    data, why = _parsed(text), ""
    if isinstance(data, dict):
        why = str(data.get("reasoning", ""))
        data = data.get("result")
    if isinstance(data, str):
        data = _parsed(data)
    if isinstance(data, int | float) and not isinstance(data, bool) and math.isfinite(data):
        return float(data), why
    return None, why


def _label(text: str, labels: tuple[str, ...]) -> str | None:
    """The label a reply gives (as JSON `label`, or bare; case ignored), if it is known."""
    data = _parsed(text)
    said = data.get("label") if isinstance(data, dict) else text
    if not isinstance(said, str):
        return None
    wanted = said.strip().strip("\"'.").casefold()
    return next((label for label in labels if label.casefold() == wanted), None)


def _shown(reply: str) -> str:
    return repr(reply if len(reply) <= _SHOWN else f"{reply[:_SHOWN]}...")
