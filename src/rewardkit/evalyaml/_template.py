"""Judge prompts as Jinja templates, rendered in a sandbox over a case record.

The variables are the harness's (`skills/eval-run/scripts/score.py`): `outputs` (the record;
printed bare, its files as markdown), `conversation`, `reasoning`, `tool_trace`, `evidence`,
`inputs` (printed as `**key**: value`; `input` is an alias), `annotations` (printed as a
bullet list), `annotations_text` and `arguments`. `outputs`, `inputs` and `annotations` are
mappings (`inputs.question`) that print as the harness's text however they are printed (bare,
`| string`, `~`, `%`); so does `outputs.inputs`, which the harness's record holds as that
text. Any other dict or list prints as Python's `str()`; `tojson` is
`json.dumps(value, indent=2)`.

What the agent produced is untrusted: each value from it prints inside `<submission>` …
`</submission>` (a closing tag inside is escaped), however it was reached (a subscript, an
attribute, a loop, a filter, a method, `+` or `~` keep the mark). The author's values
(`arguments`, `inputs`, `annotations`, numbers) print as they are.

A template that does not parse is a `TemplateError` at load (`check`). At render, a variable
the case does not define is a `TemplateError` naming it, never empty text (`x | default(..)`,
`x is defined` and `{% if x %}` still work); so is what the sandbox refuses (`_` attributes,
unsafe calls). The output stops at `limit` characters, so no template or case costs more.

Jinja loads only when a template is checked or rendered.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from rewardkit.evalyaml import _case_text
from rewardkit.evalyaml._template_values import (
    FINALIZE_LIMIT,
    AgentStr,
    CaseDict,
    fence,
    taint,
    untrusted,
)

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = ["VARIABLES", "WORK_VARIABLES", "TemplateError", "check", "render", "uses"]

VARIABLES = (
    "annotations",
    "annotations_text",
    "arguments",
    "conversation",
    "evidence",
    "input",
    "inputs",
    "outputs",
    "reasoning",
    "tool_trace",
)
WORK_VARIABLES = frozenset({"outputs", "conversation", "reasoning", "tool_trace", "evidence"})
"""The variables that show the agent's work (when a prompt uses none, the work is appended)."""


class TemplateError(ValueError):
    """A judge template does not parse, or cannot be rendered for a case."""


def check(text: str, source: str) -> None:
    """Parse `text` (and cache it for `render`).

    Raises:
        TemplateError: `source line N: what is wrong`.
    """
    _compiled(text, source)


def uses(text: str, source: str) -> frozenset[str]:
    """The variables `text` uses.

    Raises:
        TemplateError: `text` does not parse.
    """
    return _compiled(text, source)[1]


def render(
    text: str, record: Mapping[str, Any], arguments: Mapping[str, Any], *, source: str, limit: int
) -> str:
    """`text` rendered over `record` and `arguments`, at most `limit` characters (a note
    ends a cut).

    Raises:
        TemplateError: the template does not parse, uses a variable the case does not
            define, or does something the sandbox refuses; the message names `source`.
    """
    template, names = _compiled(text, source)
    from jinja2.exceptions import SecurityError, UndefinedError

    chunks: list[str] = []
    size = 0
    try:
        for chunk in template.generate(_variables(record, arguments, names)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    except UndefinedError as exc:
        raise TemplateError(f"{source}: {exc}") from None
    except SecurityError as exc:
        raise TemplateError(f"{source}: the sandbox refused it: {exc}") from None
    except Exception as exc:
        raise TemplateError(f"{source}: {type(exc).__name__}: {exc}") from None
    rendered = "".join(chunks)
    if len(rendered) <= limit:
        return rendered
    kept = rendered[:limit]
    if kept.rfind("<submission>") > kept.rfind("</submission>"):  # cut inside the agent's text
        kept += "</submission>"  # so what follows is never read as part of it
    return f"{kept}\n[... cut: the rendered prompt is capped at {limit:,} characters]"


@functools.lru_cache(maxsize=64)
def _compiled(text: str, source: str) -> tuple[Template, frozenset[str]]:
    from jinja2 import TemplateSyntaxError, meta

    env = _environment()
    try:
        names = frozenset(meta.find_undeclared_variables(env.parse(text)))
        return env.from_string(text), names
    except TemplateSyntaxError as exc:
        raise TemplateError(f"{source} line {exc.lineno}: {exc.message}") from None


def _variables(
    record: Mapping[str, Any], arguments: Mapping[str, Any], names: frozenset[str]
) -> dict[str, Any]:
    """The template's variables; the derived texts only when the template uses them."""
    inputs = record.get("inputs")
    inputs_view = (
        CaseDict(inputs, "inputs", False, functools.partial(_case_text.inputs_text, inputs))
        if isinstance(inputs, Mapping)
        else str(inputs or "")
    )
    derived: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "conversation": _case_text.conversation,
        "reasoning": _case_text.reasoning,
        "tool_trace": _case_text.tool_trace,
        "evidence": _case_text.evidence,
    }
    annotations = record.get("annotations")
    variables: dict[str, Any] = {
        "outputs": CaseDict(record, "outputs", True, lambda: _case_text.files_text(record)),
        "inputs": inputs_view,
        "input": inputs_view,
        "annotations": CaseDict(
            annotations if isinstance(annotations, Mapping) else {},
            "annotations",
            False,
            lambda: _case_text.annotations_text(record),
        ),
        "arguments": CaseDict(arguments, "arguments", False),
    }
    if "annotations_text" in names:
        variables["annotations_text"] = _case_text.annotations_text(record)
    for name, derive in derived.items():
        if name in names:
            variables[name] = AgentStr(derive(record))
    return variables


# --- the environment ----------------------------------------------------------------------


@functools.cache
def _environment() -> Any:
    """The sandboxed environment (built once; Jinja is imported here)."""
    from jinja2 import StrictUndefined
    from jinja2.compiler import CodeGenerator, Frame
    from jinja2.nodes import Concat, Getitem, Slice
    from jinja2.sandbox import ImmutableSandboxedEnvironment
    from jinja2.utils import missing

    class Missing(StrictUndefined):
        """Fails with the variable's name when printed, iterated or compared; falsy."""

        __slots__ = ()

        def __bool__(self) -> bool:  # type: ignore[override]
            return False

        @property
        def _undefined_message(self) -> str:
            name, owner = self._undefined_name, self._undefined_obj
            if self._undefined_hint:
                return self._undefined_hint
            if owner is missing:
                return (
                    f"the template uses {name!r}, which is not a variable; the variables are "
                    f"{', '.join(VARIABLES)}"
                )
            path = getattr(owner, "_rk_path", None)
            if path is None:
                return f"the template uses {name!r} of a {type(owner).__name__}, which has none"
            keys = (
                ", ".join(map(str, list(dict.keys(owner))[:20])) if isinstance(owner, dict) else ""
            )
            has = f" (it has: {keys})" if keys else ""
            return (
                f"the template uses {path}.{name}, which this case does not define{has}; "
                f"use `| default(...)` or `is defined` for an optional value"
            )

    class Generator(CodeGenerator):
        """Sends `~` and slices through the environment, so their results keep the mark."""

        def visit_Getitem(self, node: Getitem, frame: Frame) -> None:
            if not isinstance(node.arg, Slice):
                super().visit_Getitem(node, frame)
                return
            self.write("environment.getitem(")
            self.visit(node.node, frame)
            self.write(", slice(")
            for part in (node.arg.start, node.arg.stop, node.arg.step):
                if part is None:
                    self.write("None")
                else:
                    self.visit(part, frame)
                self.write(", ")
            self.write("))")

        def visit_Concat(self, node: Concat, frame: Frame) -> None:
            self.write("environment.rk_concat((")
            for arg in node.nodes:
                self.visit(arg, frame)
                self.write(", ")
            self.write("))")

    class Env(ImmutableSandboxedEnvironment):
        code_generator_class = Generator
        intercepted_binops = frozenset({"+", "*", "%"})

        def getitem(self, obj: Any, argument: Any) -> Any:
            result = super().getitem(obj, argument)
            return taint(result) if untrusted(obj) else result

        def getattr(self, obj: Any, attribute: str) -> Any:
            result = super().getattr(obj, attribute)
            return taint(result) if untrusted(obj) else result

        def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            result = super().call(context, obj, *args, **kwargs)
            marked = untrusted(getattr(obj, "__self__", None))
            return taint(result) if marked or _any_untrusted(args, kwargs) else result

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            result = super().call_binop(context, operator, left, right)
            return taint(result) if untrusted(left) or untrusted(right) else result

        def rk_concat(self, parts: tuple[Any, ...]) -> str:
            text = "".join(_bounded_str(p, 1 << 22) for p in parts)
            return AgentStr(text) if any(map(untrusted, parts)) else text

    env = Env(undefined=Missing, finalize=_finalize, autoescape=False, keep_trailing_newline=True)
    env.filters["tojson"] = _tojson
    env.filters = {name: _marking(f) for name, f in env.filters.items()}
    return env


def _any_untrusted(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bool:
    return any(map(untrusted, args)) or any(map(untrusted, kwargs.values()))


def _marking(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (a filter) whose result is marked untrusted when an argument is."""

    @functools.wraps(fn)
    def marked(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        return taint(result) if _any_untrusted(args, kwargs) else result

    return marked


def _tojson(value: Any) -> str:
    return json.dumps(value, indent=2, default=str)


def _finalize(value: Any) -> str:
    text = _bounded_str(value, FINALIZE_LIMIT)
    return fence(text) if untrusted(value) else text


def _bounded_str(value: Any, limit: int) -> str:
    """How a value prints: a record view as its text, anything else as `bounded_str`."""
    shown = value._rk_str(limit) if isinstance(value, CaseDict) else None
    return _case_text.bounded_str(value, limit) if shown is None else shown
