"""A Harbor `tests/` directory → `Plan` (layouts and rules: docs/design/tests-dir.md).

Every directory is read the same way: its `reward.toml` and judge TOMLs, then its Python
files (sorted), then its child directories (sorted, depth first). Each criterion-bearing
Python file, judge TOML and child directory with inputs is one *input*, named by its stem or
directory name. At the root, a layout with no child directory is *flat* (one key, `reward`);
otherwise every root input is its own key.
"""

from __future__ import annotations

import tomllib
import warnings
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from rewardkit.compose import check_weights
from rewardkit.core._errors import ConfigError, DiscoveryError, describe_exception, raise_all
from rewardkit.criteria import Check, Registry
from rewardkit.engine._plan import Extra, Group, Leaf, Node, Plan, Scoring
from rewardkit.harbor._judge_toml import is_judge_toml, load_judge
from rewardkit.harbor._pyfiles import load_checks
from rewardkit.harbor._reward_toml import RewardSpec, RewardToml, parse_reward_toml

__all__ = ["discover"]


def discover(tests_dir: str | Path, *, registry: Registry | None = None) -> Plan:
    """Read `tests_dir` into a plan, with a fresh registry unless one is given.

    Raises:
        ConfigError: every problem found (a `DiscoveryError` lists several), before anything
            runs, including a Python file that raises while it is imported.
    """
    root = Path(tests_dir)
    if not root.is_dir():
        raise DiscoveryError(
            "tests directory not found. Pass the directory that holds your criteria "
            "(.py files calling rk.<criterion>(...), judge TOMLs), e.g. `rewardkit /tests`.",
            path=root,
        )
    walker = _Walker(root, registry or Registry.with_builtins())
    config, inputs = walker.scan(root, ())
    plan = _layout(root, config, inputs, walker.errors, walker.lost(root))
    raise_all(walker.errors)
    return replace(plan, renamed=tuple(walker.renamed))


class _Walker:
    def __init__(self, root: Path, registry: Registry) -> None:
        self.root = root
        self.registry = registry
        self.errors: list[ConfigError] = []
        self._open: set[Path] = set()  # directories being walked, against symlink loops
        self._named: set[str] = set()  # criterion names given so far
        self.renamed: list[tuple[Path, str]] = []  # (file, new name) of each repeated name
        self._broken: set[Path] = set()  # Python files that failed to load (errors already)

    def scan(self, directory: Path, path: tuple[str, ...]) -> tuple[RewardToml | None, list[Node]]:
        """Read one directory: its config and its inputs, sorted by name."""
        config, judges = self._tomls(directory)
        scoring = config.scoring if config else {}
        files = [
            leaf
            for p in _files(directory, "*.py")
            if (leaf := self._py_leaf(p, path, scoring.get(p.stem, Scoring()))) is not None
        ]
        unknown = sorted(set(scoring) - {leaf.name for leaf in files} - self.lost(directory))
        if config and unknown:
            found = ", ".join(repr(leaf.name) for leaf in files) or "none"
            self.errors.append(
                ConfigError(
                    f"unknown programmatic scoring inputs: {', '.join(map(repr, unknown))}. "
                    f"[scoring.<stem>] must name a criterion-bearing Python file in this "
                    f"directory; found: {found}. Judge TOMLs take their own [scoring] table.",
                    path=config.path,
                )
            )
        leaves = files + [
            load_judge(p, data, "/".join((*path, p.stem)), self.errors) for p, data in judges
        ]
        children = [
            child
            for sub in _subdirs(directory)
            if (child := self._group(sub, (*path, sub.name))) is not None
        ]
        return config, self._merge(directory, [*leaves, *children])

    def _tomls(
        self, directory: Path
    ) -> tuple[RewardToml | None, list[tuple[Path, Mapping[str, Any]]]]:
        config: RewardToml | None = None
        judges: list[tuple[Path, Mapping[str, Any]]] = []
        for toml in _files(directory, "*.toml"):
            text = toml.read_text(errors="replace")
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                if toml.name == "reward.toml" or "[judge]" in text or "[[criterion]]" in text:
                    self.errors.append(
                        ConfigError(f"invalid TOML: {exc}. Fix the syntax.", path=toml)
                    )
                else:
                    warnings.warn(
                        f"{toml}: skipped, not valid TOML ({exc}). rewardkit reads only "
                        f"reward.toml and judge TOMLs, so this file does not affect scoring.",
                        stacklevel=2,
                    )
                continue
            if is_judge_toml(data):
                judges.append((toml, data))
            elif toml.name == "reward.toml":
                config = parse_reward_toml(toml, data, self.errors)
        return config, judges

    def _py_leaf(self, file: Path, path: tuple[str, ...], scoring: Scoring) -> Leaf | None:
        qualname = "/".join((*path, file.stem))
        try:
            checks = load_checks(file, self.root, self.registry)
        except (Exception, SystemExit) as exc:  # a file calling sys.exit() must not end the run
            message = f"failed to load: {describe_exception(exc, file)}. Fix the file."
            self.errors.append(ConfigError(message, path=file))
            self._broken.add(file)
            return None
        if not checks:
            return None
        checks = tuple(self._unique(check, file) for check in checks)
        try:
            check_weights((c.weight for c in checks), scoring.mode)
        except ValueError as exc:
            self.errors.append(
                ConfigError(
                    f'criterion weights: {exc}. Set aggregation = "weighted-sum" in '
                    f"[scoring.{file.stem}] of reward.toml to use negative weights.",
                    path=file,
                )
            )
        return Leaf(name=file.stem, qualname=qualname, source=file, checks=checks, scoring=scoring)

    def lost(self, directory: Path) -> set[str]:
        """The inputs of `directory` that a file failed to load from: what names them in
        reward.toml is not a second error."""
        return {
            Path(p.relative_to(directory).parts[0]).stem
            for p in self._broken
            if p.is_relative_to(directory)
        }

    def _unique(self, check: Check, file: Path) -> Check:
        """A repeated criterion name becomes `name #2`, `name #3` (in reading order), so that
        no output keyed by name drops one of them; `rewardkit check` lists the renamed."""
        if check.name not in self._named:
            self._named.add(check.name)
            return check
        number = 2
        while f"{check.name} #{number}" in self._named:
            number += 1
        unique = f"{check.name} #{number}"
        self._named.add(unique)
        self.renamed.append((file, unique))
        return replace(check, name=unique)

    def _group(self, directory: Path, path: tuple[str, ...]) -> Group | None:
        real = directory.resolve()
        if real in self._open:
            warnings.warn(f"{directory}: skipped, a symlink loop back to {real}", stacklevel=2)
            return None
        self._open.add(real)
        try:
            config, inputs = self.scan(directory, path)
        finally:
            self._open.discard(real)
        specs = config.rewards if config else ()
        spec = specs[0] if specs else None
        where = config.path if config else directory / "reward.toml"
        if len(specs) > 1:
            self.errors.append(
                ConfigError(
                    "declares more than one [[reward]]; a nested directory exports one score "
                    "to its parent, so keep a single unnamed [[reward]] table.",
                    path=where,
                )
            )
        if spec and spec.name is not None:
            self.errors.append(
                ConfigError(
                    f"nested [[reward]] must omit 'name' (got {spec.name!r}); the directory "
                    f"name {directory.name!r} identifies its score.",
                    path=where,
                )
            )
        if not inputs:
            if spec and not self.lost(directory):
                self.errors.append(
                    ConfigError(
                        "declares [[reward]] but the directory has no scoring inputs.", path=where
                    )
                )
            return None
        group = Group(
            name=directory.name,
            qualname="/".join(path),
            inputs=tuple(inputs),
            scoring=spec.scoring if spec else Scoring(),
            weights=spec.weights if spec else {},
            explicit=spec is not None,
        )
        if spec:
            _check_spec(spec, inputs, where, self.errors, self.lost(directory))
        return group

    def _merge(self, directory: Path, nodes: list[Node]) -> list[Node]:
        seen: dict[str, Node] = {}
        for node in nodes:
            if node.name in seen:
                self.errors.append(
                    ConfigError(
                        f"ambiguous scoring input name {node.name!r} "
                        f"(from {_origin(seen[node.name])} "
                        f"and {_origin(node)}); rename the Python file, judge TOML, or child "
                        f"directory.",
                        path=directory,
                    )
                )
                continue
            seen[node.name] = node
        return sorted(seen.values(), key=lambda node: node.name)


def _layout(
    root: Path,
    config: RewardToml | None,
    inputs: list[Node],
    errors: list[ConfigError],
    lost: set[str],
) -> Plan:
    """The plan of the root's `inputs`; `lost` names the inputs that failed to load."""
    specs = config.rewards if config else ()
    where = config.path if config else root / "reward.toml"
    if not inputs:
        if specs and not lost:
            errors.append(
                ConfigError(
                    "declares [[reward]] but the tests directory has no scoring inputs.", path=where
                )
            )
        elif not errors:
            warnings.warn(
                f"No criteria found under {root}; the reward output will be empty. Add .py "
                f"files calling criteria, or judge TOMLs.",
                stacklevel=3,
            )
        return Plan(tests_dir=root)
    nested = any(isinstance(node, Group) for node in inputs)
    names = {node.name for node in inputs} if nested else set()
    seen: set[str] = set()
    for spec in specs:
        if not spec.name:
            errors.append(
                ConfigError(
                    "each root [[reward]] table needs a 'name', e.g. name = \"reward\".", path=where
                )
            )
            continue
        if spec.name in names:
            errors.append(
                ConfigError(
                    f"[[reward]] name {spec.name!r} collides with a dimension of the same name; "
                    f"pick a distinct name.",
                    path=where,
                )
            )
        if spec.name in seen:
            errors.append(ConfigError(f"duplicate [[reward]] name {spec.name!r}.", path=where))
        seen.add(spec.name)
        _check_spec(spec, inputs, where, errors, lost)
    named = [spec for spec in specs if spec.name]
    if nested:
        return Plan(
            tests_dir=root,
            dimensions=tuple((node.name, node) for node in inputs),
            inputs=tuple(inputs),
            extras=tuple(_extra(spec) for spec in named),
        )
    main = next((spec for spec in named if spec.name == "reward"), None)
    group = Group(
        name="reward",
        qualname="",
        inputs=tuple(inputs),
        scoring=main.scoring if main else Scoring(),
        weights=main.weights if main else {},
        explicit=main is not None,
    )
    return Plan(
        tests_dir=root,
        dimensions=(("reward", group),),
        inputs=tuple(inputs),
        extras=tuple(_extra(spec) for spec in named if spec is not main),
    )


def _check_spec(
    spec: RewardSpec, inputs: list[Node], where: Path, errors: list[ConfigError], lost: set[str]
) -> None:
    """Check that a `[[reward]]`'s weights name inputs (or `lost` ones, which failed to load)
    and are valid for its mode."""
    names = [node.name for node in inputs]
    unknown = sorted(set(spec.weights) - set(names) - lost)
    label = f"[[reward]] {spec.name!r}" if spec.name else "[[reward]]"
    if unknown:
        errors.append(
            ConfigError(
                f"unknown weights inputs: {', '.join(map(repr, unknown))}. Available "
                f"inputs: {', '.join(map(repr, names))}.",
                path=where,
                key=f"{label}.weights",
            )
        )
    try:
        check_weights((spec.weights.get(n.name, n.weight) for n in inputs), spec.scoring.mode)
    except ValueError as exc:
        errors.append(ConfigError(f"{exc}.", path=where, key=f"{label}.weights"))


def _extra(spec: RewardSpec) -> Extra:
    assert spec.name is not None
    return Extra(name=spec.name, scoring=spec.scoring, weights=spec.weights)


def _files(directory: Path, pattern: str) -> list[Path]:
    """Sorted files matching `pattern`; hidden files are not read."""
    return sorted(p for p in directory.glob(pattern) if p.is_file() and not p.name.startswith("."))


def _subdirs(directory: Path) -> list[Path]:
    return sorted(
        p for p in directory.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))
    )


def _origin(node: Node) -> str:
    return f"{node.name}/" if isinstance(node, Group) else node.source.name
