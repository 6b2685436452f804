"""Math grading accuracy: rewardkit's graders and math-verify on the labelled corpus.

The corpus is `tests/functions/data/math_answers.jsonl`: one (gold, completion, verdict)
case a line, labelled by mathematical equivalence as a careful human grader would, with
exploit probes (answers that must never be accepted) marked `probe: true`. Each grader
that imports is run on every case; a case counts as *accepted* when the grader says so
(rewardkit: `score >= 0.5`; math-verify: `verify(parse(gold), parse(completion))`).
A grader that raises counts as rejecting, and the errors are counted.

Printed, per grader: accuracy, the false positive rate (wrong answers accepted, probes
included), the false negative rate (right answers rejected), probes accepted, errors and
the median time per call; then accuracy per category; with `--failures`, the ids of the
cases each grader gets wrong.

    python benchmarks/math_accuracy.py [--failures] [--grader NAME ...] [--corpus PATH]
        [--verl PATH/verl/utils/reward_score/math_reward.py]

math-verify is the `math` extra (`pip install 'math-verify[antlr4_13_2]'`); without it
its column is left out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "functions" / "data" / "math_answers.jsonl"

Grader = Callable[[str, str], bool]


@dataclass
class Tally:
    """One grader's verdicts over the corpus."""

    name: str
    accepted: dict[str, bool] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    micros: list[float] = field(default_factory=list)


def load_corpus(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def _messages(completion: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "Solve."},
        {"role": "assistant", "content": completion},
    ]


def rewardkit_graders() -> dict[str, Grader]:
    from rewardkit.functions.builtin import accuracy_reward, math_reward

    def grade_math(gold: str, completion: str) -> bool:
        return math_reward(messages=_messages(completion), ground_truth=gold).score >= 0.5

    def grade_accuracy(gold: str, completion: str) -> bool:
        return accuracy_reward(messages=_messages(completion), ground_truth=gold).score >= 0.5

    return {"math_reward": grade_math, "accuracy_reward": grade_accuracy}


def math_verify_grader() -> dict[str, Grader]:
    try:
        from math_verify import parse, verify
    except ImportError:
        return {}

    def grade(gold: str, completion: str) -> bool:
        # A bare gold such as `\frac{1}{2}` needs math delimiters for math-verify's LaTeX
        # extraction; one already boxed or delimited is passed as it is.
        wrapped = gold if "$" in gold or "\\boxed" in gold else f"${gold}$"
        return bool(verify(parse(wrapped), parse(completion)))

    def grade_open_r1(gold: str, completion: str) -> bool:
        # The open-r1 / TRL GRPO recipe's documented configuration: the gold parsed with
        # the defaults, the answer only from LaTeX with boxes first and no unanchored match.
        from math_verify import LatexExtractionConfig, LatexNormalizationConfig

        normalization = LatexNormalizationConfig(
            nits=False, malformed_operators=False, basic_latex=True, equations=True,
            boxed="all", units=True,
        )  # fmt: skip
        config = LatexExtractionConfig(
            normalization_config=normalization,
            boxed_match_priority=0,
            try_extract_without_anchor=False,
        )
        parsed_gold = parse(gold if "$" in gold or "\\boxed" in gold else f"${gold}$")
        answer = parse(completion, extraction_config=[config], extraction_mode="first_match")
        return bool(parsed_gold) and bool(verify(parsed_gold, answer))

    return {"math-verify": grade, "open-r1 recipe": grade_open_r1}


def file_grader(name: str, path: Path, function: str) -> dict[str, Grader]:
    """A peer's grader loaded from its source file (e.g. verl's
    `verl/utils/reward_score/math_reward.py`, from its wheel): `function(completion, gold)`
    returning a score, 1.0 meaning accepted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"peer_{name}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    score = getattr(module, function)
    return {name: lambda gold, completion: float(score(completion, gold)) >= 1.0}


def run(name: str, grader: Grader, cases: list[dict[str, Any]]) -> Tally:
    tally = Tally(name)
    for case in cases:
        start = time.perf_counter_ns()
        try:
            verdict = grader(case["gold"], case["completion"])
        except Exception as exc:  # a grader that raises rejects; the error is reported
            verdict = False
            tally.errors[case["id"]] = f"{type(exc).__name__}: {exc}"[:200]
        tally.micros.append((time.perf_counter_ns() - start) / 1000)
        tally.accepted[case["id"]] = verdict
    return tally


def wrong_ids(tally: Tally, cases: list[dict[str, Any]]) -> list[str]:
    return [c["id"] for c in cases if tally.accepted[c["id"]] != c["correct"]]


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:.1%} ({part}/{whole})" if whole else "n/a"


def summary_table(tallies: list[Tally], cases: list[dict[str, Any]]) -> list[str]:
    right = [c for c in cases if c["correct"]]
    wrong = [c for c in cases if not c["correct"]]
    probes = [c for c in cases if c["probe"]]
    rows = [
        "| grader | accuracy | wrong → accepted (FP) | right → rejected (FN) "
        "| probes accepted | errors | median µs/call |",
        "|---|---|---|---|---|---|---|",
    ]
    for t in tallies:
        correct = sum(t.accepted[c["id"]] == c["correct"] for c in cases)
        fp = sum(t.accepted[c["id"]] for c in wrong)
        fn = sum(not t.accepted[c["id"]] for c in right)
        probe_fp = sum(t.accepted[c["id"]] for c in probes)
        rows.append(
            f"| {t.name} | {_rate(correct, len(cases))} | {_rate(fp, len(wrong))} "
            f"| {_rate(fn, len(right))} | {_rate(probe_fp, len(probes))} | {len(t.errors)} "
            f"| {statistics.median(t.micros):,.0f} |"
        )
    return rows


def ratio_line(tallies: list[Tally]) -> str:
    """Each grader's median time per call over the first's (math_reward), same run."""
    base = statistics.median(tallies[0].micros)
    ratios = ", ".join(f"{t.name} {statistics.median(t.micros) / base:.2f}x" for t in tallies[1:])
    return f"\nmedian time per call relative to {tallies[0].name}: {ratios}"


def category_table(tallies: list[Tally], cases: list[dict[str, Any]]) -> list[str]:
    categories = sorted({c["category"] for c in cases})
    header = " | ".join(t.name for t in tallies)
    rows = [
        f"| category | cases (right/wrong) | {header} |",
        "|---|---|" + "---|" * len(tallies),
    ]
    for category in categories:
        group = [c for c in cases if c["category"] == category]
        n_right = sum(c["correct"] for c in group)
        cells = []
        for t in tallies:
            ok = sum(t.accepted[c["id"]] == c["correct"] for c in group)
            cells.append(f"{ok}/{len(group)}")
        rows.append(
            f"| {category} | {len(group)} ({n_right}/{len(group) - n_right}) | "
            + " | ".join(cells)
            + " |"
        )
    return rows


def failure_lines(tallies: list[Tally], cases: list[dict[str, Any]]) -> list[str]:
    by_id = {c["id"]: c for c in cases}
    lines: list[str] = []
    for t in tallies:
        failed = wrong_ids(t, cases)
        lines.append(f"\n{t.name}: {len(failed)} failing")
        for case_id in failed:
            case = by_id[case_id]
            kind = "accepted a wrong answer" if t.accepted[case_id] else "rejected a right one"
            probe = " [probe]" if case["probe"] else ""
            error = f" ({t.errors[case_id]})" if case_id in t.errors else ""
            lines.append(f"  {case_id}: {kind}{probe}; gold {case['gold']!r}{error}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the JSONL corpus")
    parser.add_argument("--failures", action="store_true", help="list failing case ids")
    parser.add_argument(
        "--grader", action="append", help="only this grader (repeatable); default: all"
    )
    parser.add_argument(
        "--verl", type=Path, help="verl's verl/utils/reward_score/math_reward.py, to compare"
    )
    args = parser.parse_args()

    cases = load_corpus(args.corpus)
    graders = {**rewardkit_graders(), **math_verify_grader()}
    if args.verl:
        graders.update(file_grader("verl MATH compute_score", args.verl, "compute_score"))
    if args.grader:
        unknown = sorted(set(args.grader) - set(graders))
        if unknown:
            parser.error(f"unknown grader(s) {unknown}; available: {sorted(graders)}")
        graders = {name: graders[name] for name in args.grader}
    if "math-verify" not in graders and not args.grader:
        print("(math-verify not importable: its column is left out)\n")

    tallies = [run(name, grader, cases) for name, grader in graders.items()]
    n_right = sum(c["correct"] for c in cases)
    n_probes = sum(c["probe"] for c in cases)
    print(
        f"{args.corpus.name}: {len(cases)} cases, {n_right} right answers, "
        f"{len(cases) - n_right} wrong ({n_probes} exploit probes)\n"
    )
    print("\n".join(summary_table(tallies, cases)))
    print(ratio_line(tallies))
    print("\naccuracy per category (cases graded correctly / cases)\n")
    print("\n".join(category_table(tallies, cases)))
    if args.failures:
        print("\n".join(failure_lines(tallies, cases)))


if __name__ == "__main__":
    main()
