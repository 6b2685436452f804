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
import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from rewardkit.evalyaml import _case_text

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
_TRUSTED_KEYS = frozenset({"annotations", "inputs", "case_id", "case_path", "case_dir"})
"""Keys of the record that are the author's (or rewardkit's), not the agent's."""
_CLOSING_TAG = re.compile(r"<\s*/\s*submission", re.IGNORECASE)
_SHOWN_AS_TEXT: dict[str, Callable[[Any], str]] = {"outputs.inputs": _case_text.inputs_text}
"""Mappings of the record the harness's record holds as text, by their path."""


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
        _Dict(inputs, "inputs", False, functools.partial(_case_text.inputs_text, inputs))
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
        "outputs": _Dict(record, "outputs", True, lambda: _case_text.files_text(record)),
        "inputs": inputs_view,
        "input": inputs_view,
        "annotations": _Dict(
            annotations if isinstance(annotations, Mapping) else {},
            "annotations",
            False,
            lambda: _case_text.annotations_text(record),
        ),
        "arguments": _Dict(arguments, "arguments", False),
    }
    if "annotations_text" in names:
        variables["annotations_text"] = _case_text.annotations_text(record)
    for name, derive in derived.items():
        if name in names:
            variables[name] = _Str(derive(record))
    return variables


# --- values as a template sees them: each knows its path (for errors) and its trust ------


class _Str(str):
    """A string from the agent's side."""

    __slots__ = ()


class _Dict(dict[Any, Any]):
    """A mapping of the case: its values are wrapped as they are read; one with a `text`
    prints as that text (worked out once)."""

    def __init__(
        self,
        data: Mapping[Any, Any],
        path: str,
        untrusted: bool,
        text: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(data)
        self._rk_path, self._rk_untrusted, self._rk_text = path, untrusted, text
        self._rk_shown: str | None = None

    def _rk_child(self, key: Any) -> tuple[str, bool]:
        trusted = self._rk_path == "outputs" and (
            key in _TRUSTED_KEYS or (isinstance(key, str) and key.startswith("annotation_"))
        )
        return f"{self._rk_path}.{key}", self._rk_untrusted and not trusted

    def _rk_str(self, limit: int) -> str | None:
        """The text this mapping prints as, at most `limit` characters (None: it has none)."""
        if self._rk_text is None:
            return None
        if self._rk_shown is None:
            self._rk_shown = self._rk_text()
        return self._rk_shown[:limit]

    def __str__(self) -> str:
        shown = self._rk_str(_FINALIZE_LIMIT)
        return _case_text.bounded_str(self, _FINALIZE_LIMIT) if shown is None else shown

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        path, untrusted = self._rk_child(key)
        show = _SHOWN_AS_TEXT.get(path)
        if show is not None and isinstance(value, Mapping):
            return _Dict(value, path, untrusted, functools.partial(show, value))
        return _wrap(value, path, untrusted)

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __iter__(self) -> Iterator[Any]:
        return (_wrap(k, self._rk_path, self._rk_untrusted) for k in super().__iter__())

    def keys(self) -> Any:
        return _List(list(super().keys()), self._rk_path, self._rk_untrusted)

    def values(self) -> Any:
        return _List([self[k] for k in dict.__iter__(self)], self._rk_path, self._rk_untrusted)

    def items(self) -> Any:
        keys = dict.__iter__(self)
        pairs = [(_wrap(k, self._rk_path, self._rk_untrusted), self[k]) for k in keys]
        return _List(pairs, self._rk_path, self._rk_untrusted)


class _List(list[Any]):
    """A list (or tuple) of the case: its items are wrapped as they are read."""

    def __init__(self, data: Any, path: str, untrusted: bool) -> None:
        super().__init__(data)
        self._rk_path, self._rk_untrusted = path, untrusted

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        if isinstance(index, slice):
            return _List(item, self._rk_path, self._rk_untrusted)
        return _wrap(item, f"{self._rk_path}[{index}]", self._rk_untrusted)

    def __iter__(self) -> Iterator[Any]:
        for i, item in enumerate(super().__iter__()):
            yield _wrap(item, f"{self._rk_path}[{i}]", self._rk_untrusted)


class _Iter:
    """An iterator over values from the agent's side (e.g. what `map` returns)."""

    def __init__(self, items: Iterator[Any]) -> None:
        self._rk_items = items

    def __iter__(self) -> _Iter:
        return self

    def __next__(self) -> Any:
        return _wrap(next(self._rk_items), "(an item)", True)


def _wrap(value: Any, path: str, untrusted: bool) -> Any:
    if isinstance(value, _Str | _Dict | _List | _Iter):
        return value
    if isinstance(value, Mapping):
        return _Dict(value, path, untrusted)
    if isinstance(value, list | tuple):
        return _List(value, path, untrusted)
    if not untrusted:
        return value
    if isinstance(value, str):
        return _Str(value)
    if isinstance(value, Iterator):
        return _Iter(value)
    return value


def _untrusted(value: Any, depth: int = 1) -> bool:
    """Whether `value` came from the agent's side (a plain list or tuple: whether an item
    did, one level down, e.g. `[conversation] | join`)."""
    if isinstance(value, _Str | _Iter):
        return True
    if isinstance(value, _Dict | _List):
        return value._rk_untrusted
    if depth and isinstance(value, list | tuple):
        return any(_untrusted(v, 0) for v in value[:1000])
    return False


def _taint(value: Any) -> Any:
    return _wrap(value, "(a value from the case)", True)


def _fence(text: str) -> str:
    return "<submission>" + _CLOSING_TAG.sub(r"<\\/submission", text) + "</submission>"


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
            return _taint(result) if _untrusted(obj) else result

        def getattr(self, obj: Any, attribute: str) -> Any:
            result = super().getattr(obj, attribute)
            return _taint(result) if _untrusted(obj) else result

        def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
            result = super().call(context, obj, *args, **kwargs)
            marked = _untrusted(getattr(obj, "__self__", None))
            return _taint(result) if marked or _any_untrusted(args, kwargs) else result

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            result = super().call_binop(context, operator, left, right)
            return _taint(result) if _untrusted(left) or _untrusted(right) else result

        def rk_concat(self, parts: tuple[Any, ...]) -> str:
            text = "".join(_bounded_str(p, 1 << 22) for p in parts)
            return _Str(text) if any(map(_untrusted, parts)) else text

    env = Env(undefined=Missing, finalize=_finalize, autoescape=False, keep_trailing_newline=True)
    env.filters["tojson"] = _tojson
    env.filters = {name: _marking(f) for name, f in env.filters.items()}
    return env


def _any_untrusted(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bool:
    return any(map(_untrusted, args)) or any(map(_untrusted, kwargs.values()))


def _marking(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (a filter) whose result is marked untrusted when an argument is."""

    @functools.wraps(fn)
    def marked(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        return _taint(result) if _any_untrusted(args, kwargs) else result

    return marked


def _tojson(value: Any) -> str:
    return json.dumps(value, indent=2, default=str)


_FINALIZE_LIMIT = 1 << 22
"""The most characters one `{{ ... }}` prints (4 Mi), whatever the value."""


def _finalize(value: Any) -> str:
    text = _bounded_str(value, _FINALIZE_LIMIT)
    return _fence(text) if _untrusted(value) else text


def _bounded_str(value: Any, limit: int) -> str:
    """How a value prints: a record view as its text, anything else as `bounded_str`."""
    shown = value._rk_str(limit) if isinstance(value, _Dict) else None
    return _case_text.bounded_str(value, limit) if shown is None else shown
