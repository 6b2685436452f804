"""Reading a grader file: JSON → a checked grader tree, or one `ConfigError` at a JSON path.

Every check happens here, so nothing fails late for a reason visible in the file: field
types, `range`, labels, metrics we cannot compute, templates' roots and fields, the
`python` source's syntax, and `calculate_output`'s names and constructs.
"""

from __future__ import annotations

import ast
import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError
from rewardkit.graders._fields import Fields
from rewardkit.graders._grade import Grader
from rewardkit.graders._model import LabelModel, ModelCall, ScoreModel, Turn
from rewardkit.graders._multi import Multi
from rewardkit.graders._python import PythonGrader
from rewardkit.graders._similarity import METRICS, UNSUPPORTED, TextSimilarity, missing_package
from rewardkit.graders._string_check import OPERATIONS, StringCheck
from rewardkit.graders._template import Template

__all__ = ["GRADER_TYPES", "load_grader", "parse_grader"]

GRADER_TYPES = ("string_check", "text_similarity", "score_model", "label_model", "python", "multi")
_COMMON = ("type", "name")
_KEYS = {
    "string_check": ("input", "reference", "operation"),
    "text_similarity": ("input", "reference", "evaluation_metric", "pass_threshold"),
    "score_model": ("model", "input", "range", "sampling_params", "pass_threshold"),
    "label_model": ("model", "input", "labels", "passing_labels"),
    "python": ("source", "image_tag", "pass_threshold", "timeout"),
    "multi": ("graders", "calculate_output"),
}
_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
_TEXT_PARTS = ("input_text", "output_text")
_SAMPLING = ("temperature", "top_p", "seed", "max_completions_tokens", "reasoning_effort")
_MAX_TIMEOUT = 600.0


def load_grader(path: Path) -> Grader:
    """The grader in the JSON file at `path`.

    Raises:
        ConfigError: the file is unreadable or not JSON, or a field is wrong (its JSON path
            is in the message).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the grader file ({exc})", path=path) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON ({exc})", path=path) from None
    return parse_grader(data, path)


def parse_grader(data: object, path: Path | None = None, prefix: str = "") -> Grader:
    """The grader `data` describes (`prefix`: its JSON path inside a `multi`, for messages)."""
    if not isinstance(data, Mapping):
        where = prefix.rstrip(".") or None
        message = f"an OpenAI grader must be a JSON object (got {type(data).__name__})"
        raise ConfigError(message, path=path, key=where)
    fields = Fields(data, path, prefix)
    if "type" not in data:
        raise fields.error(
            "type", f"is required: a grader's type is one of {', '.join(GRADER_TYPES)}"
        )
    kind = fields.choice("type", GRADER_TYPES)
    fields.only((*_COMMON, *_KEYS[kind]), f"a {kind} grader")
    return _BUILD[kind](fields, fields.text("name"))


def _string_check(fields: Fields, name: str) -> StringCheck:
    return StringCheck(
        name=name,
        operation=fields.choice("operation", OPERATIONS),  # type: ignore[arg-type]  # checked
        input=Template.parse(fields, "input"),
        reference=Template.parse(fields, "reference"),
    )


def _text_similarity(fields: Fields, name: str) -> TextSimilarity:
    return TextSimilarity(
        name=name,
        metric=_metric(fields),
        input=Template.parse(fields, "input"),
        reference=Template.parse(fields, "reference"),
        pass_threshold=fields.number("pass_threshold"),
    )


def _score_model(fields: Fields, name: str) -> ScoreModel:
    return ScoreModel(
        name=name,
        call=_call(fields),
        range=_range(fields),
        pass_threshold=fields.number("pass_threshold"),
    )


def _label_model(fields: Fields, name: str) -> LabelModel:
    labels = fields.strings("labels")
    passing = fields.strings("passing_labels")
    for label in passing:
        if label not in labels:
            message = f"{label!r} is not one of labels {list(labels)}"
            raise fields.error("passing_labels", message)
    return LabelModel(name=name, call=_call(fields), labels=labels, passing_labels=passing)


def _python(fields: Fields, name: str) -> PythonGrader:
    return PythonGrader(
        name=name,
        source=_source(fields),
        timeout=_timeout(fields),
        pass_threshold=fields.number("pass_threshold"),
    )


def _metric(fields: Fields) -> str:
    metric = fields.choice("evaluation_metric", (*METRICS, *UNSUPPORTED))
    if metric in UNSUPPORTED:
        message = f"{metric!r} is not supported: {UNSUPPORTED[metric]}"
        raise fields.error("evaluation_metric", message)
    install = missing_package(metric)
    if install is not None:
        raise fields.error("evaluation_metric", f"{metric!r} needs a package: {install}")
    return metric


def _range(fields: Fields) -> tuple[float, float]:
    value = fields.data.get("range", [0, 1])
    ok = isinstance(value, list) and len(value) == 2
    ok = ok and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    if not ok or not all(map(math.isfinite, value)) or not value[0] < value[1]:
        raise fields.error("range", f"must be [min, max] with min < max (got {value!r})")
    return float(value[0]), float(value[1])


def _call(fields: Fields) -> ModelCall:
    model = fields.text("model")
    if "/" not in model:  # OpenAI's own names, e.g. gpt-4o-2024-08-06
        model = f"openai/{model}"
    params, effort = _sampling(fields, model)
    return ModelCall(model=model, turns=_turns(fields), params=params, reasoning_effort=effort)


def _turns(fields: Fields) -> tuple[Turn, ...]:
    turns = fields.data.get("input")
    if not isinstance(turns, list) or not turns:
        raise fields.error("input", "must be a non-empty list of messages {role, content}")
    out = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            raise fields.error(f"input.{i}", "must be a message {role, content}")
        at = Fields(turn, fields.path, f"{fields.prefix}input.{i}.")
        at.only(("role", "content", "type"), "an input message")
        role = at.choice("role", tuple(_ROLES))
        out.append(Turn(role=_ROLES[role], parts=_parts(at)))
    return tuple(out)


def _parts(at: Fields) -> tuple[Template, ...]:
    content = at.data.get("content")
    if isinstance(content, str):
        return (Template.parse(at, "content"),)
    parts = content if isinstance(content, list) else [content]
    out = []
    for j, part in enumerate(parts):
        key = f"content.{j}" if isinstance(content, list) else "content"
        if not isinstance(part, Mapping) or part.get("type") not in _TEXT_PARTS:
            kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
            message = f"only text content is supported: input_text, output_text (got {kind!r})"
            raise at.error(key, message)
        out.append(Template.parse(Fields(part, at.path, f"{at.prefix}{key}."), "text"))
    return tuple(out)


def _sampling(fields: Fields, model: str) -> tuple[dict[str, Any], str | None]:
    if "sampling_params" not in fields.data:
        return {}, None
    given = fields.mapping("sampling_params")
    at = Fields(given, fields.path, f"{fields.prefix}sampling_params.")
    at.only(_SAMPLING, "sampling_params")
    params: dict[str, Any] = {}
    for key in ("temperature", "top_p", "seed", "max_completions_tokens"):
        value = at.number(key)
        if value is None:
            continue
        if key == "max_completions_tokens":  # each provider's own name for it
            key = "max_tokens" if model.startswith("anthropic/") else "max_completion_tokens"
        params[key] = value if key in ("temperature", "top_p") else int(value)
    effort = at.text("reasoning_effort", default="") or None
    return params, effort


def _source(fields: Fields) -> str:
    source = fields.text("source")
    try:
        tree = ast.parse(source, "source")  # parsed, never run, in our process
    except SyntaxError as exc:
        message = f"is not valid Python ({exc.msg}, line {exc.lineno})"
        raise fields.error("source", message) from None
    if not any(isinstance(n, ast.FunctionDef) and n.name == "grade" for n in tree.body):
        raise fields.error("source", "must define a function grade(sample, item)")
    return source


def _timeout(fields: Fields) -> float:
    from rewardkit.graders._python import TIMEOUT

    value = fields.number("timeout")
    if value is None:
        return TIMEOUT
    if not 0 < value <= _MAX_TIMEOUT:
        raise fields.error("timeout", f"must be seconds in (0, {_MAX_TIMEOUT:g}] (got {value:g})")
    return value


def _multi(fields: Fields, name: str) -> Multi:
    from rewardkit.compose import compile_expression

    graders = fields.mapping("graders")
    subs = tuple(
        (str(key), parse_grader(sub, fields.path, f"{fields.prefix}graders.{key}."))
        for key, sub in graders.items()
    )
    formula = fields.text("calculate_output")
    if "^" in formula:
        raise fields.error(
            "calculate_output", "'^' (a power) is not in rewardkit's formula language; write x * x"
        )
    key = f"{fields.prefix}calculate_output"
    where = None if fields.path is None else str(fields.path)
    expression = compile_expression(formula, names=[k for k, _ in subs], key=key, path=where)
    return Multi(name=name, graders=subs, formula=expression)


_BUILD: dict[str, Callable[[Fields, str], Grader]] = {
    "string_check": _string_check,
    "text_similarity": _text_similarity,
    "score_model": _score_model,
    "label_model": _label_model,
    "python": _python,
    "multi": _multi,
}
