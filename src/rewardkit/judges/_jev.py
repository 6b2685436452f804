"""Run a JEV judge TOML (`judge = "jev"`) through TypeSafe's `system_one` API.

The SDK (`typesafe_sdk`, the `jev` extra) is imported only when a JEV judge runs. The
judge's files and reference, confined to the workspace as for LLM judges, are sent as one
text state; each criterion is one question: a binary criterion a `Noul` (yes when the
probability is at least 0.5), a rubric a `Score` over its levels, normalized as a rubric.
Batched mode asks every question in one call, individual mode one call per criterion,
concurrently; samples repeat the calls and are combined like LLM samples.

Nothing here raises: a missing extra or key, an SDK error, a timeout or media in the input
become `error` (or `timeout`) outcomes with the reason, and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._outcome import JudgeRun, Outcome
from rewardkit.judges._definition import CriterionDef, JudgeDefinition
from rewardkit.judges._inputs import paths_blocks
from rewardkit.judges._parse import Verdict, combine_samples, score
from rewardkit.judges._toml_judge import DefinedJudge, criterion_extra, failed_run, verdict_outcome
from rewardkit.judges.formats import Rubric

__all__ = ["API_KEY_ENV", "JevJudge"]

API_KEY_ENV = "TYPESAFE_API_KEY"
_EXTRA = "the jev judge needs the 'jev' extra; install it with: pip install 'rewardkit[jev]'"


class _MediaInput(ValueError):
    """An input file is an image: the JEV judge reads text only."""


@dataclass(frozen=True)
class _Call:
    """One `system_one` call: a verdict per criterion asked, or why there is none."""

    criteria: tuple[CriterionDef, ...]
    verdicts: dict[str, Verdict | str]
    """A verdict, or the reason there is none, by criterion name."""
    timed_out: bool = False
    output: str = ""


@dataclass(frozen=True, kw_only=True)
class JevJudge(DefinedJudge):
    """A JEV judge TOML, ready to run against a workspace."""

    async def evaluate(self, workspace: Path, client: Any = None) -> JudgeRun:
        """Grade `workspace`: every sample's calls at once; one outcome per criterion."""
        d = self.definition
        started = time.perf_counter()
        try:
            sdk: Any = importlib.import_module("typesafe_sdk")
        except ImportError:
            return self._all_failed(f"{d.source.name}: {_EXTRA}", started)
        if not os.environ.get(API_KEY_ENV):
            return self._all_failed(
                f"{d.source.name}: the jev judge needs {API_KEY_ENV} in the environment; set "
                f"it in the verifier's environment or pass --judge-env {API_KEY_ENV}=... "
                f"(no call was made)",
                started,
            )
        groups = [d.criteria] if d.mode == "batched" else [(c,) for c in d.criteria]
        try:
            states = [_state(workspace, d, group) for group in groups]
        except _MediaInput as exc:
            return self._all_failed(f"{d.source.name}: {exc}", started)
        except (OSError, ValueError) as exc:
            return self._all_failed(f"could not build the judge's input: {exc}", started)
        try:
            jev = sdk.AsyncTypeSafeClient(timeout=float(d.timeout))
        except Exception as exc:  # a bad key or setting: record, don't crash
            return self._all_failed(f"could not start the jev client: {_describe(exc)}", started)
        try:
            calls = await asyncio.gather(
                *(
                    self._ask(sdk, jev, state, group)
                    for _ in range(d.samples)
                    for state, group in zip(states, groups, strict=True)
                )
            )
        finally:
            await _close(jev)
        outcomes = tuple(self._outcome(c, calls, started) for c in d.criteria)
        detail: dict[str, Any] = {
            "judge": d.details(),
            "judge_output": "\n".join(c.output for c in calls),
        }
        failures = sorted({v for c in calls for v in c.verdicts.values() if isinstance(v, str)})
        if failures:
            detail["warnings"] = failures
        return JudgeRun(outcomes=outcomes, detail=detail)

    async def _ask(
        self, sdk: Any, jev: Any, state: str, criteria: tuple[CriterionDef, ...]
    ) -> _Call:
        questions = {c.name: _question(sdk, c) for c in criteria}
        try:
            response = await jev.system_one(state, questions, model=self.definition.model)
        except sdk.TypeSafeAPITimeoutError:
            reason = f"judge timed out after {self.definition.timeout:g}s"
            return _Call(criteria, dict.fromkeys((c.name for c in criteria), reason), True)
        except Exception as exc:  # any SDK failure is this judge's, not the run's
            reason = f"the jev call failed: {_describe(exc)}"
            return _Call(criteria, dict.fromkeys((c.name for c in criteria), reason))
        answers = getattr(response, "answers", None) or {}
        verdicts = {c.name: _verdict(c, answers.get(c.name)) for c in criteria}
        return _Call(criteria, verdicts, output=_dump(response))

    def _outcome(self, criterion: CriterionDef, calls: Sequence[_Call], started: float) -> Outcome:
        mine = [c for c in calls if criterion in c.criteria]
        answers = [c.verdicts[criterion.name] for c in mine]
        verdict = combine_samples([a if isinstance(a, Verdict) else None for a in answers])
        ms = round((time.perf_counter() - started) * 1000, 3)
        model = self.definition.model
        if verdict is not None:
            return verdict_outcome(criterion, verdict, model=model, duration_ms=ms)
        return Outcome(
            name=criterion.name,
            status="timeout" if any(c.timed_out for c in mine) else "error",
            weight=criterion.weight,
            description=criterion.description,
            error=next((a for a in answers if isinstance(a, str)), "no answer"),
            model=model,
            duration_ms=ms,
            extra=criterion_extra(criterion),
        )

    def _all_failed(self, message: str, started: float) -> JudgeRun:
        ms = round((time.perf_counter() - started) * 1000, 3)
        return failed_run(self.definition, message, duration_ms=ms)


def _state(workspace: Path, d: JudgeDefinition, criteria: tuple[CriterionDef, ...]) -> str:
    """The text the questions are asked about: the files, then the reference."""
    files = criteria[0].files if d.mode == "individual" and criteria[0].files else d.files
    parts = [_text(paths_blocks(workspace, list(files)))]
    if d.reference:
        parts.append("## Reference\n" + _text(paths_blocks(workspace, [d.reference])))
    return "\n\n".join(p for p in parts if p)


def _text(blocks: list[dict[str, Any]]) -> str:
    texts: list[str] = []
    for block in blocks:
        if block.get("type") != "text":
            label = texts[-1].removeprefix("--- ").removesuffix(" ---") if texts else "a file"
            raise _MediaInput(f"the jev judge only supports text input ({label} is an image)")
        texts.append(str(block["text"]))
    return "\n\n".join(texts)


def _question(sdk: Any, criterion: CriterionDef) -> Any:
    if isinstance(criterion.format, Rubric):
        return sdk.Score(instructions=criterion.description, criteria=list(criterion.format.levels))
    return sdk.Noul(instructions=criterion.description)


def _verdict(criterion: CriterionDef, answer: Any) -> Verdict | str:
    """The criterion's verdict from its answer, or why the answer is unusable."""
    name = criterion.name
    if answer is None:
        return f"the jev response has no answer for {name!r}"
    try:
        if isinstance(criterion.format, Rubric):
            raw = answer.score
            return Verdict(value=score(criterion, raw), raw=raw, reasoning="")
        raw = float(answer.noul)
    except (AttributeError, TypeError, ValueError) as exc:
        return f"the jev answer for {name!r} is not usable: {exc}"
    value = 1.0 if raw >= 0.5 else 0.0
    return Verdict(value=1.0 - value if criterion.negate else value, raw=raw, reasoning="")


def _dump(response: Any) -> str:
    dump = getattr(response, "model_dump_json", None)
    try:
        return str(dump()) if callable(dump) else str(response)
    except Exception:  # the output is informational; never fail on it
        return repr(response)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


async def _close(jev: Any) -> None:
    close = getattr(jev, "aclose", None)
    if callable(close):
        with contextlib.suppress(Exception):  # closing must not cost the scores received
            await close()
