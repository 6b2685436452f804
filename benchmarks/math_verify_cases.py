"""Our `math_reward` against math-verify's own test cases (their expected verdicts).

math-verify's sdist ships `tests/`; most of its tests are `@pytest.mark.parametrize`
tables of `(gold, pred, expected[, precision | strict | allow_set_relation_comp])`
fed to `compare_strings` (their `parse` + `verify` with chosen extraction targets) or to
`verify(parse(gold), parse(pred))`. This script downloads the sdist from PyPI (the
installed math-verify's version, else 0.9.0), unpacks only `tests/*.py`, and reads those
tables with `ast` (`ast.literal_eval` per row: nothing of theirs is imported or run; a
row that is not a literal, such as an f-string, is counted and left out). Each case is
graded with `math_reward(messages=[user, assistant: pred], ground_truth=gold)`,
`score >= 0.5` meaning accepted, and compared with their expected verdict.

Cases whose test narrows math-verify (only `expr` or only `latex` extraction, a
non-default `precision`, `strict=False`, `allow_set_relation_comp=True`) are reported
apart: their verdict depends on a knob. A non-default `precision` (rounding to that many
decimals) is passed as `absolute_tolerance=0.5 * 10**-precision`; the others have no
counterpart in `math_reward`.

    python benchmarks/math_verify_cases.py [--version 0.9.0] [--sdist PATH] [--all]

`--sdist` takes an already downloaded `math_verify-*.tar.gz` (offline use); `--all`
lists every disagreement instead of the first 40 of each group.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_VERSION = "0.9.0"
DEFAULT_KNOBS: dict[str, Any] = {
    "match_types": ["latex", "expr"],
    "precision": 6,
    "strict": True,
    "allow_set_relation_comp": False,
}


@dataclass
class Case:
    """One row of one of math-verify's parametrized tests."""

    test: str
    gold: str
    pred: str
    expected: bool
    knobs: dict[str, Any] = field(default_factory=dict)

    @property
    def default(self) -> bool:
        return all(self.knobs.get(k, v) == v for k, v in DEFAULT_KNOBS.items())


@dataclass
class Harvest:
    """What the test files gave: the cases and what could not be read as data."""

    cases: list[Case] = field(default_factory=list)
    non_literal_rows: dict[str, int] = field(default_factory=dict)
    not_data_driven: list[str] = field(default_factory=list)


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("math-verify")
    except PackageNotFoundError:
        return DEFAULT_VERSION


def download_sdist(version: str, into: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", f"math-verify=={version}", "--no-deps",
         "--no-binary", ":all:", "-d", str(into)],
        check=True,
    )  # fmt: skip
    (archive,) = into.glob("math*verify-*.tar.gz")
    return archive


def extract_tests(archive: Path, into: Path) -> Path:
    """Unpack only `<root>/tests/*.py` of the sdist into `into/tests`."""
    root = into / "tests"
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            parts = Path(member.name).parts
            wanted = len(parts) == 3 and parts[1] == "tests" and parts[2].endswith(".py")
            if wanted and member.isfile():
                member.name = parts[2]
                tar.extract(member, root, filter="data")
    return root


def _call_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_call_name(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _parametrize(func: ast.FunctionDef) -> tuple[list[str], ast.expr] | None:
    for deco in func.decorator_list:
        if isinstance(deco, ast.Call) and _call_name(deco.func).endswith("mark.parametrize"):
            names = ast.literal_eval(deco.args[0])
            if isinstance(names, str):
                names = [n.strip() for n in names.split(",")]
            return list(names), deco.args[1]
    return None


def _fixed_knobs(func: ast.FunctionDef) -> dict[str, Any]:
    """Keyword constants passed to `compare_strings` in the test body."""
    knobs: dict[str, Any] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and _call_name(node.func) == "compare_strings":
            for kw in node.keywords:
                # A parameter name is not a literal: its value comes from the row.
                with contextlib.suppress(ValueError):
                    knobs[kw.arg or ""] = ast.literal_eval(kw.value)
    return knobs


def harvest_file(path: Path, harvest: Harvest) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for func in tree.body:
        if not isinstance(func, ast.FunctionDef) or not func.name.startswith("test"):
            continue
        test = f"{path.name}::{func.name}"
        spec = _parametrize(func)
        if spec is None or "gold" not in spec[0] or "pred" not in spec[0]:
            harvest.not_data_driven.append(test)
            continue
        names, rows = spec
        verdict = "expected" if "expected" in names else "result"
        fixed = _fixed_knobs(func)
        for row in getattr(rows, "elts", []):
            try:
                values = dict(zip(names, ast.literal_eval(row), strict=True))
            except (ValueError, TypeError, SyntaxError):
                harvest.non_literal_rows[test] = harvest.non_literal_rows.get(test, 0) + 1
                continue
            knobs = {**fixed, **{k: v for k, v in values.items() if k in DEFAULT_KNOBS}}
            harvest.cases.append(
                Case(test, values["gold"], values["pred"], bool(values[verdict]), knobs)
            )


def grade(case: Case) -> tuple[bool, str]:
    from rewardkit.functions.builtin import math_reward

    messages = [
        {"role": "user", "content": "Solve."},
        {"role": "assistant", "content": case.pred},
    ]
    # Their `precision` knob rounds numbers to that many decimals: our absolute tolerance.
    precision = case.knobs.get("precision", DEFAULT_KNOBS["precision"])
    tolerance = None if precision == DEFAULT_KNOBS["precision"] else 0.5 * 10.0**-precision
    try:
        result = math_reward(
            messages=messages, ground_truth=case.gold, absolute_tolerance=tolerance
        )
    except Exception as exc:  # counted as a rejection and shown
        return False, f"raised {type(exc).__name__}: {exc}"
    return result.score >= 0.5, result.reason or ""


def _time_math_verify(cases: list[Case]) -> list[float]:
    """math-verify's own time per case (`verify(parse(gold), parse(pred))`), or [] when it
    is not installed."""
    try:
        from math_verify import parse, verify
    except ImportError:
        return []
    micros = []
    for case in cases:
        start = time.perf_counter()
        with contextlib.suppress(Exception):
            verify(parse(case.gold), parse(case.pred))
        micros.append((time.perf_counter() - start) * 1e6)
    return micros


def _short(text: str, limit: int = 90) -> str:
    text = repr(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def report(harvest: Harvest, show_all: bool) -> None:
    cases = harvest.cases
    graded = []
    ours_us: list[float] = []
    for case in cases:
        start = time.perf_counter()
        ours, reason = grade(case)
        ours_us.append((time.perf_counter() - start) * 1e6)
        graded.append((case, ours, reason))
    theirs_us = _time_math_verify(cases)
    print(f"{len(cases)} cases read from math-verify's tests\n")
    print("median µs per call, same cases, this process:")
    print(f"  math_reward {statistics.median(ours_us):,.0f}", end="")
    if theirs_us:
        ratio = statistics.median(ours_us) / statistics.median(theirs_us)
        print(
            f"; math-verify verify(parse, parse) {statistics.median(theirs_us):,.0f} ({ratio:.2f}x)"
        )
    print()
    print("| group | cases | agree | ours accepts, theirs rejects | ours rejects, theirs accepts |")
    print("|---|---|---|---|---|")
    groups = {
        "default knobs": [g for g in graded if g[0].default],
        "narrowed knobs": [g for g in graded if not g[0].default],
        "all": graded,
    }
    for label, group in groups.items():
        agree = sum(ours == case.expected for case, ours, _ in group)
        fp = sum(ours and not case.expected for case, ours, _ in group)
        fn = sum(not ours and case.expected for case, ours, _ in group)
        print(f"| {label} | {len(group)} | {agree} | {fp} | {fn} |")
    print("\nper test function: agree / cases")
    tests = sorted({case.test for case in cases})
    for test in tests:
        rows = [g for g in graded if g[0].test == test]
        agree = sum(ours == case.expected for case, ours, _ in rows)
        print(f"  {test}: {agree}/{len(rows)}")
    if harvest.non_literal_rows:
        print("\nrows left out (not literals):", harvest.non_literal_rows)
    if harvest.not_data_driven:
        print("tests that are not (gold, pred, expected) tables:", harvest.not_data_driven)
    for label in ("default knobs", "narrowed knobs"):
        wrong = [g for g in groups[label] if g[1] != g[0].expected]
        print(f"\ndisagreements, {label}: {len(wrong)}")
        for case, ours, reason in wrong if show_all else wrong[:40]:
            knobs = "" if case.default else f" {case.knobs}"
            print(
                f"  [{case.test.split('::')[1]}] gold {_short(case.gold)} pred "
                f"{_short(case.pred)}: theirs {int(case.expected)}, ours {int(ours)}{knobs}"
            )
            if show_all:
                print(f"      ours: {_short(reason, 160)}")
        if not show_all and len(wrong) > 40:
            print(f"  ... {len(wrong) - 40} more (--all)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=None, help="math-verify version to download")
    parser.add_argument("--sdist", type=Path, default=None, help="a downloaded sdist")
    parser.add_argument("--all", action="store_true", help="list every disagreement")
    args = parser.parse_args()
    version = args.version or installed_version()
    with tempfile.TemporaryDirectory() as tmp:
        archive = args.sdist or download_sdist(version, Path(tmp))
        tests = extract_tests(archive, Path(tmp))
        harvest = Harvest()
        for path in sorted(tests.glob("test_*.py")):
            harvest_file(path, harvest)
    print(f"math-verify sdist: {archive.name}")
    report(harvest, args.all)


if __name__ == "__main__":
    main()
