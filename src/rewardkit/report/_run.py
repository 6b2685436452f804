"""What a report reads: a `Run` of `Case`s, each with its judges and its reward's composition.

Every input kind (an eval run's `summary.json`, a Harbor job directory, a `rewardkit score`
results file) is turned into this one shape at the edge (`_load.py`, `_harbor.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "MAX_PROBLEMS",
    "Case",
    "Excerpt",
    "JudgeResult",
    "Problem",
    "Run",
    "RunKind",
    "Step",
    "excerpt",
]

RunKind = Literal["eval", "harbor", "results"]
MAX_PROBLEMS = 1000
"""The most problems listed; past it one more says the rest are not."""


@dataclass(frozen=True, kw_only=True)
class JudgeResult:
    """One judge on one case."""

    name: str
    status: str
    """`scored`, `skipped`, `error`, `timeout`, or `missing` (a results line's judge without a
    value: skipped or failed, the line does not say which)."""
    value: bool | float | None = None
    """What it returned (a bool is a pass or a fail); `None` unless scored."""
    reasoning: str | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        """True for `error` and `timeout`."""
        return self.status in ("error", "timeout")


@dataclass(frozen=True, kw_only=True)
class Step:
    """One line of "why this reward": a rule or an input, indented by `depth`."""

    depth: int
    label: str
    value: float | bool | None = None
    weight: float | None = None
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class Excerpt:
    """The start of a text that may be long (an agent's output), and how much was cut."""

    text: str
    more: int = 0
    """Characters left out after `text`."""


def excerpt(text: str, cap: int) -> Excerpt:
    """The first `cap` characters of `text`.

    >>> excerpt("abcdef", 4)
    Excerpt(text='abcd', more=2)
    """
    return Excerpt(text=text[:cap], more=max(0, len(text) - cap))


@dataclass(frozen=True, kw_only=True)
class Case:
    """One sample: an eval case, a Harbor trial, or one result line."""

    id: str
    reward: float | None
    """`None` when the case has no valid reward."""
    judges: tuple[JudgeResult, ...] = ()
    rewards: dict[str, float] = field(default_factory=dict)
    """Every reward key (Harbor's `reward.json`), `reward` included."""
    group: str | None = None
    """Repeated samples of one task or prompt share it (pass@k, RL diagnostics)."""
    composition: tuple[Step, ...] = ()
    error: str | None = None
    length: int | None = None
    """The completion's length in characters, when known."""
    source: str = ""
    """The file it was read from."""
    input: Excerpt | None = None
    """What the case was given (a prompt, `input.yaml`), when the report could read it."""
    output: Excerpt | None = None
    """What the agent or policy produced, when the report could read it."""


@dataclass(frozen=True, kw_only=True)
class Problem:
    """A file that could not be read (or only in part); the rest of the run is reported."""

    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass(kw_only=True)
class Run:
    """Every case of one input, with the problems met while reading it."""

    kind: RunKind
    source: str
    cases: list[Case] = field(default_factory=list)
    """Every case (`load_run`), or the first `MAX_CASES` (a `Report`'s run)."""
    problems: list[Problem] = field(default_factory=list)
    formula: str | None = None
    """How each case's reward is composed, when the input says so once for all cases."""
    name: str | None = None
    """The suite's name (eval.yaml's `name`), when known."""
    missing: dict[str, str] = field(default_factory=dict)
    """`input` / `output` → why cases have none (e.g. "a results file holds no prompt")."""

    def problem(self, file: str, message: str) -> None:
        """Note a file that could not be read (past `MAX_PROBLEMS`, only that there are more)."""
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(file=file, message=message))
        elif len(self.problems) == MAX_PROBLEMS:
            more = f"more than {MAX_PROBLEMS:,} problems; the rest are not listed"
            self.problems.append(Problem(file=self.source, message=more))
