"""Sending chat-completion requests: limited, retried, shared and cached.

One `ModelClient` serves a whole run. For every request it

1. answers from the opt-in cache when it can (no model call);
2. joins an identical request already in flight instead of sending a second one;
3. picks the provider (`_route`): OpenAI-compatible and Anthropic natively over one pool
   of connections (`_http`), every other model through LiteLLM; a required key that is
   missing fails the request before any call, naming the variable;
4. holds one permit of its model's limiter while a call is on the wire, so a run never has
   more than `max_concurrent` calls in flight per model, whatever the judges' modes; the
   limit halves on overload answers (429/503/529) and grows back as calls succeed (`_aimd`);
5. sends only what the model supports (`_capabilities`): the JSON schema,
   `reasoning_effort`, each extra parameter, images (the rest is reported in `dropped`);
6. retries transient failures within a `RetryPolicy`, and asks again (up to 3 calls) when
   the caller's parser rejects a reply with `ValueError`;
7. ends the whole request, retries and re-asks included, at its `timeout`, counted from its
   first call on the wire: a server that drips its answer cannot stretch it;
8. raises a `JudgeError` subclass once it gives up, never a provider exception.

Over 350 lines: the steps above share one request's state and accounting; each piece they call
(route, retry, cache, connections) is its own module already.
"""

from __future__ import annotations

import asyncio
import copy
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from rewardkit.core._errors import JudgeAuthError, JudgeBadReply, JudgeError
from rewardkit.models._aimd import AdaptiveLimiter, LimitStats
from rewardkit.models._cache import ReplyCache
from rewardkit.models._http import Http
from rewardkit.models._ledger import record
from rewardkit.models._prices import (
    BudgetReached,
    JudgeBudget,
    Spend,
    budget_reason,
    load_prices,
    price,
)
from rewardkit.models._provider import Answer, Prepared, Provider
from rewardkit.models._request import CompletionRequest, CompletionResult
from rewardkit.models._retry import (
    TRANSIENT,
    Failure,
    RetryPolicy,
    classify,
    judge_error,
    overloaded,
    redact,
)
from rewardkit.models._retry import retry_after as asked_wait
from rewardkit.models._route import Route, needs_litellm, route
from rewardkit.models._usage import Usage
from rewardkit.models.batches._hook import BatchHook

__all__ = ["ClientStats", "ModelClient"]

T = TypeVar("T")
DEFAULT_RETRY = RetryPolicy()


@dataclass
class ClientStats:
    """Counters for a run's summary."""

    calls: int = 0
    """Calls sent to providers (every retry counts)."""
    cache_hits: int = 0
    shared: int = 0
    """Requests that joined an identical one in flight."""
    in_flight: int = 0
    max_in_flight: int = 0
    limits: dict[str, LimitStats] = field(default_factory=dict)
    """Each model's adaptive limit: now, its lowest, and how often it backed off."""
    refused: int = 0
    """Calls not sent because the run's budget was spent."""
    batched: int = 0
    """Requests answered from a provider batch (`batches`)."""


@dataclass(frozen=True)
class _Reply:
    text: str
    usage: Usage
    attempts: int
    dropped: tuple[str, ...]


@dataclass
class _Deadline:
    """When a request must be done: `seconds` after its first call takes a permit (waiting for
    the model's limiter is other requests' time, not this one's)."""

    seconds: float
    at: float | None = None
    """The event loop's time it ends, once the first call started."""

    def start(self) -> float:
        """The event loop's time it ends, fixed by the first call."""
        if self.at is None:
            self.at = asyncio.get_running_loop().time() + self.seconds
        return self.at

    def left(self) -> float:
        """Seconds left (all of them before the first call)."""
        return self.seconds if self.at is None else self.at - asyncio.get_running_loop().time()


@dataclass
class _Shared:
    task: asyncio.Task[_Reply]
    waiters: int = 0


class ModelClient:
    """Sends a run's chat-completion requests; one per run and event loop.

    Args:
        max_concurrent: calls in flight at once per model, at most (0 = unlimited); the
            limit halves on overload answers and recovers by one per window of successes
            (see `AdaptiveLimiter`).
        cache_dir: a directory for the persistent reply cache (`None`: no cache).
        retry: how hard to retry; see `RetryPolicy`.
        spend: the run's budget, shared by its clients (default: `Spend.from_env()`,
            `REWARDKIT_MAX_COST_USD`); see `_prices`.

    Use it as `async with ModelClient(...) as client:`, or call `aclose()` before the loop
    ends, so its connections (and LiteLLM's sessions, when it was used) close with the loop
    that opened them.
    """

    def __init__(
        self,
        *,
        max_concurrent: int = 8,
        cache_dir: Path | str | None = None,
        retry: RetryPolicy = DEFAULT_RETRY,
        spend: Spend | None = None,
    ) -> None:
        if isinstance(max_concurrent, bool) or not isinstance(max_concurrent, int):
            raise TypeError(f"max_concurrent must be an int (got {max_concurrent!r})")
        if max_concurrent < 0:
            raise ValueError(
                f"max_concurrent must be ≥ 0, 0 meaning unlimited (got {max_concurrent})"
            )
        self.max_concurrent = max_concurrent
        self.retry = retry
        self.cache = ReplyCache(cache_dir) if cache_dir is not None else None
        self.stats = ClientStats()
        self._limiters: dict[str, AdaptiveLimiter] = {}
        self._inflight: dict[tuple[str, int, int], _Shared] = {}
        self._providers: dict[str, Provider] = {}
        self.prices = load_prices()
        self.spend = spend if spend is not None else Spend.from_env()
        """The run's budget (`REWARDKIT_MAX_COST_USD`): checked when a call takes its
        permit, counted as replies arrive; calls already in flight finish."""
        self._closed = False
        self._budgets: dict[str, Spend] = {}
        """Each judge's own budget, by judge."""
        self.batch = BatchHook.from_env()
        """In a batch run: where requests are written to, or answers read from."""

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the providers' connections (idempotent), and count this client's calls in
        the run's totals (`_ledger`)."""
        if not self._closed:
            self._closed = True
            record(self.stats)
        providers, self._providers = list(self._providers.values()), {}
        for provider in providers:
            await provider.aclose()

    def _provider(self, name: str) -> Provider:
        if name not in self._providers:
            if name == "litellm":
                from rewardkit.models._litellm_provider import LiteLLMProvider

                self._providers[name] = LiteLLMProvider()
            elif name == "anthropic":
                from rewardkit.models._anthropic import AnthropicProvider

                self._providers[name] = AnthropicProvider(self._http())
            else:
                from rewardkit.models._openai import OpenAIProvider

                self._providers[name] = OpenAIProvider(self._http())
        return self._providers[name]

    def _http(self) -> Http:
        """The one pooled HTTP client both native providers share."""
        for provider in self._providers.values():
            http = getattr(provider, "http", None)
            if isinstance(http, Http):
                return http
        return Http()

    async def complete(
        self,
        request: CompletionRequest,
        *,
        parse: Callable[[str], T] | None = None,
        budget: JudgeBudget | None = None,
    ) -> tuple[CompletionResult, T | None]:
        """Get a reply for `request`, and `parse(text)` of it when a parser is given.

        With `budget` (the asking judge's own), no call is sent once that judge has spent
        it, as with the run's budget (`BudgetReached`).

        A parser signals an unusable reply by raising `ValueError`; the request is then
        sent again, up to `retry.parse_attempts` calls in total. Other exceptions from the
        parser propagate unchanged. `request.timeout` bounds it all, retries and re-asks
        included. Identical requests in flight (same `key()`) share one call (and the first
        one's deadline), and each caller parses the reply with its own parser.

        Raises:
            JudgeError: a subclass saying why no reply was had (after retries);
                `JudgeAuthError` before any call when a required key is missing.
            ConfigError: the model needs LiteLLM and it is not installed (the message
                names the extra), or `REWARDKIT_TRANSPORT` or `REWARDKIT_MAX_ANSWER_MIB` is
                invalid.
        """
        started = time.perf_counter()
        cached = self._from_cache(request, parse)
        if cached is not None:
            self.stats.cache_hits += 1
            text, value = cached
            result = CompletionResult(
                text=text, usage=Usage(), attempts=0, cached=True, duration_ms=_ms(started)
            )
            return result, value
        usage, attempts, problem = Usage(), 0, ""
        deadline = _Deadline(request.timeout)
        spends = self._spends(budget)
        for ask in range(self.retry.parse_attempts):
            try:
                batched = self._batched(request, spends) if ask == 0 else None
                reply, own = batched or await self._ask(request, ask, deadline, spends)
            except JudgeError as exc:
                raise _with_totals(exc, attempts, usage) from None
            if own:
                usage, attempts = usage + reply.usage, attempts + reply.attempts
            try:
                value = parse(reply.text) if parse is not None else None
            except ValueError as exc:
                problem = str(exc) or type(exc).__name__
                continue
            if own and self.cache is not None:
                self.cache.put(request.key(), model=request.model, text=reply.text, usage=usage)
            result = CompletionResult(
                text=reply.text,
                usage=usage,
                attempts=attempts,
                shared=not own,
                duration_ms=_ms(started),
                dropped=reply.dropped,
            )
            return result, value
        asks = self.retry.parse_attempts
        raise _bad_reply(request, reply.text, problem, attempts, usage, asks)

    def _from_cache(
        self, request: CompletionRequest, parse: Callable[[str], T] | None
    ) -> tuple[str, T | None] | None:
        entry = self.cache.get(request.key()) if self.cache is not None else None
        if entry is None:
            return None
        try:
            return entry.text, parse(entry.text) if parse is not None else None
        except ValueError:  # the parser changed since: ask the model again
            return None

    def _spends(self, budget: JudgeBudget | None) -> tuple[Spend, ...]:
        """The run's budget, and the judge's own when it has one (made once per judge)."""
        if budget is None:
            return (self.spend,)
        if budget.judge not in self._budgets:
            self._budgets[budget.judge] = budget.spend()
        return self.spend, self._budgets[budget.judge]

    def _batched(
        self, request: CompletionRequest, spends: tuple[Spend, ...]
    ) -> tuple[_Reply, bool] | None:
        """The provider batch's answer to `request` (a re-ask goes live)."""
        answer = self.batch.answer(request) if self.batch is not None else None
        if answer is None:
            return None
        self._gate(request, spends)
        self.stats.batched += 1
        for spend in spends:
            spend.add(answer.usage)
        return _Reply(answer.text, answer.usage, 1, ()), True

    async def _ask(
        self, request: CompletionRequest, ask: int, deadline: _Deadline, spends: tuple[Spend, ...]
    ) -> tuple[_Reply, bool]:
        """The reply to the `ask`-th sending of `request`, joining an identical one in flight
        (of the same judge, when its judge has a budget: a refusal or a cost is that judge's)."""
        slot = (request.key(), ask, id(spends[-1]))
        shared = self._inflight.get(slot)
        own = shared is None or shared.task.cancelled()
        if shared is None or shared.task.cancelled():
            shared = _Shared(asyncio.ensure_future(self._call(request, deadline, spends)))
            self._inflight[slot] = shared
            shared.task.add_done_callback(lambda task: self._settle(slot, task))
        else:
            self.stats.shared += 1
        shared.waiters += 1
        try:
            return await asyncio.shield(shared.task), own
        except asyncio.CancelledError:
            if shared.waiters == 1 and not shared.task.done():
                shared.task.cancel()  # the last one waiting went away
            raise
        finally:
            shared.waiters -= 1

    def _settle(self, slot: tuple[str, int, int], task: asyncio.Task[_Reply]) -> None:
        if self._inflight.get(slot) is not None and self._inflight[slot].task is task:
            del self._inflight[slot]
        if not task.cancelled():
            task.exception()  # retrieved here so a failure nobody awaits is not logged

    async def _call(
        self, request: CompletionRequest, deadline: _Deadline, spends: tuple[Spend, ...]
    ) -> _Reply:
        """One reply from the model, retrying transient failures within the policy and the
        deadline."""
        way = _route(request)
        provider = self._provider(way.provider)
        prepared = await provider.prepare(request, way)
        if self.batch is not None and self.batch.collect is not None:
            self.batch.defer(request, way, prepared)
        secrets = (request.api_key or "", way.key or "")
        began = time.monotonic()
        attempts = timeouts = 0
        while True:
            attempts += 1
            try:
                answer = await self._send(provider, prepared, request, deadline, spends)
            except BudgetReached:
                raise
            except Exception as exc:  # classified below; CancelledError is not caught
                failure = classify(exc)
                timeouts += failure == "timeout"
                wait, note = self._wait(failure, exc, attempts, timeouts, began, deadline)
                if wait is None:
                    raise judge_error(
                        failure,
                        exc,
                        model=request.model,
                        attempts=attempts,
                        elapsed=time.monotonic() - began,
                        timeout=request.timeout,
                        secrets=secrets,
                        note=note,
                    ) from None
                await asyncio.sleep(wait)
                continue
            usage = price(answer.usage, request.model, self.prices)
            for spend in spends:  # before any other task runs: the next gate sees it
                spend.add(usage)
            return _Reply(answer.text, usage, attempts, prepared.dropped)

    async def _send(
        self,
        provider: Provider,
        prepared: Prepared,
        request: CompletionRequest,
        deadline: _Deadline,
        spends: tuple[Spend, ...],
    ) -> Answer:
        limiter = self._limiter(request.model)
        async with limiter.slot() as permit:
            self._gate(request, spends)
            self.stats.calls += 1
            self.stats.in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
            try:
                # The provider's timeout bounds each socket operation, which a drip of one
                # byte a second never trips; the deadline bounds the request as a whole.
                async with asyncio.timeout_at(deadline.start()):
                    answer = await provider.send(prepared, max(deadline.left(), 0.001))
            except Exception as exc:
                if overloaded(exc):  # before the permit goes back: fewer calls at once
                    limiter.backoff(permit)
                raise
            finally:
                self.stats.in_flight -= 1
            limiter.success(permit)
            return answer

    def _gate(self, request: CompletionRequest, spends: tuple[Spend, ...]) -> None:
        """Refuse a new call once the run's or the judge's budget is spent (checked holding
        the permit, so a call that waited for one sees every reply that came in meanwhile)."""
        for spend in spends:
            if spend.reached():
                self.stats.refused += 1
                raise BudgetReached(
                    f"{request.model}: {spend.owner}{budget_reason(spend.limit or 0.0)} "
                    f"(spent ${spend.spent:.4f}); no call was made",
                    model=request.model,
                )

    def _limiter(self, model: str) -> AdaptiveLimiter:
        if model not in self._limiters:
            limiter = AdaptiveLimiter(self.max_concurrent or None)
            self._limiters[model] = limiter
            self.stats.limits[model] = limiter.stats
        return self._limiters[model]

    def _wait(
        self,
        failure: Failure,
        exc: BaseException,
        attempts: int,
        timeouts: int,
        began: float,
        deadline: _Deadline,
    ) -> tuple[float | None, str]:
        """Seconds to wait before the next attempt, or `None` (and why) to give up."""
        policy = self.retry
        if failure not in TRANSIENT:
            return None, ""
        if attempts >= policy.max_attempts:
            return None, ""
        if failure == "timeout" and timeouts >= policy.max_timeouts:
            return None, ""
        wait = policy.backoff(attempts)
        asked = asked_wait(exc)
        if asked is not None:  # honour it, spread a little so waiters do not return together
            wait = asked + random.uniform(0, min(1.0, asked * 0.1))
        if time.monotonic() - began + wait > policy.budget:
            why = f"the provider asked to wait {asked:g}s, " if asked is not None else ""
            return None, f"; {why}beyond the {policy.budget:g}s retry budget"
        if wait < deadline.left():
            return wait, ""
        late = f"; a retry would pass the {deadline.seconds:g}s timeout"
        return None, "" if failure == "timeout" else late  # a timeout's message says it


def _route(request: CompletionRequest) -> Route:
    """Where `request` goes; refuses before any call what cannot be sent."""
    missing = needs_litellm(request.model, request.api_base)
    if missing is not None:
        raise missing
    way = route(request.model, request.api_base, request.api_key)
    if way.missing_key is not None:
        raise JudgeAuthError(
            f"{request.model}: no API key; set {way.missing_key} in the environment "
            "(no call was made)",
            model=request.model,
            attempts=0,
        )
    return way


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _with_totals(exc: JudgeError, attempts: int, usage: Usage) -> JudgeError:
    """A copy of `exc` counting this request's earlier calls (the original may be shared)."""
    mine = copy.copy(exc)
    mine.attempts = exc.attempts + attempts
    total = usage if exc.usage is None else usage + exc.usage
    mine.usage = total if total != Usage() else None
    return mine


def _bad_reply(
    request: CompletionRequest, text: str, problem: str, attempts: int, usage: Usage, asks: int
) -> JudgeBadReply:
    start = redact(text[:200], (request.api_key or "",))
    return JudgeBadReply(
        f"{request.model}: none of {asks} replies could be used ({redact(problem)}); "
        f"last reply: {start!r}. Check the judge's prompt asks for the expected JSON.",
        model=request.model,
        attempts=attempts,
        usage=usage,
        reply=start,
    )
