"""One `judges:` entry of an eval.yaml → `EvalJudge` (discriminators and fields: docs/eval-yaml.md).

The kind follows from which field is set, in this order: `builtin` → `check` → `agent` →
LLM (`llm_rubric` / `prompt` / `prompt_file`) → `module` + `function`. `builtin` cannot be
combined with another kind.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, describe_exception, did_you_mean
from rewardkit.compose import compile_expression, parse_score_range
from rewardkit.judges import EvalJudge, JudgeKind
from rewardkit.judges.builtins import Builtin, argument_problems, lookup

__all__ = ["JudgeContext", "parse_judge"]

_LLM_FIELDS = ("llm_rubric", "prompt", "prompt_file")
_KINDS: tuple[tuple[JudgeKind, tuple[str, ...]], ...] = (
    ("builtin", ("builtin",)),
    ("check", ("check",)),
    ("agent", ("agent",)),
    ("llm", _LLM_FIELDS),
    ("code", ("module", "function")),
)
_COMMON = (
    "name", "description", "arguments", "if", "score_range", "feedback_type", "samples", "step",
)  # fmt: skip
_LLM_EXTRA = ("model", "context", "inputs", "timeout", "max_budget_usd")
KNOWN_FIELDS = frozenset(_COMMON + _LLM_EXTRA + tuple(f for _, fields in _KINDS for f in fields))
FEEDBACK_TYPES = ("bool", "int", "float")
_UNRELEASED = {
    "effort": "set the model's effort on agent judges with agent.runner.effort",
    "consequence": "weigh judges in the reward: block instead",
}
"""Judge fields of unreleased harness versions: a clear error instead of "unknown field"."""


@dataclass(frozen=True)
class JudgeContext:
    """What judges resolve against: the project root, `models.judge`, `execution.steps` ids."""

    root: Path
    judge_model: str | None = None
    steps: frozenset[str] = frozenset()


class _Problems:
    """Collects the errors of one judge, each located as `eval.yaml: judges[i] 'name'`."""

    def __init__(self, path: Path, key: str, errors: list[ConfigError]) -> None:
        self.path, self.key, self.errors = path, key, errors

    def add(self, message: str, field: str | None = None) -> None:
        key = f"{self.key}.{field}" if field else self.key
        self.errors.append(ConfigError(message, path=self.path, key=key))


def parse_judge(
    item: Any,
    index: int,
    line: int | None,
    path: Path,
    errors: list[ConfigError],
    context: JudgeContext | None = None,
) -> EvalJudge | None:
    """Validate one judge; problems go to `errors`. None when it has no kind (a warning)."""
    context = context or JudgeContext(root=Path.cwd())
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
        if key in _UNRELEASED:
            problems.add(f"is not part of the released eval.yaml format; {_UNRELEASED[key]}", key)
        elif key not in KNOWN_FIELDS:
            hint = did_you_mean(str(key), KNOWN_FIELDS)
            warnings.warn(f"{path}: {label}: unknown field {key!r} is ignored.{hint}", stacklevel=2)
    _step(item.get("step"), context, problems)
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
    fn = _resolve(kind, item, arguments, path, problems, context)
    if isinstance(fn, Builtin):  # an LLM builtin: a pass/fail LLM judge on its own prompt
        item = _llm_builtin(fn, item)
        kind, fn = "llm", None
    config = {k: v for k, v in item.items() if k in _LLM_FIELDS + _LLM_EXTRA + ("agent",)}
    if kind in ("llm", "agent"):
        config |= _llm_config(item, path, context, problems)
        _template(config, path, problems)
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
        config=config,
    )


def _resolve(
    kind: JudgeKind,
    item: Mapping[str, Any],
    arguments: dict[str, Any],
    path: Path,
    problems: _Problems,
    context: JudgeContext,
) -> Callable[..., Any] | Builtin | None:
    if kind == "builtin":
        return _builtin(item, arguments, problems)
    if kind == "check":
        return _check(item["check"], problems)
    if kind == "code":
        return _code(item.get("module"), item.get("function"), path, problems, context)
    return None  # llm and agent judges run with the judges work


def _project_file(name: str, path: Path, context: JudgeContext) -> Path | None:
    """A file the eval author names: from the project root, else beside the eval.yaml."""
    for base in dict.fromkeys((context.root, path.parent)):
        candidate = (base / name).resolve()
        if candidate.is_file():
            return candidate
    return None


def _llm_config(
    item: Mapping[str, Any], path: Path, context: JudgeContext, problems: _Problems
) -> dict[str, Any]:
    """Validate the LLM / agent fields now, so a typo fails at load, not when they run.

    Returns the fields resolved: `prompt_file` as an absolute path, `context` files read into
    the text the harness appends, `model` defaulted from `models.judge`.
    """
    resolved: dict[str, Any] = {}
    for key in ("llm_rubric", "prompt", "model"):
        if key in item and not isinstance(item[key], str):
            problems.add(f"must be a string (got {item[key]!r})", key)
    if not item.get("model") and context.judge_model:
        resolved["model"] = context.judge_model
    if "prompt_file" in item:
        target = item["prompt_file"]
        found = _project_file(target, path, context) if isinstance(target, str) else None
        if found is None:
            problems.add(
                f"file not found (got {target!r}; looked in {context.root} and {path.parent})",
                "prompt_file",
            )
        else:
            resolved["prompt_file"] = str(found)
    if "context" in item:
        resolved["context"] = _context(item["context"], path, context, problems)
    if "agent" in item and not isinstance(item["agent"], dict):
        problems.add(
            f"must be a mapping, e.g. {{runner: {{type: claude-code}}}} (got {item['agent']!r})",
            "agent",
        )
    elif "agent" in item:
        resolved["agent"] = _agent_fields(item["agent"], problems)
        if isinstance(item["agent"].get("context"), list):
            resolved["agent"]["context"] = _staged_context(
                item["agent"]["context"], path, context, problems
            )
    return resolved


def _staged_context(
    raw: list[Any], path: Path, context: JudgeContext, problems: _Problems
) -> list[str]:
    """`agent.context`: files and directories the agent judge finds under `./.context/`."""
    found: list[str] = []
    for name in raw:
        target = None
        if isinstance(name, str):
            target = next(
                (base / name for base in (context.root, path.parent) if (base / name).exists()),
                None,
            )
        if target is None:  # as the harness: left out, the judge still runs
            where = f"{context.root} and {path.parent}"
            message = f"{path}: {problems.key}.agent.context: {name!r} not in {where}; skipped"
            warnings.warn(message, stacklevel=5)
        else:
            found.append(str(target.resolve()))
    return found


def _context(raw: Any, path: Path, context: JudgeContext, problems: _Problems) -> str:
    """`context:` as the text appended to the prompt.

    A list names files (the harness's form): each found one is appended under a `## Context:`
    heading; a missing one is skipped, as in the harness. A string is the text itself.
    """
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list) or not all(isinstance(f, str) for f in raw):
        problems.add(f"must be a list of file paths (got {raw!r})", "context")
        return ""
    parts = []
    for name in raw:
        found = _project_file(name, path, context)
        if found is None:
            message = f"{path}: {problems.key}.context: {name!r} not found; skipped"
            warnings.warn(message, stacklevel=5)
            continue
        parts.append(f"## Context: {found.name}\n\n{found.read_text(encoding='utf-8')}")
    return "\n\n".join(parts)


_AGENT_FIELDS = ("runner", "allowed_tools", "context", "inputs", "timeout", "max_budget_usd")
_RUNNERS = ("claude-code", "codex")
_RUNNER_FIELDS = (
    "type", "command", "workspace_mode", "settings", "plugin_dirs", "env", "system_prompt",
    "effort", "permission_mode",
)  # fmt: skip


def _agent_fields(agent: Mapping[str, Any], problems: _Problems) -> dict[str, Any]:
    """The `agent:` block, its `runner` normalized to the runner's name.

    `runner` is a mapping in the harness (`{type: claude-code, effort: high}`); the plain
    name (`runner: codex`) is accepted too. `runner.effort` is kept for the runner.
    """
    for key in agent:
        if key not in _AGENT_FIELDS:
            hint = did_you_mean(str(key), _AGENT_FIELDS)
            problems.add(f"unknown key {key!r}; valid: {', '.join(_AGENT_FIELDS)}.{hint}", "agent")
    result = dict(agent)
    runner = agent.get("runner") or {}
    if isinstance(runner, dict):
        for key in runner:
            if key not in _RUNNER_FIELDS:
                hint = did_you_mean(str(key), _RUNNER_FIELDS)
                problems.add(
                    f"unknown key {key!r}; valid: {', '.join(_RUNNER_FIELDS)}.{hint}",
                    "agent.runner",
                )
        if runner.get("workspace_mode") is not None:
            problems.add(
                "an agent judge always works on a read-only staged copy of the case; drop "
                "workspace_mode",
                "agent.runner.workspace_mode",
            )
        if runner.get("effort") is not None:
            result["effort"] = runner["effort"]
        runner = runner.get("type", "claude-code")
    if runner not in _RUNNERS:
        problems.add(
            f"must be one of {', '.join(_RUNNERS)} (got {runner!r})."
            + did_you_mean(str(runner), _RUNNERS),
            "agent.runner",
        )
    result["runner"] = runner
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
    if "context" in agent and not isinstance(agent["context"], str | list):
        got = agent["context"]
        problems.add(f"must be a string or a list of paths (got {got!r})", "agent.context")
    return result


def _builtin(
    item: Mapping[str, Any], arguments: dict[str, Any], problems: _Problems
) -> Callable[..., Any] | Builtin | None:
    """The Python builtin's function, or the LLM builtin (see `_llm_builtin`); problems with
    the name (listing every `category/name`) or the arguments go to `problems`."""
    name = item["builtin"]
    if not isinstance(name, str):
        problems.add(f"must be a builtin's name, e.g. cost_budget (got {name!r})", "builtin")
        return None
    try:
        builtin = lookup(name)
    except LookupError as exc:
        problems.add(str(exc), "builtin")
        return None
    for problem in argument_problems(builtin, arguments):
        problems.add(problem, "arguments")
    if builtin.fn is not None:
        return builtin.fn
    if item.get("score_range") is not None:
        problems.add(
            f"builtin {name!r} is a pass/fail LLM judge, so a score_range has no meaning; drop it",
            "score_range",
        )
    if item.get("feedback_type") not in (None, "bool"):
        problems.add(
            f"builtin {name!r} is a pass/fail LLM judge; drop feedback_type (or set it to bool)",
            "feedback_type",
        )
    return builtin


def _llm_builtin(builtin: Builtin, item: Mapping[str, Any]) -> dict[str, Any]:
    """The judge entry an LLM builtin runs as: its packaged prompt, pass/fail."""
    kept = {k: v for k, v in item.items() if k not in ("score_range", "feedback_type")}
    return kept | {"prompt_file": str(builtin.prompt), "feedback_type": "bool"}


def _template(config: Mapping[str, Any], path: Path, problems: _Problems) -> None:
    """A prompt template that does not parse fails at load (the field or file, and the line)."""
    if not any(config.get(f) for f in _LLM_FIELDS):
        return
    from rewardkit.judges._eval_llm import template_text
    from rewardkit.judges._template import TemplateError, check

    try:
        check(*template_text(config, path.parent, ""))
    except OSError:
        return  # an unreadable prompt_file is reported by `_llm_config`
    except TemplateError as exc:
        problems.add(f"template syntax error: {exc}")


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


def _code(
    module: Any, function: Any, path: Path, problems: _Problems, context: JudgeContext
) -> Callable[..., Any] | None:
    """Import `module` with the project root (then the eval.yaml's directory) on `sys.path`."""
    if not isinstance(module, str) or not isinstance(function, str):
        problems.add("a code judge needs both 'module' and 'function' (strings)")
        return None
    roots = list(dict.fromkeys(str(p.resolve()) for p in (context.root, path.parent)))
    sys.path[:0] = roots
    try:
        loaded = importlib.import_module(module)
    except Exception as exc:
        problems.add(
            f"cannot import module {module!r} (imported with {' and '.join(roots)} on "
            f"sys.path): {describe_exception(exc)}",
            "module",
        )
        return None
    finally:
        for root in roots:
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
    """`feedback_type`, checked against `score_range` as the harness does.

    Omitted means numeric for an LLM or agent judge: it is scored on [1, 5] unless it declares
    a `score_range`, with a load warning (the harness's), since nothing checks the scale.
    """
    value = item.get("feedback_type")
    bounds = item.get("score_range")
    if value is not None and value not in FEEDBACK_TYPES:
        extra = " ('str' and 'Literal[...]' only exist on the harness's MLflow path)"
        problems.add(f"must be one of bool, int, float (got {value!r}){extra}", "feedback_type")
        return None
    if value == "bool" and bounds is not None:
        problems.add(
            "'score_range' has no meaning with 'feedback_type: bool' (the verdict is "
            "pass/fail); drop one of the two",
            "score_range",
        )
    if value == "int" and _fractional(bounds):
        problems.add(
            f"'feedback_type: int' cannot express the fractional range {bounds}; use "
            "'feedback_type: float'",
            "score_range",
        )
    numeric = value in ("int", "float", None)
    scored = "builtin" not in item and item.get("name") != "pairwise"  # these give verdicts
    if kind in ("llm", "agent") and numeric and bounds is None and scored:
        warnings.warn(
            f"{path}: {label} is a numeric {kind} judge without a score_range, so it is scored "
            f"on the unchecked [1, 5] default. Declare score_range: [lo, hi] (or "
            f"feedback_type: bool for pass/fail).",
            stacklevel=2,
        )
    return value


def _fractional(bounds: Any) -> bool:
    return isinstance(bounds, list) and any(
        isinstance(b, float) and not b.is_integer() for b in bounds
    )


def _step(step: Any, context: JudgeContext, problems: _Problems) -> None:
    """`step:` scopes a judge to one step of a multi-step run, which rewardkit does not read."""
    if step is None or step == "":
        return
    if not context.steps:
        problems.add(f"'step: {step}' requires an execution.steps pipeline", "step")
    elif step not in context.steps:
        problems.add(
            f"'step: {step}' matches no execution.steps id ({', '.join(sorted(context.steps))})."
            + did_you_mean(str(step), context.steps),
            "step",
        )
    else:
        problems.add(
            "scoring one step of a multi-step run is not supported by rewardkit: it scores the "
            "whole case; drop 'step' to judge the final workspace",
            "step",
        )
