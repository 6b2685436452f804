"""`rewardkit check --estimate`: the model calls, tokens and cost a run will take, projected
before it starts.

Calls are counted exactly from the plan (samples, batched or individual mode, the guard,
cases). Tokens are estimated, never measured: a prompt is ~4 characters a token; a judge
TOML's prompt is rendered as the run renders it (against `workspace` when given, else with
the judged files missing, so their size is not counted); an eval.yaml judge's prompt is its
template plus the case's files as the run caps them, by their size on disk. Each reply is
taken as `OUTPUT_TOKENS` tokens per criterion it answers. Re-asks after unusable replies,
retries and the reply cache are not counted. Cost uses the price table (`_prices`,
`REWARDKIT_PRICES`); a model with no known price has no cost, and the total counts only
priced calls.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.engine._plan import Plan
from rewardkit.evalyaml._suite import EvalSuite

__all__ = [
    "CHARS_PER_TOKEN",
    "OUTPUT_TOKENS",
    "describe_estimate",
    "estimate_plan",
    "estimate_suite",
]

CHARS_PER_TOKEN = 4
OUTPUT_TOKENS = 150
"""Reply tokens assumed per criterion answered (a verdict and a sentence or two)."""

ASSUMES = (
    f"prompt tokens = characters / {CHARS_PER_TOKEN}; {OUTPUT_TOKENS} reply tokens per "
    "criterion answered; every call answered first time (no re-asks, retries or cache hits); "
    "cost from the price table (REWARDKIT_PRICES overrides it), none for an unpriced model"
)


@dataclass(frozen=True)
class _Line:
    judge: str
    model: str
    calls: int
    input_tokens: int
    output_tokens: int

    def data(self, table: Any) -> dict[str, Any]:
        from rewardkit.models import Usage
        from rewardkit.models._prices import price

        usage = Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens)
        cost = price(usage, self.model, table).cost_usd
        return {
            "judge": self.judge,
            "model": self.model,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": cost,
        }


def estimate_plan(plan: Plan, workspace: Path | None = None) -> dict[str, Any]:
    """The estimate for a tests directory's LLM judges (`workspace`: the files they judge).

    Raises:
        ConfigError: the price file (`REWARDKIT_PRICES`) is unusable.
    """
    from rewardkit.judges._prompt import plan_requests

    lines = []
    with tempfile.TemporaryDirectory() as empty:
        root = workspace if workspace is not None else Path(empty)
        for leaf in plan.leaves():
            definition = getattr(leaf.judge, "definition", None)
            if leaf.kind != "llm" or definition is None:
                continue
            try:
                requests = plan_requests(definition, root)
            except (OSError, ValueError):
                requests = []
            chars = sum(len(json.dumps(r.messages, ensure_ascii=False)) for r in requests)
            answers = sum(len(r.criteria) for r in requests)
            samples = definition.samples
            lines.append(
                _Line(
                    judge=str(definition.source.name),
                    model=definition.judge,
                    calls=len(requests) * samples,
                    input_tokens=chars // CHARS_PER_TOKEN * samples,
                    output_tokens=answers * OUTPUT_TOKENS * samples,
                )
            )
    files = (
        "the workspace's files"
        if workspace is not None
        else "the judged files left out (no workspace: add their characters / 4 per call)"
    )
    return _document(lines, 1, f"one run; prompts rendered with {files}")


def estimate_suite(suite: EvalSuite) -> dict[str, Any]:
    """The estimate for an eval.yaml's LLM judges over its dataset's cases.

    Raises:
        ConfigError: the price file (`REWARDKIT_PRICES`) is unusable.
    """
    from rewardkit.evalyaml._llm_judge import (
        MAX_FILE_CHARS,
        MAX_SUBMISSION_CHARS,
        judge_model,
        template_text,
    )

    cases = _cases(suite.dataset)
    sizes = [min(_size(c, MAX_FILE_CHARS), MAX_SUBMISSION_CHARS) for c in cases] or [0]
    submission = sum(sizes) / len(sizes)
    n = max(len(cases), 1)
    lines = []
    for judge in suite.judges:
        if judge.kind != "llm":
            continue
        try:
            template, _ = template_text(judge.config, suite.path.parent, judge.name)
        except OSError:
            template = ""
        per_call = (len(template) + 400 + submission) / CHARS_PER_TOKEN  # 400: system prompt
        calls = judge.samples * n
        lines.append(
            _Line(
                judge=judge.name,
                model=judge_model(judge),
                calls=calls,
                input_tokens=round(per_call * calls),
                output_tokens=OUTPUT_TOKENS * calls,
            )
        )
    where = f"{len(cases)} case(s) in {suite.dataset}" if cases else "1 case (no dataset found)"
    return _document(lines, n, f"{where}; each case's files counted by size, as capped")


def _document(lines: list[_Line], cases: int, scope: str) -> dict[str, Any]:
    from rewardkit.models._prices import load_prices

    table = load_prices()
    judges = [line.data(table) for line in lines]
    costs = [j["cost_usd"] for j in judges if j["cost_usd"] is not None]
    return {
        "cases": cases,
        "calls": sum(j["calls"] for j in judges),
        "input_tokens": sum(j["input_tokens"] for j in judges),
        "output_tokens": sum(j["output_tokens"] for j in judges),
        "cost_usd": sum(costs) if costs else None,
        "unpriced_models": sorted({j["model"] for j in judges if j["cost_usd"] is None}),
        "judges": judges,
        "assumes": f"{scope}; {ASSUMES}",
    }


def describe_estimate(estimate: dict[str, Any]) -> str:
    """The estimate as lines for the terminal."""
    lines = ["estimate (before any call):"]
    for j in estimate["judges"]:
        cost = "price unknown" if j["cost_usd"] is None else f"${j['cost_usd']:.4f}"
        lines.append(
            f"  {j['judge']} ({j['model']}): {j['calls']} calls, ~{j['input_tokens']} input + "
            f"~{j['output_tokens']} output tokens, {cost}"
        )
    total = estimate["cost_usd"]
    cost = "unknown" if total is None else f"~${total:.4f}"
    unpriced = estimate["unpriced_models"]
    note = f" (not counting {', '.join(unpriced)}: no price)" if unpriced and total else ""
    lines.append(f"  total: {estimate['calls']} model calls, cost {cost}{note}")
    lines.append(f"  assumes: {estimate['assumes']}")
    return "\n".join(lines)


def _cases(dataset: Path | None) -> list[Path]:
    if dataset is None or not dataset.is_dir():
        return []
    return sorted(p for p in dataset.iterdir() if p.is_dir())


def _size(case: Path, per_file: int) -> int:
    """The characters of `case`'s files as the submission shows them (each capped)."""
    return sum(min(_bytes(p), per_file) for p in _files(case))


def _files(case: Path) -> Iterable[Path]:
    for root, _, names in os.walk(case):
        for name in names:
            yield Path(root) / name


def _bytes(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
