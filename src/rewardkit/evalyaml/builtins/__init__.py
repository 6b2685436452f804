"""The builtin judges of an eval.yaml: `builtin: <name>`, or `builtin: <category>/<name>`.

Python builtins are called as `fn(record, **arguments)` and return `(passed, rationale)`.
LLM builtins are Jinja prompts (package data, `prompts/<name>.md`) that run as pass/fail
LLM judges. Arguments are checked at load against each builtin's parameters.

| builtin | kind | arguments (default) | passes when |
|---|---|---|---|
| `efficiency/cost_budget` | python | `max_cost_usd` (1.0) | `cost_usd` ≤ `max_cost_usd` \
(fails with no cost) |
| `efficiency/turn_budget` | python | `max_turns` | `num_turns` ≤ `max_turns` |
| `process/consulted_docs` | python | `min_coverage` (0.8), `match` (suffix), \
`include_subagents` (true), `include_grep` (true), `preloaded_files` ([]) | enough of \
`annotations.expected_files` was read |
| `process/tool_call_validation` | python | — | no tool call has an error result |
| `process/tool_called` | python | `name`, `min_count` (1) | the tool was called enough |
| `process/tool_not_called` | python | `name` | the tool was never called |
| `quality/output_completeness` | LLM | `strictness` (medium), `criteria` | the output is complete |
| `safety/no_harmful_content` | LLM | `categories` | the output has no harmful content |
| `output/files_exist` | python | `paths` | every path is in `files` |
| `output/file_contains` | python | `path`, `text` | the file holds `text` |
| `output/file_matches_regex` | python | `path`, `pattern` | `re.search` finds it in the file |
| `output/json_key_equals` | python | `path`, `key`, `expected` (the case's answer) | the \
top-level key equals |
| `output/stdout_contains` | python | `text` | the transcript holds `text` |
| `output/stdout_matches_regex` | python | `pattern` | `re.search` finds it in the transcript |
| `output/exit_code_equals` | python | `code` (0) | the run's exit code |
| `output/answer_matches` | python | `annotation` (expected, else ground_truth), \
`path` | the stripped answer (file, else stdout) equals the annotation, or states the same \
math answer (`math_reward`'s engine on its final answer) |

`turn_budget`, `tool_called`, `tool_not_called` and `exit_code_equals` raise (an `error`
outcome) when the case does not record their metadata.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rewardkit.core._errors import did_you_mean
from rewardkit.evalyaml.builtins import _efficiency, _output, _process

__all__ = ["BUILTINS", "Builtin", "argument_problems", "lookup"]

PROMPTS = Path(__file__).parent / "prompts"


@dataclass(frozen=True)
class Builtin:
    """One builtin judge: a Python function, or an LLM prompt."""

    name: str
    category: str
    params: Mapping[str, Any]
    """Each argument's type (`float`, `list[str]`, a `Literal` of choices, ...)."""
    required: frozenset[str] = frozenset()
    fn: Callable[..., tuple[bool, str]] | None = None
    """The Python builtin, called as `fn(record, **arguments)`; None for an LLM builtin."""

    @property
    def qualified(self) -> str:
        """`category/name`."""
        return f"{self.category}/{self.name}"

    @property
    def prompt(self) -> Path | None:
        """The Jinja prompt of an LLM builtin; None for a Python one."""
        return PROMPTS / f"{self.name}.md" if self.fn is None else None


def _python(category: str, fn: Callable[..., tuple[bool, str]]) -> Builtin:
    hints = typing.get_type_hints(fn)
    params = list(inspect.signature(fn).parameters.values())[1:]  # after `outputs`
    return Builtin(
        name=fn.__name__,
        category=category,
        params={p.name: hints.get(p.name, Any) for p in params},
        required=frozenset(p.name for p in params if p.default is inspect.Parameter.empty),
        fn=fn,
    )


def _table() -> dict[str, Builtin]:
    python = {
        "efficiency": (_efficiency.cost_budget, _efficiency.turn_budget),
        "process": (
            _process.consulted_docs,
            _process.tool_call_validation,
            _process.tool_called,
            _process.tool_not_called,
        ),
        "output": tuple(getattr(_output, name) for name in _output.__all__),
    }
    found = [_python(category, fn) for category, fns in python.items() for fn in fns]
    found += [
        Builtin(
            name="output_completeness",
            category="quality",
            params={"strictness": Literal["low", "medium", "high"], "criteria": list[str]},
        ),
        Builtin(name="no_harmful_content", category="safety", params={"categories": list[str]}),
    ]
    return {b.name: b for b in sorted(found, key=lambda b: b.qualified)}


BUILTINS: Mapping[str, Builtin] = _table()
"""Every builtin by its bare name (names are unique across categories)."""


def lookup(name: str) -> Builtin:
    """The builtin `name` (bare, or `category/name`).

    Raises:
        LookupError: no such builtin, or the wrong category; the message lists every
            `category/name`.
    """
    category, _, bare = name.rpartition("/")
    found = BUILTINS.get(bare)
    available = ", ".join(b.qualified for b in BUILTINS.values())
    if found is not None and category and category != found.category:
        raise LookupError(
            f"unknown builtin {name!r}: {bare!r} is in category {found.category!r}, not "
            f"{category!r}. Available: {available}."
        )
    if found is None:
        hint = did_you_mean(name, [*BUILTINS, *(b.qualified for b in BUILTINS.values())])
        raise LookupError(f"unknown builtin {name!r}.{hint} Available: {available}.")
    return found


def argument_problems(builtin: Builtin, arguments: Mapping[str, Any]) -> list[str]:
    """What is wrong with `arguments` for `builtin`: unknown, missing or mistyped ones."""
    accepted = ", ".join(builtin.params) or "none"
    problems = []
    for key, value in arguments.items():
        if key not in builtin.params:
            hint = did_you_mean(str(key), builtin.params)
            problems.append(
                f"builtin {builtin.name!r} has no argument {key!r}.{hint} Accepted: {accepted}."
            )
        elif not _fits(value, builtin.params[key]):
            problems.append(
                f"builtin {builtin.name!r}: argument {key!r} must be "
                f"{_describe(builtin.params[key])} (got {value!r})."
            )
    for key in sorted(builtin.required - set(arguments)):
        problems.append(
            f"builtin {builtin.name!r} needs the argument {key!r} "
            f"({_describe(builtin.params[key])}); set it under arguments."
        )
    return problems


def _fits(value: Any, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin is Literal:
        return value in args
    if origin in (typing.Union, type(int | str)):
        return any(_fits(value, h) for h in args)
    if origin is list:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    if origin in (typing.Union, type(int | str)):
        return " or ".join(_describe(h) for h in args if h is not type(None))
    if origin is list:
        return f"a list of {_describe(args[0]).removeprefix('a ').removeprefix('an ')}s"
    names = {float: "a number", int: "an integer", bool: "true or false", str: "a string"}
    return names.get(hint, "any value")
