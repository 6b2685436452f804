"""The test harness: the trusted main file of a jailed program (see `_verdict`).

It runs *inside* the jail, beside the untrusted solution, on the standard library alone:
it reads `case.json`, executes `solution.py`, then either calls one function (`"call"`)
or runs the rewritten test code (`"asserts"`), and writes what it found on descriptor 3
as JSON lines. It never decides a verdict: values leave as plain data (a value of any
other type, a subclass included, is refused), and the grader compares them with
expected values that never entered the jail.
"""

import json as _json
import os as _os
import sys as _sys
from typing import Any

# taken before the solution runs, which may patch builtins and modules
_type, _str, _write, _dumps, _exec, _compile = type, str, _os.write, _json.dumps, exec, compile
_float_repr, _name = float.__repr__, type.__dict__["__name__"].__get__
_CONTAINERS = ((list, "l"), (tuple, "t"), (set, "s"), (frozenset, "z"))
_MAX_DEPTH, _MAX_ITEMS = 100, 1_000_000


class _NotPlain(Exception):
    pass


def _plain(value: Any, depth: int = 0, budget: list[int] | None = None) -> Any:
    """`value` as tagged JSON data; `_NotPlain` for anything but exact built-in types."""
    budget = budget if budget is not None else [_MAX_ITEMS]
    budget[0] -= 1
    if depth > _MAX_DEPTH or budget[0] < 0:
        raise _NotPlain("too deep or too large")
    kind = _type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return {"i": int.__repr__(value)}
    if kind is float:
        return {"f": _float_repr(value)}
    if kind is complex:
        return {"c": [_float_repr(value.real), _float_repr(value.imag)]}
    if kind is bytes:
        return {"b": bytes.hex(value)}
    for container, tag in _CONTAINERS:  # `is`, never `==` or a hash: a metaclass may rig those
        if kind is container:
            return {tag: [_plain(item, depth + 1, budget) for item in value]}
    if kind is dict:
        pairs = dict.items(value)
        return {
            "d": [[_plain(k, depth + 1, budget), _plain(v, depth + 1, budget)] for k, v in pairs]
        }
    raise _NotPlain(f"a {_name(kind)!s:.80}, not a plain value")


def _emit(record: dict[str, Any]) -> None:
    _write(3, (_dumps(record) + "\n").encode())


def _describe(exc: BaseException) -> str:
    try:
        text = _str(exc)[:300]
    except BaseException:  # an exception whose __str__ fails
        text = "?"
    return f"{_name(_type(exc))}: {text}"


def _check(k: int, thunks: tuple[Any, ...]) -> None:
    """One assertion's operands, evaluated here and compared by the grader."""
    leaves: list[Any] = []
    for thunk in thunks:
        try:
            leaves.append(["v", _plain(thunk())])
        except _NotPlain as exc:
            leaves.append(["x", _str(exc)])
        except BaseException as exc:  # SystemExit too: a failed operand
            leaves.append(["e", _describe(exc)])
    _emit({"k": k, "leaves": leaves})


def _main() -> None:
    _sys.set_int_max_str_digits(0)
    with open("case.json", encoding="utf-8") as f:
        case = _json.load(f)
    namespace: dict[str, Any] = {"__name__": case["module_name"], "__builtins__": __builtins__}
    try:
        with open("solution.py", "rb") as f:
            _exec(_compile(f.read(), "solution.py", "exec"), namespace)
    except BaseException as exc:  # the solution's error or early exit
        _emit({"crash": f"the solution failed before its tests: {_describe(exc)}"})
        return
    if case["mode"] == "call":
        _call(namespace, case["function"], case["args"])
        return
    namespace["__rk_check"] = _check
    try:
        _exec(_compile(case["tests"], "tests.py", "exec"), namespace)
    except BaseException as exc:
        _emit({"crash": f"the tests stopped: {_describe(exc)}"})
        return
    _emit({"done": True})


def _call(namespace: dict[str, Any], name: str, args: list[Any]) -> None:
    function = namespace.get(name)
    if function is None and "Solution" in namespace:
        try:
            function = getattr(namespace["Solution"](), name, None)
        except BaseException as exc:
            _emit({"crash": f"Solution() failed: {_describe(exc)}"})
            return
    if not callable(function):
        _emit({"crash": f"the code defines no function {name!r}"})
        return
    try:
        _emit({"value": _plain(function(*args))})
    except _NotPlain as exc:
        _emit({"crash": f"the function returned {exc}"})
    except BaseException as exc:
        _emit({"crash": f"the call failed: {_describe(exc)}"})


if __name__ == "__main__":
    _main()
