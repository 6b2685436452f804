"""RL-signal diagnostics: is there anything for a policy-gradient step to learn from?

GRPO-style training learns from the differences between the samples of one group (one
prompt). A criterion that gives every sample of a group the same value (zero variance), or
nearly every sample its minimum or maximum (saturation), gives no signal; a reward that
follows completion length invites length gaming; an LLM judge that disagrees with a
programmatic check on the same samples deserves a look. `diagnose` measures each, for a
results file or a trainer's logging hook (`Diagnostics.as_metrics()`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from rewardkit.report._load import mapping, number
from rewardkit.report._run import Case, Run
from rewardkit.report._stats import pearson

__all__ = ["CriterionSignal", "Diagnostics", "diagnose"]

MAX_CORRELATED = 50
"""Criteria correlated pairwise at most: the reward, then the most frequent ones."""

ZERO_VARIANCE_WARN = 0.25
"""Warn when at least this share of a criterion's groups has zero variance."""
SATURATION_WARN = 0.95
"""Warn when at least this share of a criterion's values sits at its minimum or maximum."""
LENGTH_WARN = 0.5
"""Warn when reward and completion length correlate at least this much (either sign)."""
DISAGREE_WARN = 0.2
"""Warn when a judge and a check disagree (pass vs fail at 0.5) on at least this share."""
REWARD = "reward"

Kind = Literal["judge", "check"]
_Row = tuple[str | None, int | None, dict[str, float]]


@dataclass(frozen=True, kw_only=True)
class CriterionSignal:
    """How much signal one criterion (or the reward) carries."""

    name: str
    samples: int
    """Samples with a value."""
    groups: int
    """Groups with at least two values (the ones that can have variance)."""
    zero_variance: float | None
    """The share of those groups whose values are all equal; `None` without such groups."""
    at_min: float
    at_max: float
    """Shares of values at the bottom / top of the scale ([0, 1], or the observed range for
    values outside it)."""

    @property
    def saturated(self) -> bool:
        """True when at least `SATURATION_WARN` of the values sit at one end."""
        return max(self.at_min, self.at_max) >= SATURATION_WARN


@dataclass(frozen=True, kw_only=True)
class Diagnostics:
    """What `diagnose` found; `warnings` says it in sentences."""

    samples: int
    groups: int
    criteria: tuple[CriterionSignal, ...]
    correlations: dict[tuple[str, str], float | None]
    """Pearson's r between every two criteria (over samples where both have a value)."""
    length_correlation: float | None
    """Reward vs completion length across all samples."""
    length_correlation_within: float | None
    """The same after subtracting each group's means: what GRPO's advantage sees."""
    disagreements: dict[tuple[str, str], float]
    """(judge, check) → the share of samples where one passes and the other fails."""
    warnings: tuple[str, ...]

    def as_metrics(self, prefix: str = "rewardkit/") -> dict[str, float]:
        """A flat `{name: number}` for a trainer's logger (wandb, TensorBoard, TRL's `log`).

        >>> diagnose([{"reward": 1.0, "group": "p"}, {"reward": 1.0, "group": "p"}]).as_metrics()
        {'rewardkit/zero_variance/reward': 1.0, 'rewardkit/at_min/reward': 0.0, \
'rewardkit/at_max/reward': 1.0}
        """
        metrics: dict[str, float] = {}
        for c in self.criteria:
            if c.zero_variance is not None:
                metrics[f"{prefix}zero_variance/{c.name}"] = c.zero_variance
            metrics[f"{prefix}at_min/{c.name}"] = c.at_min
            metrics[f"{prefix}at_max/{c.name}"] = c.at_max
        if self.length_correlation is not None:
            metrics[f"{prefix}length_corr"] = self.length_correlation
        if self.length_correlation_within is not None:
            metrics[f"{prefix}length_corr_within_group"] = self.length_correlation_within
        for (judge, check), share in self.disagreements.items():
            metrics[f"{prefix}disagree/{judge}~{check}"] = share
        return metrics


def diagnose(
    results: Run | Iterable[Mapping[str, Any] | Any],
    *,
    groups: Sequence[object] | None = None,
    lengths: Sequence[int | None] | None = None,
    kinds: Mapping[str, Kind] | None = None,
) -> Diagnostics:
    """Measure the learning signal in scored samples.

    Args:
        results: a `Run`, result lines (`{"reward", "judges", "group" or
            "metadata": {"group"}, "length"?}`), or `SampleResult`s.
        groups: each sample's group id (the prompt), aligned with `results`; overrides theirs.
        lengths: each completion's length, aligned with `results`.
        kinds: criterion name → `"judge"` (a model's opinion) or `"check"` (programmatic);
            by default a criterion whose values are all 0/1 is a check, any other a judge.

    Example:
        >>> rows = [{"reward": r, "group": g} for g, r in [("a", 1), ("a", 0), ("b", 1), ("b", 1)]]
        >>> diagnose(rows).criteria[0].zero_variance
        0.5
    """
    rows = _rows(results)
    if groups is not None:
        rows = [
            (None if g is None else str(g), n, v) for (_, n, v), g in zip(rows, groups, strict=True)
        ]
    if lengths is not None:
        rows = [(g, n, v) for (g, _, v), n in zip(rows, lengths, strict=True)]
    names = list(dict.fromkeys(name for _, _, values in rows for name in values))
    signals = tuple(_signal(rows, name) for name in names)
    counts = Counter(name for _, _, values in rows for name in values)
    kept = set(sorted(names, key=lambda n: (n != REWARD, -counts[n]))[:MAX_CORRELATED])
    paired = [n for n in names if n in kept]  # pairs grow with the square of the criteria
    correlations = {pair: _corr(rows, *pair) for pair in combinations(paired, 2)}
    within, overall = _length(rows)
    disagreements = _disagreements(rows, [n for n in names if n != REWARD], kinds or {})
    return Diagnostics(
        samples=len(rows),
        groups=len({g for g, _, _ in rows if g is not None}),
        criteria=signals,
        correlations=correlations,
        length_correlation=overall,
        length_correlation_within=within,
        disagreements=disagreements,
        warnings=_warnings(signals, overall, within, disagreements),
    )


def _rows(results: Run | Iterable[Any]) -> list[_Row]:
    cases = results.cases if isinstance(results, Run) else results
    return [_row(item) for item in cases]


def _row(item: Any) -> _Row:
    if isinstance(item, Case):
        values = {j.name: float(j.value) for j in item.judges if j.value is not None}
        reward, group, length = item.reward, item.group, item.length
    elif isinstance(item, Mapping):
        judges = mapping(item.get("judges"))
        values = {str(k): float(v) for k, v in judges.items() if number(v) is not None}
        reward = number(item.get("reward"))
        metadata = mapping(item.get("metadata"))
        group = item.get("group", metadata.get("group"))
        length = item.get("length", metadata.get("completion_length"))
    else:  # a SampleResult
        values = {k: float(v) for k, v in item.judges.items() if v is not None}
        reward, group, length = item.reward, None, None
    if reward is not None:
        values[REWARD] = float(reward)
    size = length if isinstance(length, int) and not isinstance(length, bool) else None
    return (None if group is None else str(group)), size, values


def _signal(rows: list[_Row], name: str) -> CriterionSignal:
    values = [v[name] for _, _, v in rows if name in v]
    by_group: dict[str, list[float]] = {}
    for group, _, v in rows:
        if group is not None and name in v:
            by_group.setdefault(group, []).append(v[name])
    varied = [g for g in by_group.values() if len(g) > 1]
    flat = sum(max(g) - min(g) <= 1e-9 for g in varied)
    low, high = (0.0, 1.0) if all(0.0 <= x <= 1.0 for x in values) else (min(values), max(values))
    n = len(values)
    return CriterionSignal(
        name=name,
        samples=n,
        groups=len(varied),
        zero_variance=flat / len(varied) if varied else None,
        at_min=sum(abs(x - low) <= 1e-9 for x in values) / n,
        at_max=sum(abs(x - high) <= 1e-9 for x in values) / n,
    )


def _corr(rows: list[_Row], a: str, b: str) -> float | None:
    pairs = [(v[a], v[b]) for _, _, v in rows if a in v and b in v]
    return pearson([x for x, _ in pairs], [y for _, y in pairs])


def _length(rows: list[_Row]) -> tuple[float | None, float | None]:
    """(within groups, overall) correlation of reward with completion length."""
    pairs = [(g, float(n), v[REWARD]) for g, n, v in rows if n is not None and REWARD in v]
    if not pairs:
        return None, None
    overall = pearson([n for _, n, _ in pairs], [r for _, _, r in pairs])
    sums: dict[str | None, list[float]] = {}
    for g, n, r in pairs:
        total = sums.setdefault(g, [0.0, 0.0, 0.0])
        total[0], total[1], total[2] = total[0] + n, total[1] + r, total[2] + 1
    grouped = [(g, n, r) for g, n, r in pairs if g is not None and sums[g][2] > 1]
    if not grouped:
        return None, overall
    lengths = [n - sums[g][0] / sums[g][2] for g, n, _ in grouped]
    rewards = [r - sums[g][1] / sums[g][2] for g, _, r in grouped]
    return pearson(lengths, rewards), overall


def _disagreements(
    rows: list[_Row], names: list[str], kinds: Mapping[str, Kind]
) -> dict[tuple[str, str], float]:
    def kind(name: str) -> Kind:
        if name in kinds:
            return kinds[name]
        binary = all(v[name] in (0.0, 1.0) for _, _, v in rows if name in v)
        return "check" if binary else "judge"

    judges = [n for n in names if kind(n) == "judge"]
    checks = [n for n in names if kind(n) == "check"]
    found = {}
    for judge in judges:
        for check in checks:
            pairs = [
                (v[judge] >= 0.5, v[check] >= 0.5) for _, _, v in rows if judge in v and check in v
            ]
            if pairs:
                found[(judge, check)] = sum(a != b for a, b in pairs) / len(pairs)
    return found


def _warnings(
    signals: tuple[CriterionSignal, ...],
    overall: float | None,
    within: float | None,
    disagreements: dict[tuple[str, str], float],
) -> tuple[str, ...]:
    found = []
    for s in signals:
        if s.zero_variance is not None and s.zero_variance >= ZERO_VARIANCE_WARN:
            found.append(
                f"{s.name}: {s.zero_variance:.0%} of {s.groups} groups have zero variance "
                "(no learning signal there)"
            )
        if s.saturated:
            end = "maximum" if s.at_max >= s.at_min else "minimum"
            found.append(
                f"{s.name}: saturated, {max(s.at_max, s.at_min):.0%} of samples at its {end}"
            )
    r = within if within is not None else overall
    if r is not None and abs(r) >= LENGTH_WARN:
        scope = "within groups" if within is not None else "across samples"
        found.append(
            f"reward correlates with completion length (r = {r:+.2f} {scope}): length gaming?"
        )
    for (judge, check), share in disagreements.items():
        if share >= DISAGREE_WARN:
            found.append(f"{judge} (judge) and {check} (check) disagree on {share:.0%} of samples")
    return tuple(found)
