"""RL-signal diagnostics: is there anything for a policy-gradient step to learn from?

GRPO-style training learns from the differences between the samples of one group (one
prompt). A criterion that gives every sample of a group the same value (zero variance), or
nearly every sample its minimum or maximum (saturation), gives no signal; a reward that
follows completion length invites length gaming; an LLM judge that disagrees with a
programmatic check on the same samples deserves a look. `diagnose` measures each, for a
results file or a trainer's logging hook (`Diagnostics.as_metrics()`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from rewardkit.report._fields import mapping, number
from rewardkit.report._groups import Groups
from rewardkit.report._run import Case, Run
from rewardkit.report._signals import REWARD, Signals

__all__ = ["CriterionSignal", "Diagnostics", "Row", "diagnose", "diagnostics", "row"]

ZERO_VARIANCE_WARN = 0.25
"""Warn when at least this share of a criterion's groups has zero variance."""
SATURATION_WARN = 0.95
"""Warn when at least this share of a criterion's values sits at its minimum or maximum."""
LENGTH_WARN = 0.5
"""Warn when reward and completion length correlate at least this much (either sign)."""
DISAGREE_WARN = 0.2
"""Warn when a judge and a check disagree (pass vs fail at 0.5) on at least this share."""

Kind = Literal["judge", "check"]
Row = tuple[str | None, int | None, dict[str, float]]
"""A sample's group, completion length, and criteria's values (`reward` among them)."""


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
    groups: Iterable[object] | None = None,
    lengths: Iterable[int | None] | None = None,
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
    rows: Iterable[Row] = map(row, results.cases if isinstance(results, Run) else results)
    if groups is not None:
        rows = (
            (None if g is None else str(g), n, v) for (_, n, v), g in zip(rows, groups, strict=True)
        )
    if lengths is not None:
        rows = ((g, n, v) for (g, _, v), n in zip(rows, lengths, strict=True))
    signals, grouped = Signals(), Groups(bounded=False)  # the samples are in memory already
    for group, length, values in rows:
        signals.add(values, length)
        if group is not None:
            grouped.add(group, values, length, None)
    grouped.close()
    return diagnostics(signals, grouped, kinds)


def row(item: Any) -> Row:
    """A sample's group, completion length, and criteria's values (the reward's last)."""
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


def diagnostics(
    signals: Signals, groups: Groups, kinds: Mapping[str, Kind] | None = None
) -> Diagnostics:
    """What `signals` and the closed `groups` say, in `Diagnostics`."""
    found = []
    for name, criterion in signals.criteria.items():
        varied = groups.varied[name]
        at_min, at_max = criterion.ends()
        found.append(
            CriterionSignal(
                name=name,
                samples=criterion.n,
                groups=varied,
                zero_variance=groups.flat[name] / varied if varied else None,
                at_min=at_min,
                at_max=at_max,
            )
        )
    criteria = tuple(found)
    names = list(signals.paired)
    correlations = {
        (a, b): _pair_correlation(signals, i, j)
        for (i, a), (j, b) in combinations(enumerate(names), 2)
    }
    overall, within = signals.length.correlation(), groups.length_correlation()
    disagreements = _disagreements(signals, kinds or {})
    return Diagnostics(
        samples=signals.samples,
        groups=groups.count,
        criteria=criteria,
        correlations=correlations,
        length_correlation=overall,
        length_correlation_within=within,
        disagreements=disagreements,
        warnings=_warnings(criteria, overall, within, disagreements),
    )


def _pair_correlation(signals: Signals, i: int, j: int) -> float | None:
    pair = signals.pairs.get((i, j))
    return None if pair is None else pair.moments.correlation()


def _disagreements(signals: Signals, kinds: Mapping[str, Kind]) -> dict[tuple[str, str], float]:
    def kind(name: str) -> Kind:
        if name in kinds:
            return kinds[name]
        return "check" if signals.criteria[name].binary else "judge"

    names = [n for n in signals.paired if n != REWARD]
    rank = signals.paired
    found = {}
    for judge in (n for n in names if kind(n) == "judge"):
        for check in (n for n in names if kind(n) == "check"):
            pair = signals.pairs.get((min(rank[judge], rank[check]), max(rank[judge], rank[check])))
            if pair is not None:
                found[(judge, check)] = pair.disagree / pair.moments.n
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
