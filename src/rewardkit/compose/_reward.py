"""The eval.yaml `reward:` block: checked once at load, composed once per case.

Three ways to a reward in [0, 1]: single-judge mode (`judge:`), the weighted mean
(`formula: weighted`), an expression (any other `formula:`), and the default composition
when there is no block. docs/design/formula.md has the rules and the reasons.
Pure: no I/O, no asyncio.
"""

from __future__ import annotations

import keyword
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from rewardkit._errors import ConfigError, did_you_mean, raise_all
from rewardkit.compose._expr import Expression, compile_expression

__all__ = [
    "DEFAULT_RANGE", "JudgeInfo", "JudgeValue", "RewardBlock", "ScoreRange",
    "compose_reward", "normalize_value", "parse_reward_block", "parse_score_range",
]  # fmt: skip

ScoreRange = tuple[float, float]
DEFAULT_RANGE: ScoreRange = (1.0, 5.0)
_KEYS = ("judge", "normalize", "formula", "weights", "score_range", "raw", "gate")
_RANGE_HELP = "must be two increasing finite numbers, e.g. [1, 5]"
_Error = Callable[[str, str], None]  # error(key, message) collects one problem
_Namer = Callable[[str, object], "str | None"]  # judge_name(key, name) checks a judge name
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
            compiled = compile_expression(self.formula, key="reward.formula")
            object.__setattr__(self, "expression", compiled)

    @property
    def mode(self) -> Literal["judge", "weighted", "expression"]:
        """Which of the three compositions the block asks for."""
        if self.judge is not None:
            return "judge"
        return "weighted" if self.expression is None else "expression"


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
        if isinstance(name, str) and name in judges:
            return name
        known = ", ".join(repr(n) for n in judges) or "none"
        hint = did_you_mean(name, judges) if isinstance(name, str) else ""
        error(key, f"{name!r} is not a declared judge.{hint} Declared judges: {known}")
        return None

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


def compose_reward(
    values: Mapping[str, JudgeValue],
    block: RewardBlock | None,
    judges: Mapping[str, JudgeInfo],
) -> float:
    """Collapse one case's judge values into a reward in [0, 1]; never raises.

    `block=None` is the default composition. A run-time failure (a judge the expression
    names has no value, a division by zero, a non-finite result) warns (`RuntimeWarning`)
    and scores 0.0 for this case.

    >>> judges = {"ok": JudgeInfo(name="ok"), "q": JudgeInfo(name="q", score_range=(0, 10))}
    >>> compose_reward({"ok": JudgeValue(value=True), "q": JudgeValue(value=8)}, None, judges)
    0.8
    """
    try:
        if block is None:
            result: object = _compose_default(values, judges)
        elif block.judge is None and block.expression is not None:
            result = _compose_expression(values, block, block.expression, judges)
        else:
            result = _compose_block(values, block, judges)
        if type(result) is float and 0.0 < result <= 1.0:  # the common case, fast
            return result
        return _finish(result)
    except _ZeroReward as exc:
        message = str(exc)
    except Exception as exc:
        message = f"reward could not be composed ({type(exc).__name__}: {exc}); scoring 0.0"
    warnings.warn(message, RuntimeWarning, stacklevel=2)
    return 0.0


class _ZeroReward(Exception):
    """This case scores 0.0; the message says why (it becomes the warning)."""


def _compose_block(values: _Values, block: RewardBlock, judges: _Judges) -> float:
    """Single-judge mode and `formula: weighted`."""
    if block.gate and any(o.value is False and not o.errored for o in values.values()):
        return 0.0
    if block.judge is not None:
        return _value_of(block.judge, values, block, judges) or 0.0
    total = weight_sum = 0.0
    for name, weight in block.weights.items():
        normalized = _value_of(name, values, block, judges)
        if normalized is not None:  # a judge with no value leaves both sums
            total += weight * normalized
            weight_sum += weight
    return total / weight_sum if weight_sum > 0 else 0.0


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


def _compose_default(values: _Values, judges: _Judges) -> float:
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
    bare = formula.strip()
    plain_name = bare.isidentifier() and not keyword.iskeyword(bare) and bare[0] != "_"
    if plain_name and bare not in judges:
        hint = did_you_mean(bare, ["weighted", *judges])
        message = f"{formula!r} is neither 'weighted' nor a declared judge.{hint}"
        errors.append(ConfigError(message, path=where, key="reward.formula"))
        return formula, None
    try:
        return formula, compile_expression(formula, names=judges, key="reward.formula", path=where)
    except ConfigError as exc:
        errors.append(exc)
        return formula, None


def _warn_at_load(block: RewardBlock, judges: _Judges) -> None:
    """The seed's two load-time warnings, with their exact silence conditions."""

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
