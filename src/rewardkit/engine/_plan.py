"""The plan: a validated tree whose leaves are judges and whose inner nodes are compositions.

Front doors (a tests directory today) build a `Plan`; the engine runs its leaves and folds
the tree; an output writer turns the result into files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rewardkit.compose import Mode, parse_mode
from rewardkit.criteria import Check

__all__ = ["Extra", "Group", "Kind", "Leaf", "Node", "Plan", "Scoring"]

Kind = Literal["programmatic", "llm", "agent", "jev"]


@dataclass(frozen=True, kw_only=True)
class Scoring:
    """How a node combines its inputs."""

    aggregation: str = "weighted-mean"
    """As written by the user (underscore aliases are kept for the details file)."""
    threshold: float = 0.5

    @property
    def mode(self) -> Mode:
        return parse_mode(self.aggregation)


@dataclass(frozen=True, kw_only=True)
class Leaf:
    """One criterion-bearing Python file or one judge TOML."""

    name: str
    """The input name: the file's stem."""
    qualname: str
    """Slash-qualified from the tests root, e.g. `correctness/checks`."""
    source: Path
    kind: Kind = "programmatic"
    checks: tuple[Check, ...] = ()
    judge: Any = None
    """The judge's configuration, for non-programmatic leaves."""
    scoring: Scoring = field(default_factory=Scoring)
    weight: float = 1.0
    """Its weight in the parent group unless the parent overrides it."""


@dataclass(frozen=True, kw_only=True)
class Group:
    """A directory: its Python files, judge TOMLs and child directories."""

    name: str
    qualname: str
    inputs: tuple[Node, ...]
    scoring: Scoring = field(default_factory=Scoring)
    weights: Mapping[str, float] = field(default_factory=dict)
    """Per-input overrides from `[[reward]].weights`."""
    explicit: bool = False
    """True when a `[[reward]]` table configures it (no single-input pass-through)."""
    weight: float = 1.0

    def weight_of(self, node: Node) -> float:
        return self.weights.get(node.name, node.weight)


Node = Leaf | Group


@dataclass(frozen=True, kw_only=True)
class Extra:
    """A named root `[[reward]]`: one more key over the root inputs."""

    name: str
    scoring: Scoring
    weights: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What a tests directory compiles to.

    Attributes:
        dimensions: the keys of `reward.json` that have a detail, in output order.
        inputs: the root inputs the `extras` aggregate over.
        extras: the named root `[[reward]]` keys, in TOML order.
        renamed: each criterion renamed `name #2` because an earlier one had its name, with
            its file.
    """

    tests_dir: Path
    dimensions: tuple[tuple[str, Node], ...] = ()
    inputs: tuple[Node, ...] = ()
    extras: tuple[Extra, ...] = ()
    renamed: tuple[tuple[Path, str], ...] = ()

    def leaves(self) -> Iterator[Leaf]:
        """Every leaf once, in output order."""
        seen: set[int] = set()
        stack = [node for _, node in reversed(self.dimensions)]
        while stack:
            node = stack.pop()
            if isinstance(node, Group):
                stack.extend(reversed(node.inputs))
            elif id(node) not in seen:
                seen.add(id(node))
                yield node
