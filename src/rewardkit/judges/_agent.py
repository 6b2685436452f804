"""Run an agent judge TOML (`judge = "claude-code"`, `"codex"` or `"fx"`): the CLI explores the
workspace and answers the criteria as JSON.

How a run goes:
- The CLI is looked up on PATH and never installed (a missing one is an error outcome that
  says how to install it); a pinned `[judge].version` must match `<cli> --version`.
- The working directory is `[judge].cwd` inside the workspace (one outside it is refused),
  else the workspace. With `isolated = true` every call runs in its own throw-away view of
  the workspace (`isolated_view`), and the working directory is remapped into it.
- Calls: one per sample in batched mode, one per criterion (and the guard) per sample in
  individual mode. Isolated calls run concurrently; calls of a judge that is not isolated
  run one after another, so they never share the workspace with each other. Every CLI
  process holds a permit of the run's agent limiter (`--max-concurrent-agent`), so that
  bounds the CLIs running at once whatever the judges' `samples` and `mode`.
- Each call gets up to 3 attempts for a CLI failure (non-zero exit, a reported error, no
  answer) or an answer that does not parse. A call that reaches `[judge].timeout` is killed
  with its whole process group and not retried. Either way, the criteria it was grading
  become `error` or `timeout` outcomes with the reason, and the run goes on.
- Every attempt's stdout and stderr (secrets redacted), and the CLI's own session log when
  it is found, are saved in `$REWARDKIT_LOG_DIR` (or `/logs/verifier` when `/logs` exists)
  and listed in the details under `judge_logs`.

The shared-workspace guard (`check_shared_workspace`) runs before anything else.

Over 350 lines: one agent judge's run, step by step as listed above.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import JudgeRun, Outcome
from rewardkit.engine._isolation import isolated_view
from rewardkit.engine._plan import Plan
from rewardkit.judges._definition import CriterionDef
from rewardkit.judges._parse import ReplyError, Verdict, combine_samples, guard_detail, parse_reply
from rewardkit.judges._prompt import response_schema, system_prompt
from rewardkit.judges._toml_judge import DefinedJudge, criterion_extra, failed_run, verdict_outcome
from rewardkit.judges.agents import AGENT_BACKENDS, AgentBackend
from rewardkit.judges.agents._base import (
    Prepared,
    SetupError,
    attempt_log,
    log_dir,
    prepare_agent,
    redact,
    run_cli,
    save_log,
)
from rewardkit.models._usage import Usage

__all__ = ["AgentJudge", "check_shared_workspace"]

ATTEMPTS = 3
_SEMVER = re.compile(r"\d+\.\d+\.\d+[0-9A-Za-z.+-]*")
_TAIL = 300


@dataclass(frozen=True)
class _Call:
    """One call of the CLI (after its attempts): a verdict per criterion, or why not."""

    criteria: tuple[CriterionDef, ...]
    verdicts: tuple[Verdict, ...] | None
    error: str | None
    timed_out: bool
    text: str
    usage: Usage
    logs: tuple[str, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class _Setup:
    """What every call of one judge run shares."""

    exe: str
    prepared: Prepared
    scratch: Path
    workspace: Path
    cwd: Path
    limiter: AbstractAsyncContextManager[Any] | None = None
    """Held around each call (the run's agent semaphore); None: no limit."""

    def permit(self) -> AbstractAsyncContextManager[Any]:
        return self.limiter if self.limiter is not None else nullcontext()


@dataclass(frozen=True, kw_only=True)
class AgentJudge(DefinedJudge):
    """An agent judge TOML, ready to run against a workspace."""

    @property
    def backend(self) -> AgentBackend:
        return AGENT_BACKENDS[self.definition.judge]

    async def evaluate(
        self,
        workspace: Path,
        client: object = None,
        *,
        limiter: AbstractAsyncContextManager[Any] | None = None,
    ) -> JudgeRun:
        """Grade `workspace`; never raises for a CLI failure (it becomes an outcome).

        `limiter` (the run's agent semaphore) is held around every CLI process: the
        version check, and each call with its isolated view and MCP setup.
        """
        from rewardkit.models.batches._hook import collecting

        d = self.definition
        started = time.perf_counter()
        if collecting():
            return self._all_failed("not run while a batch run collects its model calls", started)
        exe = shutil.which(self.backend.executable)
        if exe is None:
            return self._all_failed(
                f"{d.judge} judge ({d.source.name}): the `{self.backend.executable}` CLI was "
                f"not found on PATH. {self.backend.install_hint}. rewardkit never downloads "
                f"agent CLIs at run time.",
                started,
            )
        with tempfile.TemporaryDirectory(prefix="rewardkit-agent-") as tmp:
            try:
                setup = await self._setup(exe, workspace, Path(tmp), limiter)
            except SetupError as exc:
                return self._all_failed(f"{d.judge} judge ({d.source.name}): {exc}", started)
            jobs = [(s, group) for s in range(d.samples) for group in self._groups()]
            if d.isolated:
                calls = list(await asyncio.gather(*(self._isolated(setup, *j) for j in jobs)))
            else:
                calls = [await self._shared(setup, *j) for j in jobs]
        return self._run(calls, started)

    async def _setup(
        self,
        exe: str,
        workspace: Path,
        scratch: Path,
        limiter: AbstractAsyncContextManager[Any] | None,
    ) -> _Setup:
        d = self.definition
        root = workspace.resolve()
        cwd = (root / d.cwd).resolve() if d.cwd else root
        if not cwd.is_relative_to(root):
            raise SetupError(
                f"[judge].cwd {d.cwd!r} resolves to {cwd}, outside the workspace {root}. An "
                f"agent judge runs inside the workspace; set cwd to a directory in it."
            )
        if not cwd.is_dir():
            raise SetupError(f"[judge].cwd {d.cwd!r} is not a directory in the workspace {root}.")
        prepared = prepare_agent(self.backend, d, scratch)  # the environment's allow-list
        if d.version:
            async with limiter if limiter is not None else nullcontext():
                await self._check_version(exe, prepared, scratch)
        return _Setup(
            exe=exe, prepared=prepared, scratch=scratch, workspace=root, cwd=cwd, limiter=limiter
        )

    async def _check_version(self, exe: str, prepared: Prepared, scratch: Path) -> None:
        want = (self.definition.version or "").removeprefix("v")
        try:
            result = await run_cli([exe, "--version"], cwd=scratch, env=prepared.env, timeout=30)
        except OSError as exc:
            raise SetupError(f"could not run `{exe} --version`: {exc}") from None
        found = _SEMVER.search(result.stdout)
        if found is None or found.group() != want:
            got = found.group() if found else repr(result.stdout.strip()[:80])
            raise SetupError(
                f"[judge].version pins {self.backend.executable} {want}, but `{exe} --version` "
                f"reports {got}. Install that version (rewardkit never installs CLIs) or "
                f"remove `version`."
            )

    def _groups(self) -> list[tuple[CriterionDef, ...]]:
        d = self.definition
        asked = (*d.criteria, d.guard_criterion) if d.guard_criterion else d.criteria
        return [asked] if d.mode == "batched" else [(c,) for c in asked]

    async def _shared(
        self, setup: _Setup, sample: int, criteria: tuple[CriterionDef, ...]
    ) -> _Call:
        async with setup.permit():
            return await self._call(setup, setup.workspace, setup.cwd, sample, criteria)

    async def _isolated(
        self, setup: _Setup, sample: int, criteria: tuple[CriterionDef, ...]
    ) -> _Call:
        async with setup.permit():  # the view is made only when the call may start
            view = isolated_view(setup.workspace)
            root = await asyncio.to_thread(view.__enter__)
            try:
                cwd = root / setup.cwd.relative_to(setup.workspace)
                return await self._call(setup, root, cwd, sample, criteria)
            finally:
                await asyncio.to_thread(view.__exit__, None, None, None)

    async def _call(
        self, setup: _Setup, root: Path, cwd: Path, sample: int, criteria: tuple[CriterionDef, ...]
    ) -> _Call:
        d, backend, env = self.definition, self.backend, setup.prepared.env
        label = f"{'batched' if d.mode == 'batched' else criteria[0].name}-{sample + 1}"
        scratch = setup.scratch / f"{label}-{uuid.uuid4().hex[:8]}"
        scratch.mkdir()
        warnings = [w async for w in self._register_mcp(setup, cwd)]
        prompt = system_prompt(d, criteria)
        if d.atif_trajectory:
            prompt += f"\n\nThe agent's trajectory is stored at: {root / d.atif_trajectory}"
        schema = response_schema(criteria)
        usage, logs, error, text = Usage(), [], "no attempt was made", ""
        for attempt in range(1, ATTEMPTS + 1):
            inv = backend.command(d, setup.exe, prompt, schema, cwd, scratch)
            try:
                result = await run_cli(
                    inv.argv,
                    cwd=cwd,
                    env={**env, **inv.env},
                    timeout=float(d.timeout),
                    stdin=inv.stdin,
                )
            except OSError as exc:  # not retried: the next attempt would fail the same way
                error = f"could not start {setup.exe}: {exc}"
                break
            logs += save_log(
                f"process.{d.judge}.{label}.{attempt}", "txt", attempt_log(inv, result, env)
            )
            if result.timed_out:
                error = f"judge timed out after {d.timeout:g}s"
                return _Call(criteria, None, error, True, text, usage, tuple(logs), tuple(warnings))
            reply = backend.parse(result, inv)
            usage, text = usage + reply.usage, reply.text or text
            if reply.session_id:
                logs_, warns = self._native_log(reply.session_id, setup.prepared, label)
                logs += logs_
                warnings += warns
            if result.returncode != 0:
                tail = redact(result.stderr.strip()[-_TAIL:], env)
                error = f"`{backend.executable}` exited with code {result.returncode}: {tail}"
                continue
            if reply.error is not None:
                error = redact(reply.error, env)
                continue
            try:
                verdicts = parse_reply(reply.text, criteria)
            except ReplyError as exc:
                error = f"unparsable answer: {exc}"
                continue
            text = redact(text, env)
            return _Call(criteria, verdicts, None, False, text, usage, tuple(logs), tuple(warnings))
        else:
            error = f"{d.judge} judge failed after {ATTEMPTS} attempts: {error}"
        error, text = redact(error, env), redact(text, env)  # an answer may echo a secret
        return _Call(criteria, None, error, False, text, usage, tuple(logs), tuple(warnings))

    async def _register_mcp(self, setup: _Setup, cwd: Path) -> AsyncIterator[str]:
        env = setup.prepared.env
        for argv in self.backend.register_mcp(self.definition, setup.exe, setup.prepared, cwd):
            try:
                result = await run_cli(argv, cwd=cwd, env=env, timeout=60)
            except OSError as exc:
                yield f"could not register MCP server: {exc}"
                continue
            output = result.stdout + result.stderr
            if result.returncode != 0 and "already exists" not in output:
                yield f"`{' '.join(argv[1:4])} ...` failed: {redact(output.strip()[-_TAIL:], env)}"

    def _native_log(
        self, session: str, prepared: Prepared, label: str
    ) -> tuple[list[str], list[str]]:
        if log_dir() is None:
            return [], []
        found = self.backend.native_log(session, prepared)
        if found is None:
            return [], [
                f"could not find the native {self.definition.judge} log of session {session}"
            ]
        return save_log(
            f"trajectory.{self.definition.judge}.{label}", "jsonl", found.read_text()
        ), []

    def _run(self, calls: Sequence[_Call], started: float) -> JudgeRun:
        d = self.definition
        per = len(calls) // d.samples
        samples = [calls[i * per : (i + 1) * per] for i in range(d.samples)]
        ms = round((time.perf_counter() - started) * 1000, 3)
        outcomes = tuple(self._outcome(c, samples, ms) for c in d.criteria)
        detail: dict[str, Any] = {"judge": d.details(), "judge_output": _output(calls, d.samples)}
        usage = sum((c.usage for c in calls), Usage())
        if usage.as_dict() != Usage().as_dict():
            detail["usage"] = {**usage.as_dict(), "models": {d.model or d.judge: usage.as_dict()}}
        logs = [log for c in calls for log in c.logs]
        if logs:
            detail["judge_logs"] = logs
        cap = None
        guard = d.guard_criterion
        if guard is not None:
            verdict, error = _combined(guard, samples, upper=True)
            detail["guard"] = guard_detail(verdict, error)
            if d.guard == "penalize" and detail["guard"].get("flagged"):
                cap = 0.0  # a flagged submission scores at most 0
        warnings = _unique(w for c in calls for w in c.warnings)
        warnings += _unique(c.error for c in calls if c.error is not None)
        if warnings:
            detail["warnings"] = warnings
        return JudgeRun(outcomes=outcomes, detail=detail, cap=cap)

    def _outcome(
        self, criterion: CriterionDef, samples: Sequence[Sequence[_Call]], ms: float
    ) -> Outcome:
        model = self.definition.model or self.definition.judge
        verdict, error = _combined(criterion, samples)
        if verdict is not None:
            return verdict_outcome(criterion, verdict, model=model, duration_ms=ms)
        mine = [c for calls in samples for c in calls if criterion in c.criteria]
        return Outcome(
            name=criterion.name,
            status="timeout" if any(c.timed_out for c in mine) else "error",
            weight=criterion.weight,
            description=criterion.description,
            error=error or "no answer",
            model=model,
            duration_ms=ms,
            extra=criterion_extra(criterion),
        )

    def _all_failed(self, message: str, started: float) -> JudgeRun:
        ms = round((time.perf_counter() - started) * 1000, 3)
        return failed_run(self.definition, message, duration_ms=ms)


def _combined(
    criterion: CriterionDef, samples: Sequence[Sequence[_Call]], *, upper: bool = False
) -> tuple[Verdict | None, str | None]:
    votes: list[Verdict | None] = []
    errors: list[str] = []
    for calls in samples:
        call = next((c for c in calls if criterion in c.criteria), None)
        if call is None or call.verdicts is None:
            votes.append(None)
            if call is not None and call.error is not None:
                errors.append(call.error)
            continue
        votes.append(call.verdicts[call.criteria.index(criterion)])
    verdict = combine_samples(votes, upper=upper)
    return verdict, (errors[0] if verdict is None and errors else None)


def _output(calls: Sequence[_Call], samples: int) -> str:
    """The answers, labelled per sample when there are several (as RewardKit does)."""
    texts = [c.text for c in calls]
    if samples == 1:
        return "\n".join(texts)
    per = len(calls) // samples
    return "\n".join(
        f"--- sample {i + 1} ---\n" + "\n".join(texts[i * per : (i + 1) * per])
        for i in range(samples)
    )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def check_shared_workspace(plans: Sequence[Plan], *, max_concurrent_agent: int, yolo: bool) -> None:
    """Refuse a run where an agent judge may write to the workspace while another agent
    judge uses it.

    A judge that is not isolated runs its own calls one after another, so on its own it is
    safe whatever its `samples` and `mode` (RewardKit refuses those too). Two agent judges
    may overlap when `max_concurrent_agent` is not 1; then every one of them that is not
    `isolated` is named.

    Raises:
        ConfigError: unless `yolo`.
    """
    agents = [
        leaf for plan in plans for leaf in plan.leaves() if isinstance(leaf.judge, AgentJudge)
    ]
    if yolo or len(agents) < 2 or max_concurrent_agent == 1:
        return
    shared = [leaf for leaf in agents if not leaf.judge.definition.isolated]
    if shared:
        names = ", ".join(str(leaf.source) for leaf in shared)
        raise ConfigError(
            f"{names}: not isolated, so it can write to the workspace while another of this "
            f"run's {len(agents)} agent judges uses it. Set `isolated = true` in its [judge] "
            f"table, run agents one at a time (--max-concurrent-agent 1), or pass --yolo "
            f"(yolo=True) to run anyway."
        )
