"""`@criterion`, the per-run `Registry`, and `Check`, the unit the engine runs.

A `@criterion` function becomes a `CriterionFactory`; calling the factory (as
`rk.<name>(...)`) registers a `Check` in the file being discovered. Registries belong to one
run: a user criterion that shadows a built-in does so only inside its own run. Outside any run
(a REPL, a notebook) an ambient registry is used; runs never read it.

Over 350 lines: the decorator, the per-run registry and `Check` are one lifecycle (registered
while a file is discovered, run per run); split, each would import the others.
"""

from __future__ import annotations

import functools
import inspect
import os
import types
import typing
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, overload

__all__ = [
    "Check",
    "CriterionFactory",
    "Registry",
    "active_registry",
    "builtin",
    "builtins",
    "criterion",
]

CriterionFn = Callable[..., Any]


def _check_arguments(
    name: str, fn: CriterionFn, arguments: Mapping[str, Any], weight: object
) -> None:
    """A weight that is no number, or a path argument that is no text, is a `TypeError`
    here, at the call in the criteria file (its line is in the load error), not a failure
    inside the criterion when it runs. Other arguments keep RewardKit's semantics (a number
    where a string is expected compares unequal, a verdict rather than an error)."""
    if isinstance(weight, bool) or not isinstance(weight, int | float):
        fix = f"write weight={_as_number(weight)}" if _as_number(weight) else "pass a number"
        raise TypeError(f"rk.{name}(weight={weight!r}): weight must be a number; {fix}")
    hints = _hints(fn)
    for parameter, value in arguments.items():
        hint = hints.get(parameter)
        if "path" in parameter and hint is not None and _accepts(hint, value) is False:
            raise TypeError(
                f"rk.{name}({parameter}={value!r}): {parameter} must be "
                f"{_type_name(hint)}, not {type(value).__name__}"
            )


def _as_number(value: object) -> str | None:
    try:
        return f"{float(value):g}" if isinstance(value, str) else None
    except ValueError:
        return None


@functools.cache
def _hints(fn: CriterionFn) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # an annotation that does not resolve: nothing is checked
        return {}


def _accepts(hint: Any, value: object) -> bool | None:
    """Whether `value` fits a plain annotation; None for one we do not check."""
    if hint in (Any, object):
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(_accepts(member, value) is not False for member in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is str:
        return isinstance(value, str | os.PathLike)
    if hint is float:
        return isinstance(value, int | float)
    if hint in (int, bool):
        return isinstance(value, int)
    return isinstance(value, hint) if isinstance(hint, type) else None


def _type_name(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_type_name(member) for member in typing.get_args(hint))
    return "None" if hint is type(None) else getattr(hint, "__name__", str(hint))


@dataclass(frozen=True, kw_only=True)
class Check:
    """One registered criterion: a function, its bound arguments, and how it counts.

    Calling a check (`check(workspace)`) runs it directly, as in Harbor RewardKit.
    """

    name: str
    description: str
    fn: CriterionFn = field(repr=False)
    arguments: Mapping[str, Any] = field(default_factory=dict)
    weight: float = 1.0
    isolated: bool = False
    timeout: float | None = None
    """Seconds this check may run before its process is killed; None: the run's default."""

    def evaluate(self, workspace: Path) -> Any:
        """Run the criterion against `workspace` and return what it returned."""
        return self.fn(workspace, **self.arguments)

    def __call__(self, workspace: Path) -> Any:
        return self.evaluate(workspace)

    @property
    def __name__(self) -> str:
        """The check's name, as on the function Harbor RewardKit returns (`file_exists:x`)."""
        return self.name


@dataclass(frozen=True, kw_only=True)
class CriterionFactory:
    """What `rk.<name>` returns: call it to register a `Check` in the current file."""

    fn: CriterionFn = field(repr=False)
    name: str
    description: str | None = None
    shared: bool = False
    timeout: float | None = None
    """The default deadline of its checks (`@criterion(timeout=...)`)."""

    @property
    def signature(self) -> inspect.Signature:
        """The factory's parameters: the criterion's, minus the leading workspace."""
        sig = inspect.signature(self.fn)
        return sig.replace(parameters=list(sig.parameters.values())[1:])

    def make_check(
        self,
        args: tuple[Any, ...] = (),
        kwargs: Mapping[str, Any] | None = None,
        *,
        weight: float = 1.0,
        name: str | None = None,
        isolated: bool = False,
    ) -> Check:
        """Bind arguments and build the check, without registering it.

        A `timeout` keyword sets the check's deadline, unless the criterion takes a `timeout`
        parameter itself (the command built-ins): then the deadline is that plus a grace.
        """
        sig = self.signature
        kwargs = dict(kwargs or {})
        timeout = self.timeout
        if "timeout" not in sig.parameters and "timeout" in kwargs:
            timeout = _positive_timeout(self.name, kwargs.pop("timeout"))
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as exc:
            params = ", ".join(
                p.name if p.default is p.empty else f"{p.name}={p.default!r}"
                for p in sig.parameters.values()
            )
            raise TypeError(f"rk.{self.name}({params}): {exc}") from None
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        _check_arguments(self.name, self.fn, arguments, weight)
        if "timeout" in sig.parameters:
            own = _positive_timeout(self.name, arguments["timeout"])
            timeout = own + TIMEOUT_GRACE
        auto_name = self.name
        if sig.parameters:
            first = next(iter(sig.parameters))
            auto_name = f"{self.name}:{str(arguments.get(first, ''))[:50]}"
        return Check(
            name=name or auto_name,
            description=self._describe(arguments),
            fn=self.fn,
            arguments=arguments,
            # ints become floats as in RewardKit's details; anything else is reported at load
            weight=float(weight) if type(weight) is int else weight,
            isolated=isolated,
            timeout=timeout,
        )

    def __call__(
        self,
        *args: Any,
        weight: float = 1.0,
        name: str | None = None,
        isolated: bool = False,
        **kwargs: Any,
    ) -> Check:
        check = self.make_check(args, kwargs, weight=weight, name=name, isolated=isolated)
        active_registry().register(check, key=self.name)
        return check

    def _describe(self, arguments: Mapping[str, Any]) -> str:
        if not self.description:
            return self.name
        try:
            return self.description.format(**arguments)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"@criterion {self.name!r}: description {self.description!r} cannot be "
                f"formatted ({type(exc).__name__}: {exc}); use only the criterion's parameter "
                f"names in braces"
            ) from None


TIMEOUT_GRACE = 5.0
"""Seconds a criterion that enforces its own `timeout` gets on top of it before it is killed."""


def _positive_timeout(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(f"rk.{name}: timeout must be a positive number of seconds (got {value!r})")
    return float(value)


class _Handle:
    """What `@criterion` leaves in the user's module: a reminder to call `rk.<name>`."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"<criterion {self._name}; call it as rk.{self._name}(...)>"

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise TypeError(
            f"Call criteria through the rewardkit module: rk.{self._name}(...) "
            f"instead of {self._name}(...)"
        )


@dataclass
class Registry:
    """The factories and registered checks of one run.

    Attributes:
        factories: name → factory: the built-ins, then what the run's files define.
        builtins: the built-in names, to warn when a file shadows one.
    """

    factories: dict[str, CriterionFactory] = field(default_factory=dict)
    builtins: frozenset[str] = frozenset()
    checks: list[Check] = field(default_factory=list)
    _auto: dict[str, Check] = field(default_factory=dict)
    _called: set[str] = field(default_factory=set)
    _defined: list[str] = field(default_factory=list)

    @classmethod
    def with_builtins(cls) -> Registry:
        """A fresh registry holding only the built-in criteria."""
        table = builtins()
        return cls(factories=dict(table), builtins=frozenset(table))

    def define(self, factory: CriterionFactory) -> None:
        """Add a user factory; a zero-parameter, non-shared one registers itself once."""
        if factory.name in self.builtins:
            _warn_at(
                factory,
                f"Criterion {factory.name!r} is already defined in rewardkit. Your definition "
                f"overrides the built-in criterion in this run only.",
            )
        self.factories[factory.name] = factory
        self._defined.append(factory.name)
        if not factory.shared and not factory.signature.parameters:
            check = factory.make_check()
            self.checks.append(check)
            self._auto[factory.name] = check

    def register(self, check: Check, *, key: str) -> None:
        """Register an explicit call; the first one replaces a zero-parameter auto-registration."""
        auto = self._auto.pop(key, None)
        if auto is not None:
            self.checks.remove(auto)
        self._called.add(key)
        self.checks.append(check)

    @contextmanager
    def collecting(self) -> Iterator[list[Check]]:
        """Make this registry active and collect the checks one file registers."""
        self.checks, self._auto, self._called, self._defined = [], {}, set(), []
        token = _ACTIVE.set(self)
        try:
            yield self.checks
        finally:
            _ACTIVE.reset(token)
        for name in self._defined:
            factory = self.factories[name]
            if name not in self._called and not factory.shared and factory.signature.parameters:
                _warn_at(
                    factory,
                    f"Criterion {name!r} was defined with @criterion but never called. "
                    f"Call it explicitly, e.g. rk.{name}(...), or mark it "
                    f"@criterion(shared=True) if it's meant for use from other files.",
                )


def _warn_at(factory: CriterionFactory, message: str) -> None:
    """Warn with the location of the user's criterion function, not of rewardkit's code."""
    code = getattr(factory.fn, "__code__", None)
    filename = code.co_filename if code else "<unknown>"
    lineno = code.co_firstlineno if code else 0
    warnings.warn_explicit(message, UserWarning, filename, lineno)


_ACTIVE: ContextVar[Registry | None] = ContextVar("rewardkit_registry", default=None)
_ambient: list[Registry] = []  # lazily created; used only outside runs


def active_registry() -> Registry:
    """The registry of the run being discovered, or the ambient one outside any run."""
    registry = _ACTIVE.get()
    if registry is not None:
        return registry
    if not _ambient:
        _ambient.append(Registry.with_builtins())
    return _ambient[0]


@overload
def criterion(fn: CriterionFn, /) -> Any: ...
@overload
def criterion(
    *, description: str | None = None, shared: bool = False, timeout: float | None = None
) -> Callable[[CriterionFn], Any]: ...
def criterion(
    fn: CriterionFn | None = None,
    /,
    *,
    description: str | None = None,
    shared: bool = False,
    timeout: float | None = None,
) -> Any:
    """Declare a criterion: `fn(workspace, *params) -> bool | float`.

    The first parameter always receives the workspace `Path`; the others become factory
    parameters, passed when the criterion is called as `rk.<name>(...)` together with
    `weight`, `name` and `isolated`. A criterion without factory parameters registers itself
    once (unless `shared=True`). `description` is a `str.format` template over the parameters.
    `timeout` is the seconds its checks may run before their process is killed (default: the
    run's `--criterion-timeout`); `rk.<name>(..., timeout=...)` overrides it per call.

    >>> @criterion(description="output has at least {n} lines")
    ... def has_n_lines(workspace, n: int) -> bool:
    ...     return len((workspace / "out.txt").read_text().splitlines()) >= n
    """

    def wrap(fn: CriterionFn) -> _Handle:
        factory = _make_factory(fn, description, shared)
        if timeout is not None:
            factory = replace(factory, timeout=_positive_timeout(factory.name, timeout))
        active_registry().define(factory)
        return _Handle(factory.name)

    return wrap(fn) if fn is not None else wrap


def _make_factory(fn: CriterionFn, description: str | None, shared: bool) -> CriterionFactory:
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        raise TypeError(
            f"@criterion {fn.__name__!r} must take the workspace as its first parameter, "
            f"e.g. def {fn.__name__}(workspace: Path) -> bool"
        )
    return CriterionFactory(
        fn=fn, name=getattr(fn, "__name__", "criterion"), description=description, shared=shared
    )


def builtin(description: str) -> Callable[[CriterionFn], CriterionFactory]:
    """Declare a built-in criterion (module-level, registered in no run)."""

    def wrap(fn: CriterionFn) -> CriterionFactory:
        return _make_factory(fn, description, shared=True)

    return wrap


_FAMILIES = ("files", "commands", "data", "http", "images", "trajectory")


@functools.cache
def builtins() -> MappingProxyType[str, CriterionFactory]:
    """The built-in criteria by name (read-only), from their family modules."""
    from importlib import import_module

    table: dict[str, CriterionFactory] = {}
    for family in _FAMILIES:
        module = import_module(f"rewardkit.criteria.{family}")
        for name in module.__all__:
            table[name] = getattr(module, name)
    return MappingProxyType(table)
