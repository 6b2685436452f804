"""Per-group figures, folded as each group closes: pass@k counts, zero-variance shares, and
the within-group sums of reward vs completion length.

A report keeps at most `MAX_OPEN` groups open, the most recently seen; the oldest closes when
another opens. A `rewardkit score` file keeps a prompt's samples together, so every group is
whole when it closes. A group seen again after it closed is caught by a fixed-size Bloom
filter (no false negatives) and listed in `reopened`; the report then reads its input once
more with those groups `held` open to the end, so the figures stay exact. Past `MAX_HELD`
such groups they are not: each return of a group counts as a group of its own (`overflow`).
"""

from __future__ import annotations

from collections import Counter, OrderedDict

from rewardkit.batch._bloom import Bloom
from rewardkit.core._moments import CoMoments, correlation

__all__ = ["FLAT", "MAX_HELD", "MAX_OPEN", "Groups"]

MAX_OPEN = 1000
"""Groups open at once while reading a file."""
MAX_HELD = 10_000
"""The most returning groups held open for the second read."""
FLAT = 1e-9
"""Values within this of each other are equal (a zero-variance group)."""
_BLOOM_LOG2 = 25  # 2**25 bits, 4 MiB: about 0.001 false alarms expected over 125,000 groups
_PROBES = 4


class _Group:
    """One open group: its cases, rewards that pass, each criterion's range, its length sums."""

    __slots__ = ("cases", "length", "passes", "rewarded", "values")

    def __init__(self) -> None:
        self.cases = self.rewarded = self.passes = 0
        self.values: dict[str, list[float]] = {}
        """Criterion → `[count, min, max]`."""
        self.length = CoMoments()
        """(completion length, reward) pairs."""


class Groups:
    """Per-group figures of samples as they stream (`add` each, then `close`).

    Args:
        bounded: keep at most `MAX_OPEN` groups open; else every group stays open to the end
            (for samples already in memory).
        held: groups kept open to the end whatever the bound (the second read's).
    """

    def __init__(self, *, bounded: bool = True, held: frozenset[str] = frozenset()):
        self.limit = MAX_OPEN if bounded else None
        self.held = held
        self.open: OrderedDict[str, _Group] = OrderedDict()
        """The open groups, the least recently seen first."""
        self.kept: dict[str, _Group] = {}
        """The `held` groups seen so far."""
        self.seen = Bloom(_BLOOM_LOG2, _PROBES) if bounded else None
        self.reopened: set[str] = set()
        """Groups that came back after they closed (or that the filter mistook for such)."""
        self.overflow = False
        """More than `MAX_HELD` groups came back: the per-group figures are approximate."""
        self.count = 0
        """Groups closed."""
        self.repeated = False
        """Some group has more than one case."""
        self.pass_counts: Counter[tuple[int, int]] = Counter()
        """(samples with a reward, passes) → groups, for groups with at least two."""
        self.varied: Counter[str] = Counter()
        """Criterion → groups with at least two of its values."""
        self.flat: Counter[str] = Counter()
        """Criterion → those of them whose values are all equal."""
        self.within_pairs = 0
        self.within = [0.0, 0.0, 0.0]
        """Length and reward about their group means: `[Sxx, Syy, Sxy]` over `within_pairs`."""

    @property
    def whole(self) -> bool:
        """True when every group was whole when it closed (the figures are exact)."""
        return not self.reopened and not self.overflow

    @property
    def warning(self) -> str | None:
        """Why the per-group figures are approximate; `None` when they are exact."""
        if self.whole:
            return None
        many = f"over {MAX_HELD:,}" if self.overflow else f"{len(self.reopened):,}"
        return (
            f"the samples of {many} groups are spread out (they came back after {MAX_OPEN:,} "
            "other groups): pass@k and the per-group diagnostics count each return of a group "
            "as a group of its own"
        )

    def add(
        self, group: str, values: dict[str, float], length: int | None, passed: bool | None
    ) -> None:
        """Count one sample of `group`: its criteria's values (`reward` among them)."""
        state = self.open.get(group)
        if state is not None:
            if self.limit is not None:
                self.open.move_to_end(group)
        else:
            state = self.kept.get(group) or self._new(group)
        state.cases += 1
        if passed is not None:
            state.rewarded += 1
            state.passes += passed
        for name, value in values.items():
            found = state.values.get(name)
            if found is None:
                state.values[name] = [1, value, value]
            else:
                found[0] += 1
                if value < found[1]:
                    found[1] = value
                elif value > found[2]:
                    found[2] = value
        reward = values.get("reward")
        if length is not None and reward is not None:
            state.length.add(float(length), reward)

    def close(self) -> None:
        """Close every open group."""
        for state in (*self.open.values(), *self.kept.values()):
            self._fold(state)
        self.open.clear()
        self.kept.clear()

    def length_correlation(self) -> float | None:
        """Reward vs completion length after subtracting each group's means."""
        return correlation(self.within_pairs, *self.within)

    def _new(self, group: str) -> _Group:
        state = _Group()
        if group in self.held:
            self.kept[group] = state
            return state
        self.open[group] = state
        if self.seen is not None and self.seen.add(group):
            if len(self.reopened) < MAX_HELD:
                self.reopened.add(group)
            else:
                self.overflow = True
        if self.limit is not None and len(self.open) > self.limit:
            self._fold(self.open.popitem(last=False)[1])
        return state

    def _fold(self, state: _Group) -> None:
        self.count += 1
        self.repeated = self.repeated or state.cases > 1
        if state.rewarded > 1:
            self.pass_counts[(state.rewarded, state.passes)] += 1
        for name, (n, low, high) in state.values.items():
            if n > 1:
                self.varied[name] += 1
                self.flat[name] += high - low <= FLAT
        if state.length.n > 1:
            self.within_pairs += state.length.n
            for i, total in enumerate(state.length.centered()):
                self.within[i] += total
