"""Load-time half of the `reward:` block: validate the mapping, compile, warn.

Every problem is collected and raised together; the two documented load-time warnings are
emitted here, with their exact silence conditions. Pure: no I/O.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from rewardkit.compose._reward import (
    DEFAULT_RANGE,
    JudgeInfo,
    RewardBlock,
    ScoreRange,
    _is_number,
)
from rewardkit.core._errors import ConfigError, did_you_mean, raise_all

if TYPE_CHECKING:
    from rewardkit.compose._expr import Expression

__all__ = ["parse_reward_block", "parse_score_range"]

_KEYS = ("judge", "normalize", "formula", "weights", "score_range", "raw", "gate")
_RANGE_HELP = "must be two increasing finite numbers, e.g. [1, 5]"
_Error = Callable[[str, str], None]  # error(key, message) collects one problem
_Namer = Callable[[str, object], "str | None"]  # judge_name(key, name) checks a judge name
_Judges = Mapping[str, JudgeInfo]


def parse_score_range(value: object, where: str, *, path: str | None = None) -> ScoreRange:
    """Return `value` as a `(low, high)` pair of floats.

    Args:
        value: what the config says, e.g. `[1, 5]`.
        where: the key quoted in the message, e.g. `"judges.quality.score_range"`.
        path: the file quoted in the message.

    Raises:
        ConfigError: unless `value` is two finite numbers with `low < high`.

    >>> parse_score_range([1, 5], "score_range")
    (1.0, 5.0)
    """
    if isinstance(value, list | tuple) and len(value) == 2 and all(map(_is_number, value)):
        low, high = float(value[0]), float(value[1])
        if low < high and math.isfinite(high - low):
            return low, high
    raise ConfigError(f"{_RANGE_HELP} (got {value!r})", path=path, key=where)


def parse_reward_block(
    data: object, judges: Mapping[str, JudgeInfo], *, where: str = "eval.yaml"
) -> RewardBlock:
    """Validate the `reward:` mapping of `where` against the declared `judges`.

    Expression formulas are compiled here, so a typo or an unsafe construct fails at load.
    Configurations that load but no longer mean what they read like warn (`UserWarning`).

    Raises:
        ConfigError: every problem at once (a `DiscoveryError` listing them when several).

    >>> judges = {"quality": JudgeInfo(name="quality", score_range=(1, 5))}
    >>> parse_reward_block({"formula": "quality"}, judges).mode
    'expression'
    """
    if not isinstance(data, Mapping):
        got = type(data).__name__
        message = f"must be a mapping with 'judge' or 'formula' keys (got {got})"
        raise ConfigError(message, path=where, key="reward")
    errors: list[ConfigError] = []

    def error(key: str, message: str) -> None:
        errors.append(ConfigError(message, path=where, key=f"reward.{key}"))

    def judge_name(key: str, name: object) -> str | None:
        """`reward.judge` must name a judge (as documented); in `weights` and `raw` an undeclared
        name only warns: like the harness, it then has no value on any case."""
        if isinstance(name, str) and name in judges:
            return name
        known = ", ".join(repr(n) for n in judges) or "none"
        hint = did_you_mean(name, judges) if isinstance(name, str) else ""
        message = f"{name!r} is not a declared judge.{hint} Declared judges: {known}"
        if key == "judge" or not isinstance(name, str):
            error(key, message)
            return None
        warnings.warn(f"{where}: reward.{key}: {message}", stacklevel=4)
        return name

    for key in data:
        if key not in _KEYS:
            hint = did_you_mean(str(key), _KEYS)
            error(str(key), f"unknown key.{hint} Valid keys: {', '.join(_KEYS)}")
    single = "judge" in data
    judge = judge_name("judge", data["judge"]) if single else None
    mixed = [k for k in ("formula", "weights", "raw") if k in data]
    if single and mixed:
        mixed_keys = ", ".join(repr(k) for k in mixed)
        fix = "use 'judge' alone (single-judge mode) or drop it (formula mode)"
        error("judge", f"cannot be combined with {mixed_keys}; {fix}")
    normalize = _flag(data, "normalize", False, error)
    gate = _flag(data, "gate", not single, error)
    score_range = None
    if "score_range" in data:
        try:
            score_range = parse_score_range(data["score_range"], "reward.score_range", path=where)
        except ConfigError as exc:
            errors.append(exc)
    weights = _weights(data.get("weights", {}), judge_name, error)
    raw = data.get("raw", [])
    raw_names = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else None
    if raw_names is None:
        error("raw", f"must be a judge name or a list of them (got {raw!r})")
    raw_set = frozenset(filter(None, (judge_name("raw", n) for n in raw_names or ())))
    formula, expression = _formula(data.get("formula", "weighted"), judges, where, errors)
    raise_all(errors)
    block = RewardBlock(
        judge=judge,
        normalize=normalize,
        formula=formula,
        expression=expression,
        weights=weights,
        raw=raw_set,
        gate=gate,
        score_range=score_range,
    )
    _warn_at_load(block, judges)
    return block


def _flag(data: Mapping[str, object], key: str, default: bool, error: _Error) -> bool:
    value = data.get(key, default)
    if isinstance(value, bool):
        return value
    error(key, f"must be true or false (got {value!r})")
    return default


def _weights(data: object, judge_name: _Namer, error: _Error) -> dict[str, float]:
    if not isinstance(data, Mapping):
        error("weights", f"must map judge names to numbers, e.g. {{quality: 0.7}} (got {data!r})")
        return {}
    weights: dict[str, float] = {}
    for name, weight in data.items():
        key = f"weights.{name}"
        if not _is_number(weight) or weight < 0:
            error(key, f"must be a finite number >= 0, e.g. 0.5 (got {weight!r})")
        elif judge_name(key, name) is not None:
            weights[name] = float(weight)
    return weights


def _formula(
    formula: object, judges: _Judges, where: str, errors: list[ConfigError]
) -> tuple[str, Expression | None]:
    if not isinstance(formula, str):
        message = f"must be 'weighted' or an expression over judge names (got {formula!r})"
        errors.append(ConfigError(message, path=where, key="reward.formula"))
        return "weighted", None
    if formula == "weighted":
        return formula, None
    try:
        from rewardkit.compose._expr import compile_expression  # only for a formula

        expression = compile_expression(formula, key="reward.formula", path=where)
    except ConfigError as exc:
        errors.append(exc)
        return formula, None
    for name in sorted(expression.names - set(judges)):
        # As documented: an undefined judge name is a run-time failure (the case scores 0.0).
        hint = did_you_mean(name, ["weighted", *judges])
        warnings.warn(
            f"{where}: reward.formula names {name!r}, which is not a declared judge; a case "
            f"whose formula needs it scores 0.0.{hint}",
            stacklevel=4,
        )
    return formula, expression


def _warn_at_load(block: RewardBlock, judges: _Judges) -> None:
    """The two documented load-time warnings, with their exact silence conditions."""

    def own(name: str) -> ScoreRange | None:
        info = judges.get(name)
        return info.score_range if info is not None else None

    if block.judge is not None and not block.normalize:
        scale = own(block.judge)
        if scale is not None and scale != (0.0, 1.0):
            warnings.warn(_clamped_message(block.judge, scale), UserWarning, stacklevel=3)
        return  # the clamped single judge consults no range, so reward.score_range is moot
    if block.score_range is None:
        return
    if block.judge is not None:
        composed = [block.judge]
    elif block.expression is not None:
        composed = [n for n in judges if n in block.expression.names]
    else:
        composed = list(block.weights)
    composed = [n for n in composed if n not in block.raw]
    shadowed = [n for n in composed if own(n) not in (None, block.score_range)]
    if not shadowed:
        return
    names = ", ".join(f"{n!r} {_fmt(own(n))}" for n in shadowed)
    still = [repr(n) for n in composed if own(n) is None]
    tail = (
        f"It still applies to {', '.join(still)}; drop it once every composed judge declares"
        " a 'score_range'."
        if still
        else "No composed judge uses it any more; drop it."
    )
    message = (
        f"reward.score_range {_fmt(block.score_range)} is deprecated and no longer normalizes"
        f" {names}: a judge's own 'score_range' wins. {tail}"
    )
    warnings.warn(message, UserWarning, stacklevel=3)


def _clamped_message(name: str, scale: ScoreRange) -> str:
    low, high = scale
    if high > 1:
        misread = "every score at or above 1 becomes the maximum reward"
    elif high < 1:
        misread = f"the reward can never exceed {high}"
    elif low < 0:
        misread = "every score at or below 0 becomes the minimum reward"
    else:
        misread = f"the reward can never fall below {low}"
    return (
        f"reward.judge {name!r} declares score_range {_fmt(scale)} but 'normalize' is not set,"
        f" so its value is clamped to [0, 1] — {misread}. Set 'normalize: true' to map it"
        f" from {_fmt(scale)}."
    )


def _fmt(scale: ScoreRange | None) -> str:
    low, high = scale or DEFAULT_RANGE
    return f"[{float(low)}, {float(high)}]"
