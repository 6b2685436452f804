"""The eval.yaml `reward:` block: its types, and composing it once per case.

Loading and validating the block is in `_reward_block.py`.

Three ways to a reward in [0, 1]: single-judge mode (`judge:`), the weighted mean
(`formula: weighted`), an expression (any other `formula:`), and the default composition
when there is no block. docs/design/formula.md has the rules and the reasons.
Pure: no I/O, no asyncio.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rewardkit.compose._expr import Expression

__all__ = [
    "DEFAULT_RANGE", "CompositionError", "CompositionWarning", "JudgeInfo", "JudgeValue",
    "RewardBlock", "ScoreRange", "compose_reward", "normalize_value",
]  # fmt: skip

ScoreRange = tuple[float, float]
DEFAULT_RANGE: ScoreRange = (1.0, 5.0)
_Values = Mapping[str, "JudgeValue"]
_Judges = Mapping[str, "JudgeInfo"]


@dataclass(frozen=True, kw_only=True, slots=True)
class JudgeInfo:
    """What composition needs to know about a declared judge.

    Attributes:
        name: the judge's name, as the formula and `weights` spell it.
        score_range: the scale its numeric values are mapped from, when it declares one.
    """

    name: str
    score_range: ScoreRange | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class JudgeValue:
    """One judge's result on one case.

    Attributes:
        value: `True`/`False`, a number, or `None` when it was skipped or abstained.
        errored: the judge failed; it then counts as having no value.
    """

    value: bool | float | None
    errored: bool = False


@dataclass(frozen=True, kw_only=True)
class RewardBlock:
    """The validated `reward:` mapping (build it with `parse_reward_block`).

    Attributes:
        judge: single-judge mode: this judge's value is the reward.
        normalize: single-judge mode: map the value from its range instead of clamping.
        formula: `"weighted"` or the source of an expression over judge names.
        expression: the compiled `formula` when it is an expression.
        weights: judge name → weight for `formula: weighted`.
        raw: judges clamped as-is instead of normalized.
        gate: any boolean judge that returned `False` zeroes the reward.
        score_range: the deprecated fallback range for judges that declare none.
    """

    judge: str | None = None
    normalize: bool = False
    formula: str = "weighted"
    expression: Expression | None = None
    weights: Mapping[str, float] = field(default_factory=dict)
    raw: frozenset[str] = frozenset()
    gate: bool
    score_range: ScoreRange | None = None

    def __post_init__(self) -> None:
        if self.judge is None and self.formula != "weighted" and self.expression is None:
            from rewardkit.compose._expr import compile_expression  # only for a formula

            compiled = compile_expression(self.formula, key="reward.formula")
            object.__setattr__(self, "expression", compiled)

    @property
    def mode(self) -> Literal["judge", "weighted", "expression"]:
        """Which of the three compositions the block asks for."""
        if self.judge is not None:
            return "judge"
        return "weighted" if self.expression is None else "expression"


def normalize_value(
    name: str,
    value: bool | float | None,
    *,
    block: RewardBlock | None,
    judges: Mapping[str, JudgeInfo],
) -> float | None:
    """Map one judge's value into [0, 1] by the first rule of the precedence that applies.

    Booleans become 1.0/0.0; `raw` judges and the single `reward.judge` without `normalize`
    are clamped as-is; otherwise the value is mapped from the judge's own `score_range`,
    else `reward.score_range`, else [1, 5], and clamped. `None` (and anything that is not a
    number, NaN included) is `None`: not a score.

    >>> normalize_value("q", 4, block=None, judges={})
    0.75
    """
    if value is None:
        return None
    return _normalized(name, value, block, judges)


class CompositionError(ValueError):
    """`compose_reward(..., strict=True)`: the reward cannot be composed on this case."""


def compose_reward(
    values: Mapping[str, JudgeValue],
    block: RewardBlock | None,
    judges: Mapping[str, JudgeInfo],
    *,
    strict: bool = False,
    on_failure: Callable[[str], object] | None = None,
) -> float:
    """Collapse one case's judge values into a reward in [0, 1].

    `block=None` is the default composition. A run-time failure (a judge the expression
    names has no value, a division by zero, a non-finite result) scores 0.0 for this case
    and warns (`CompositionWarning`), or passes the message to `on_failure` when given.
    With `strict` (RL scoring), it raises `CompositionError`
    instead, as it does when the composition has no judge value to compute from (the single
    judge, every weighted judge, or every judge of the default composition has none).

    >>> judges = {"ok": JudgeInfo(name="ok"), "q": JudgeInfo(name="q", score_range=(0, 10))}
    >>> compose_reward({"ok": JudgeValue(value=True), "q": JudgeValue(value=8)}, None, judges)
    0.8
    """
    try:
        if block is None:
            result: object = _compose_default(values, judges, strict)
        elif block.judge is None and block.expression is not None:
            result = _compose_expression(values, block, block.expression, judges)
        else:
            result = _compose_block(values, block, judges, strict)
        if type(result) is float and 0.0 < result <= 1.0:  # the common case, fast
            return result
        return _finish(result)
    except _ZeroReward as exc:
        if strict:
            raise CompositionError(str(exc).removesuffix("; scoring 0.0")) from None
        message = str(exc)
    except Exception as exc:
        if strict:
            raise CompositionError(f"{type(exc).__name__}: {exc}") from exc
        message = f"reward could not be composed ({type(exc).__name__}: {exc}); scoring 0.0"
    if on_failure is None:
        warnings.warn(message, CompositionWarning, stacklevel=2)
    else:
        on_failure(message)
    return 0.0


class CompositionWarning(RuntimeWarning):
    """A case's reward could not be composed and scores 0.0 (a formula that failed on it)."""


class _ZeroReward(Exception):
    """This case scores 0.0; the message says why (it becomes the warning)."""


def _compose_block(values: _Values, block: RewardBlock, judges: _Judges, strict: bool) -> float:
    """Single-judge mode and `formula: weighted`."""
    if block.gate and any(o.value is False and not o.errored for o in values.values()):
        return 0.0
    if block.judge is not None:
        value = _value_of(block.judge, values, block, judges)
        if value is None and strict:
            raise _ZeroReward(f"reward.judge {block.judge!r} has no value on this case")
        return value or 0.0
    total = weight_sum = 0.0
    for name, weight in block.weights.items():
        normalized = _value_of(name, values, block, judges)
        if normalized is not None:  # a judge with no value leaves both sums
            total += weight * normalized
            weight_sum += weight
    if weight_sum > 0:
        return total / weight_sum
    if strict:
        raise _ZeroReward("no judge in reward.weights has a value on this case")
    return 0.0


def _compose_expression(
    values: _Values, block: RewardBlock, expression: Expression, judges: _Judges
) -> object:
    env: dict[str, object] = {}  # one pass: gate, and bind every judge that has a value
    raw, fallback = block.raw, block.score_range or DEFAULT_RANGE
    for name, outcome in values.items():
        value = outcome.value
        if value is None or outcome.errored:
            continue
        if type(value) is float and name not in raw:
            # `_normalized` inlined for the common case (the benchmark's hot path)
            info = judges.get(name)
            low, high = (info.score_range if info is not None else None) or fallback
            number = (value - low) / (high - low)
            if number > 0.0:
                env[name] = 1.0 if number > 1.0 else number
            elif number <= 0.0:
                env[name] = 0.0
            continue  # NaN: no value
        if value is False and block.gate:
            return 0.0
        normalized = _normalized(name, value, block, judges)
        if normalized is not None:
            env[name] = normalized
    try:
        return expression.evaluate(env)
    except Exception as exc:
        why = f"{type(exc).__name__}: {exc}"
        raise _ZeroReward(f"reward.formula failed on this case ({why}); scoring 0.0") from exc


def _value_of(name: str, values: _Values, block: RewardBlock, judges: _Judges) -> float | None:
    outcome = values.get(name)
    if outcome is None or outcome.errored or outcome.value is None:
        return None
    return _normalized(name, outcome.value, block, judges)


def _compose_default(values: _Values, judges: _Judges, strict: bool) -> float:
    if strict and all(o.value is None for o in values.values()):
        raise _ZeroReward("no judge has a value on this case")
    total, count, errored = 0.0, 0, False
    for name, outcome in values.items():
        value = outcome.value
        if outcome.errored:
            errored = True
        elif value is False:
            return 0.0
        elif value is not None and value is not True:
            normalized = _normalized(name, value, None, judges)
            if normalized is None:  # NaN or not a number: no score, counted like an error
                errored = True
            else:
                total += normalized
                count += 1
    if count:
        return total / count
    return 0.0 if errored else 1.0


def _normalized(
    name: str, value: object, block: RewardBlock | None, judges: _Judges
) -> float | None:
    if type(value) is float:
        number = value
    elif isinstance(value, bool):
        return 1.0 if value else 0.0
    elif isinstance(value, int | float):
        number = _as_float(value)
    else:
        return None  # strings and the like count as missing
    info = judges.get(name)
    own = info.score_range if info is not None else None
    if block is None:
        low, high = own or DEFAULT_RANGE
    elif name in block.raw or (name == block.judge and not block.normalize):
        low, high = 0.0, 1.0
    else:
        low, high = own or block.score_range or DEFAULT_RANGE
    number = (number - low) / (high - low)
    if number > 0.0:
        return 1.0 if number > 1.0 else number
    return 0.0 if number <= 0.0 else None  # NaN is no score: it counts as missing


def _as_float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an int beyond the float range
        return math.inf if value > 0 else -math.inf


def _finish(result: object) -> float:
    """Clamp the composed value; refuse what is not a finite number."""
    if isinstance(result, bool):
        return float(result)
    if isinstance(result, int):
        return 0.0 if result <= 0 else 1.0
    if not isinstance(result, float):
        shown = repr(result)[:60]
        raise _ZeroReward(f"reward.formula returned {shown}, not a number; scoring 0.0")
    if not math.isfinite(result):
        raise _ZeroReward(f"the reward is {result!r}, not a finite number; scoring 0.0")
    return 0.0 if result <= 0.0 else 1.0 if result > 1.0 else float(result)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
