"""The model client's side of a batch run: write requests down, or answer from the batch.

A batch run (`run_batched`) scores its input twice. In the first pass `REWARDKIT_BATCH_COLLECT`
names a directory: each request that would go on the wire is written there instead (its
provider payload, never its key) and fails with `Deferred`, so the pass costs no call. In the
last pass `REWARDKIT_BATCH_ANSWERS` names the directory of the batches' answers: a request
found there is answered from it, as one call that cost what the batch charged; any other is
sent live. Both are environment variables so that worker processes inherit them.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from rewardkit.core._errors import JudgeError
from rewardkit.models._cache import CachedReply, ReplyCache
from rewardkit.models._provider import Prepared
from rewardkit.models._request import CompletionRequest
from rewardkit.models._route import Route

__all__ = ["ANSWERS_ENV", "COLLECT_ENV", "BatchHook", "Deferred", "collecting", "protocol_of"]

COLLECT_ENV = "REWARDKIT_BATCH_COLLECT"
ANSWERS_ENV = "REWARDKIT_BATCH_ANSWERS"


class Deferred(JudgeError):
    """The call was written into a provider batch instead of being sent."""


def collecting() -> bool:
    """Whether this is a batch run's first pass, in which agent judges are not run (their
    CLIs call their models themselves, past the batch)."""
    return bool(os.environ.get(COLLECT_ENV))


def protocol_of(route: Route) -> str | None:
    """The batch API a route's provider offers (`None`: LiteLLM's models are sent live)."""
    if route.provider == "litellm":
        return None
    return "anthropic" if route.provider == "anthropic" else "openai"


@dataclass
class BatchHook:
    """Where this process's model client writes requests to, or reads answers from."""

    collect: Path | None = None
    answers: ReplyCache | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._file: Path | None = None

    @classmethod
    def from_env(cls) -> BatchHook | None:
        """The hook the environment asks for (`None` outside a batch run)."""
        collect, answers = os.environ.get(COLLECT_ENV), os.environ.get(ANSWERS_ENV)
        if not collect and not answers:
            return None
        return cls(
            collect=Path(collect) if collect else None,
            answers=ReplyCache(answers) if answers else None,
        )

    def answer(self, request: CompletionRequest) -> CachedReply | None:
        """The batch's answer to `request`, if it had one."""
        return self.answers.get(request.key()) if self.answers is not None else None

    def defer(self, request: CompletionRequest, route: Route, prepared: Prepared) -> NoReturn:
        """Write `request` down for its provider's batch API (when it has one) and fail it."""
        protocol = protocol_of(route)
        if self.collect is not None and protocol is not None:
            url, _headers, body = prepared.payload  # the headers carry the key: left out
            record = {"key": request.key(), "protocol": protocol, "url": url}
            record |= {"model": request.model, "api_base": request.api_base, "body": body}
            self._write(json.dumps(record, ensure_ascii=False) + "\n")
        how = "sent live in the last pass" if protocol is None else "deferred to a batch"
        raise Deferred(f"{request.model}: {how} (no call was made)", model=request.model)

    def _write(self, line: str) -> None:
        assert self.collect is not None
        with self._lock:
            if self._file is None:
                self.collect.mkdir(parents=True, exist_ok=True)
                self._file = self.collect / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.jsonl"
            with open(self._file, "a", encoding="utf-8") as file:
                file.write(line)
