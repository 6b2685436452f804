"""One `judges:` entry of an eval.yaml → `EvalJudge` (discriminators and fields: docs/eval-yaml.md).

The kind follows from which field is set, in this order: `builtin` → `check` → `agent` →
LLM (`llm_rubric` / `prompt` / `prompt_file`) → `module` + `function`. `builtin` cannot be
combined with another kind.
"""

from __future__ import annotations

import importlib
import inspect
import textwrap
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, describe_exception, did_you_mean
from rewardkit.compose import compile_expression, parse_score_range
from rewardkit.judges import EvalJudge, JudgeKind
from rewardkit.judges.builtins import BUILTINS

__all__ = ["parse_judge"]

_LLM_FIELDS = ("llm_rubric", "prompt", "prompt_file")
_KINDS: tuple[tuple[JudgeKind, tuple[str, ...]], ...] = (
    ("builtin", ("builtin",)),
    ("check", ("check",)),
    ("agent", ("agent",)),
    ("llm", _LLM_FIELDS),
    ("code", ("module", "function")),
)
_COMMON = ("name", "description", "arguments", "if", "score_range", "feedback_type", "samples")
_LLM_EXTRA = ("model", "context", "inputs", "timeout", "max_budget_usd")
KNOWN_FIELDS = frozenset(_COMMON + _LLM_EXTRA + tuple(f for _, fields in _KINDS for f in fields))
FEEDBACK_TYPES = ("bool", "int", "float")


class _Problems:
    """Collects the errors of one judge, each located as `eval.yaml: judges[i] 'name'`."""

    def __init__(self, path: Path, key: str, errors: list[ConfigError]) -> None:
        self.path, self.key, self.errors = path, key, errors

    def add(self, message: str, field: str | None = None) -> None:
        key = f"{self.key}.{field}" if field else self.key
        self.errors.append(ConfigError(message, path=self.path, key=key))


def parse_judge(
    item: Any, index: int, line: int | None, path: Path, errors: list[ConfigError]
) -> EvalJudge | None:
    """Validate one judge; problems go to `errors`. None when it has no kind (a warning)."""
    at = f" (line {line})" if line else ""
    if not isinstance(item, dict):
        errors.append(ConfigError(f"must be a mapping{at}", path=path, key=f"judges[{index}]"))
        return None
    name = item.get("name")
    label = f"judges[{index}] {name!r}" if isinstance(name, str) else f"judges[{index}]"
    problems = _Problems(path, label + at, errors)
    if not isinstance(name, str) or not name.strip():
        problems.add(f"needs a 'name' (got {name!r}), e.g. name: correctness")
        return None
    for key in item:
        if key not in KNOWN_FIELDS:
            hint = did_you_mean(str(key), KNOWN_FIELDS)
            warnings.warn(f"{path}: {label}: unknown field {key!r} is ignored.{hint}", stacklevel=2)
    present = [kind for kind, fields in _KINDS if any(f in item for f in fields)]
    if "builtin" in present and len(present) > 1:
        problems.add(f"'builtin' cannot be combined with {', '.join(present[1:])}; keep one kind")
        return None
    if not present:
        warnings.warn(
            f"{path}: {label} has none of builtin, check, agent, llm_rubric/prompt/prompt_file, "
            f"module+function; it is skipped.",
            stacklevel=2,
        )
        return None
    kind = present[0]
    arguments = item.get("arguments") or {}
    if not isinstance(arguments, dict):
        problems.add(f"must be a mapping (got {arguments!r})", "arguments")
        arguments = {}
    fn = _resolve(kind, item, arguments, path, problems)
    return EvalJudge(
        name=name,
        kind=kind,
        where=f"{path.name}:{line}" if line else path.name,
        fn=fn,
        arguments=arguments,
        condition=_condition(item.get("if"), problems),
        score_range=_score_range(item, problems),
        description=item.get("description") if isinstance(item.get("description"), str) else None,
        samples=_samples(item.get("samples", 1), problems),
        feedback_type=_feedback_type(item, kind, problems, label, path),
        config={k: v for k, v in item.items() if k in _LLM_FIELDS + _LLM_EXTRA + ("agent",)},
    )


def _resolve(
    kind: JudgeKind,
    item: Mapping[str, Any],
    arguments: dict[str, Any],
    path: Path,
    problems: _Problems,
) -> Callable[..., Any] | None:
    if kind == "builtin":
        return _builtin(item["builtin"], arguments, problems)
    if kind == "check":
        return _check(item["check"], problems)
    if kind == "code":
        return _code(item.get("module"), item.get("function"), path, problems)
    _llm_fields(item, path, problems)
    return None  # llm and agent judges run with the judges work


def _llm_fields(item: Mapping[str, Any], path: Path, problems: _Problems) -> None:
    """Validate the LLM / agent fields now, so a typo fails at load, not when they run."""
    for key in ("llm_rubric", "prompt", "model", "context"):
        if key in item and not isinstance(item[key], str):
            problems.add(f"must be a string (got {item[key]!r})", key)
    if "prompt_file" in item:
        target = item["prompt_file"]
        if not isinstance(target, str) or not (path.parent / target).is_file():
            problems.add(
                f"file not found (got {target!r}, relative to {path.parent})", "prompt_file"
            )
    if "agent" in item and not isinstance(item["agent"], dict):
        problems.add(
            f"must be a mapping, e.g. {{runner: claude-code}} (got {item['agent']!r})", "agent"
        )
    elif "agent" in item:
        _agent_fields(item["agent"], problems)


_AGENT_FIELDS = ("runner", "allowed_tools", "context", "inputs", "timeout", "max_budget_usd")
_RUNNERS = ("claude-code", "codex")


def _agent_fields(agent: Mapping[str, Any], problems: _Problems) -> None:
    for key in agent:
        if key not in _AGENT_FIELDS:
            hint = did_you_mean(str(key), _AGENT_FIELDS)
            problems.add(f"unknown key {key!r}; valid: {', '.join(_AGENT_FIELDS)}.{hint}", "agent")
    runner = agent.get("runner", "claude-code")
    if runner not in _RUNNERS:
        problems.add(
            f"must be one of {', '.join(_RUNNERS)} (got {runner!r})."
            + did_you_mean(str(runner), _RUNNERS),
            "agent.runner",
        )
    timeout = agent.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0
    ):
        problems.add(f"must be a positive number of seconds (got {timeout!r})", "agent.timeout")
    tools = agent.get("allowed_tools")
    if tools is not None and (
        not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)
    ):
        problems.add(
            f"must be a list of tool names, e.g. [Read, Grep] (got {tools!r})",
            "agent.allowed_tools",
        )
    if "context" in agent and not isinstance(agent["context"], str):
        problems.add(f"must be a string (got {agent['context']!r})", "agent.context")


def _builtin(
    name: Any, arguments: dict[str, Any], problems: _Problems
) -> Callable[..., Any] | None:
    fn = BUILTINS.get(name) if isinstance(name, str) else None
    if fn is None:
        choices = ", ".join(sorted(BUILTINS))
        problems.add(
            f"unknown builtin {name!r}.{did_you_mean(str(name), BUILTINS)} Available: {choices}.",
            "builtin",
        )
        return None
    try:
        inspect.signature(fn).bind(None, **arguments)
    except TypeError as exc:
        problems.add(f"builtin {name!r}: {exc}", "arguments")
    return fn


def _check(source: Any, problems: _Problems) -> Callable[..., Any] | None:
    """Compile an inline `check:` snippet as the body of `_check(outputs, arguments)`."""
    if not isinstance(source, str) or not source.strip():
        problems.add("must be a Python snippet that returns a value", "check")
        return None
    code = "def _check(outputs, arguments):\n" + textwrap.indent(textwrap.dedent(source), "    ")
    try:
        compiled = compile(code, f"<{problems.key} check>", "exec")
    except SyntaxError as exc:
        problems.add(f"invalid Python at snippet line {(exc.lineno or 2) - 1}: {exc.msg}", "check")
        return None
    namespace: dict[str, Any] = {}
    # The snippet is the eval author's code (trusted, like a criteria file), never judged content.
    exec(compiled, namespace)
    fn: Callable[..., Any] = namespace["_check"]
    return fn


def _code(module: Any, function: Any, path: Path, problems: _Problems) -> Callable[..., Any] | None:
    if not isinstance(module, str) or not isinstance(function, str):
        problems.add("a code judge needs both 'module' and 'function' (strings)")
        return None
    import sys

    root = str(path.parent.resolve())
    sys.path.insert(0, root)
    try:
        loaded = importlib.import_module(module)
    except Exception as exc:
        problems.add(
            f"cannot import module {module!r} (imported with {root} on sys.path): "
            f"{describe_exception(exc)}",
            "module",
        )
        return None
    finally:
        sys.path.remove(root)
    fn: Callable[..., Any] | None = getattr(loaded, function, None)
    if not callable(fn):
        names = [n for n, v in vars(loaded).items() if callable(v) and not n.startswith("_")]
        problems.add(
            f"module {module!r} has no function {function!r}.{did_you_mean(function, names)}",
            "function",
        )
        return None
    return fn


def _condition(text: Any, problems: _Problems) -> Any:
    if text is None:
        return None
    if not isinstance(text, str):
        problems.add(f"must be an expression string (got {text!r})", "if")
        return None
    try:
        return compile_expression(
            text,
            dialect="condition",
            names=("outputs", "annotations"),
            key=f"{problems.key}.if",
            path=str(problems.path),
        )
    except ConfigError as exc:
        problems.errors.append(exc)
        return None


def _score_range(item: Mapping[str, Any], problems: _Problems) -> tuple[float, float] | None:
    if item.get("score_range") is None:
        return None
    try:
        return parse_score_range(
            item["score_range"], f"{problems.key}.score_range", path=str(problems.path)
        )
    except ConfigError as exc:
        problems.errors.append(exc)
        return None


def _samples(value: Any, problems: _Problems) -> int:
    if type(value) is not int or value < 1:
        problems.add(f"must be a positive integer (got {value!r})", "samples")
        return 1
    return value


def _feedback_type(
    item: Mapping[str, Any], kind: JudgeKind, problems: _Problems, label: str, path: Path
) -> str | None:
    value = item.get("feedback_type")
    if value is not None and value not in FEEDBACK_TYPES:
        problems.add(f"must be one of bool, int, float (got {value!r})", "feedback_type")
        return None
    if kind in ("llm", "agent") and value in ("int", "float") and "score_range" not in item:
        warnings.warn(
            f"{path}: {label} is a numeric {kind} judge without a score_range; its values are "
            f"normalized from [1, 5] and not range-checked. Declare score_range: [lo, hi].",
            stacklevel=2,
        )
    return value
