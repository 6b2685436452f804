"""One `judges:` entry of an eval.yaml → `EvalJudge` (discriminators and fields: docs/eval-yaml.md).

The kind follows from which field is set, in this order: `builtin` → `check` → `agent` →
LLM (`llm_rubric` / `prompt` / `prompt_file`) → `module` + `function`. `builtin` cannot be
combined with another kind.

Over 350 lines: every judge kind's fields and their located errors, in the discriminator order
above.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import textwrap
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.compose import parse_score_range
from rewardkit.core._errors import ConfigError, describe_exception, did_you_mean
from rewardkit.evalyaml._judge import EvalJudge, JudgeKind

if TYPE_CHECKING:
    from rewardkit.evalyaml.builtins import Builtin

from rewardkit.evalyaml._judge_fields import (
    LLM_FIELDS,
    MODEL_FIELDS,
    JudgeContext,
    Problems,
    check_template,
    llm_config,
)

__all__ = ["parse_judge"]

_KINDS: tuple[tuple[JudgeKind, tuple[str, ...]], ...] = (
    ("builtin", ("builtin",)),
    ("check", ("check",)),
    ("agent", ("agent",)),
    ("llm", LLM_FIELDS),
    ("code", ("module", "function")),
)
_COMMON = (
    "name", "description", "arguments", "if", "score_range", "feedback_type", "samples", "step",
)  # fmt: skip
_LLM_EXTRA = ("model", "context", "inputs", "timeout", "max_budget_usd", *MODEL_FIELDS)
KNOWN_FIELDS = frozenset(_COMMON + _LLM_EXTRA + tuple(f for _, fields in _KINDS for f in fields))
FEEDBACK_TYPES = ("bool", "int", "float")
_UNRELEASED = {
    "effort": "set the model's effort on agent judges with agent.runner.effort",
    "consequence": "weigh judges in the reward: block instead",
}
"""Judge fields of unreleased harness versions: a clear error instead of "unknown field"."""


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
    problems = Problems(path, label + at, errors)
    if not isinstance(name, str) or not name.strip():
        problems.add(f"needs a 'name' (got {name!r}), e.g. name: correctness")
        return None
    for key in item:
        if key in _UNRELEASED:
            problems.add(f"is not part of the released eval.yaml format; {_UNRELEASED[key]}", key)
        elif key not in KNOWN_FIELDS:
            hint = did_you_mean(str(key), KNOWN_FIELDS)
            warnings.warn(f"{path}: {label}: unknown field {key!r} is ignored.{hint}", stacklevel=2)
    step = _step(item.get("step"), context, problems)
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
    if kind == "builtin" and fn is not None and not callable(fn):
        item = _llm_builtin(fn, item)  # an LLM builtin: a pass/fail LLM judge on its prompt
        kind, fn = "llm", None
    assert fn is None or callable(fn)
    config = {k: v for k, v in item.items() if k in LLM_FIELDS + _LLM_EXTRA + ("agent",)}
    if kind in ("llm", "agent"):
        config |= llm_config(item, path, context, problems)
        check_template(config, path, problems)
    for key in (k for k in MODEL_FIELDS if k in item and kind != "llm"):
        problems.add(f"only LLM judges take it, not {kind} judges; drop it", key)
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
        step=step,
    )


def _resolve(
    kind: JudgeKind,
    item: Mapping[str, Any],
    arguments: dict[str, Any],
    path: Path,
    problems: Problems,
    context: JudgeContext,
) -> Callable[..., Any] | Builtin | None:
    if kind == "builtin":
        return _builtin(item, arguments, problems)
    if kind == "check":
        return _check(item["check"], problems)
    if kind == "code":
        return _code(item.get("module"), item.get("function"), path, problems, context)
    return None  # llm and agent judges run with the judges work


def _builtin(
    item: Mapping[str, Any], arguments: dict[str, Any], problems: Problems
) -> Callable[..., Any] | Builtin | None:
    """The Python builtin's function, or the LLM builtin (see `_llm_builtin`); problems with
    the name (listing every `category/name`) or the arguments go to `problems`."""
    from rewardkit.evalyaml.builtins import argument_problems, lookup

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


def _check(source: Any, problems: Problems) -> Callable[..., Any] | None:
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
    module: Any, function: Any, path: Path, problems: Problems, context: JudgeContext
) -> Callable[..., Any] | None:
    """Import `module` with the project root (then the eval.yaml's directory) on `sys.path`;
    one found in a directory the graded agent writes is refused before it runs."""
    if not isinstance(module, str) or not isinstance(function, str):
        problems.add("a code judge needs both 'module' and 'function' (strings)")
        return None
    roots = list(dict.fromkeys(str(p.resolve()) for p in (context.root, path.parent)))
    refused = _agent_module(module, roots, context)
    if refused:
        problems.add(refused, "module")
        return None
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


def _agent_module(module: str, roots: list[str], context: JudgeContext) -> str | None:
    """Why `module` may not be imported: its top-level file or package, as found in `roots`,
    lies in a directory the graded agent writes (a symlink, or an eval.yaml inside one)."""
    spec = importlib.machinery.PathFinder.find_spec(module.partition(".")[0], roots)
    if spec is None:
        return None  # not among the author's files: an installed module
    places = [spec.origin, *(spec.submodule_search_locations or ())]
    refusals = (context.refusal(module, Path(p).resolve()) for p in places if p)
    return next((r for r in refusals if r), None)


def _condition(text: Any, problems: Problems) -> Any:
    if text is None:
        return None
    if not isinstance(text, str):
        problems.add(f"must be an expression string (got {text!r})", "if")
        return None
    try:
        from rewardkit.compose import compile_expression

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


def _score_range(item: Mapping[str, Any], problems: Problems) -> tuple[float, float] | None:
    if item.get("score_range") is None:
        return None
    try:
        return parse_score_range(
            item["score_range"], f"{problems.key}.score_range", path=str(problems.path)
        )
    except ConfigError as exc:
        problems.errors.append(exc)
        return None


def _samples(value: Any, problems: Problems) -> int:
    if type(value) is not int or value < 1:
        problems.add(f"must be a positive integer (got {value!r})", "samples")
        return 1
    return value


def _feedback_type(
    item: Mapping[str, Any], kind: JudgeKind, problems: Problems, label: str, path: Path
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


def _step(step: Any, context: JudgeContext, problems: Problems) -> str | None:
    """`step:` scopes a judge to one step of a multi-step run: the id of an `execution.steps`
    entry (the harness's check). None when unset or wrong."""
    if step is None or step == "":
        return None
    if isinstance(step, bool) or not isinstance(step, str | int):
        problems.add(f"must be the id of an execution.steps entry (got {step!r})", "step")
        return None
    if not context.steps:
        problems.add(f"'step: {step}' requires an execution.steps pipeline", "step")
        return None
    if str(step) not in context.steps:
        problems.add(
            f"'step: {step}' matches no execution.steps id (the steps: "
            f"{', '.join(sorted(context.steps))})." + did_you_mean(str(step), context.steps),
            "step",
        )
        return None
    return str(step)
