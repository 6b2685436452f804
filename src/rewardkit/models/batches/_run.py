"""A run whose model calls go through the providers' batch APIs, resumable from its directory.

`run_batched(directory, collect, final)`:

1. **collect** — runs the whole scoring once with `REWARDKIT_BATCH_COLLECT` set: no model
   call is made, each request is written under `requests/` (its outputs are thrown away);
2. **submit** — the distinct requests, grouped by provider, API root and model and cut to
   each provider's limits, are written under `batches/` and submitted, each batch's id saved
   in `state.json` as soon as the provider gives it;
3. **wait** — polls every batch until it ends, and stores each answer under `answers/`
   (priced at the batch discount);
4. **final** — runs the scoring again with `REWARDKIT_BATCH_ANSWERS` set: each request the
   batches answered is answered from them, as the live call would have been; any other (a
   request that failed in its batch, a re-ask after an unusable reply, a model LiteLLM
   serves, a request that depends on an earlier answer) is sent live.

Stopped at any point (Ctrl-C, a crash, a provider that is down), the same call with the same
directory picks up where it was: nothing is collected or submitted twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from rewardkit.models._cache import ReplyCache
from rewardkit.models._prices import load_prices, price
from rewardkit.models._route import route
from rewardkit.models.batches import _apis
from rewardkit.models.batches._apis import BatchError
from rewardkit.models.batches._hook import ANSWERS_ENV, COLLECT_ENV

__all__ = ["DISCOUNT", "run_batched"]

T = TypeVar("T")
DISCOUNT = 0.5
"""What a batched call costs, as a share of the live price (both providers: half)."""
FORMAT = "rewardkit-batches/1"


def run_batched(
    directory: Path,
    collect: Callable[[], object],
    final: Callable[[], T],
    *,
    poll: float = 30.0,
    say: Callable[[str], None] | None = None,
) -> T:
    """Score through the providers' batch APIs (see the module docstring); `final()`'s value.

    Raises:
        BatchError: a provider refused a batch or could not be reached (rerun to resume).
    """
    say = say or _stderr
    directory.mkdir(parents=True, exist_ok=True)
    state = _load(directory)
    if not state["collected"]:
        requests = directory / "requests"
        for stale in requests.glob("*.jsonl"):
            stale.unlink()
        with _env(COLLECT_ENV, requests):
            collect()
        state["batches"] = _plan(directory, requests)
        state["collected"] = True
        _save(directory, state)
        total = sum(b["count"] for b in state["batches"])
        say(f"rewardkit: {total} model calls to batch, in {len(state['batches'])} batch(es)")
    with _client() as client:
        for batch in state["batches"]:
            if batch["id"] is None:
                batch["id"] = _apis.submit(client, *_where(batch), _lines(directory, batch))
                _save(directory, state)
                what = f"{batch['model']}, {batch['count']} calls"
                say(f"rewardkit: submitted batch {batch['id']} ({what})")
        _wait(client, directory, state, poll, say)
    with _env(ANSWERS_ENV, directory / "answers"):
        return final()


def _wait(
    client: Any, directory: Path, state: dict[str, Any], poll: float, say: Callable[[str], None]
) -> None:
    answers = ReplyCache(directory / "answers")
    prices = load_prices()
    while waiting := [b for b in state["batches"] if not b["done"]]:
        for batch in waiting:
            status = _apis.poll(client, *_where(batch), batch["id"])
            if status.state != batch["status"]:
                batch["status"] = status.state
                _save(directory, state)
            if not status.ended:
                continue
            got = failed = 0
            first = ""
            if status.results is not None:
                keys = frozenset(line["key"] for line in _lines(directory, batch))
                for outcome in _apis.results(client, *_where(batch), status.results, keys):
                    if outcome.text is None:
                        failed += 1
                        first = first or outcome.error or ""
                        continue
                    usage = price(outcome.usage, batch["model"], prices)
                    if usage.cost_usd is not None:
                        usage = replace(usage, cost_usd=usage.cost_usd * DISCOUNT)
                    answers.put(outcome.key, model=batch["model"], text=outcome.text, usage=usage)
                    got += 1
            batch["done"] = True
            _save(directory, state)
            missing = batch["count"] - got
            note = (
                f"; {missing} without an answer ({first or 'none given'}) are sent live"
                if missing
                else ""
            )
            say(f"rewardkit: batch {batch['id']} {status.state}: {got} answered{note}")
        if any(not b["done"] for b in state["batches"]):
            time.sleep(poll)


def _plan(directory: Path, requests: Path) -> list[dict[str, Any]]:
    """The batches for the collected requests (each distinct request once), written down."""
    groups: dict[tuple[str, str, str, str | None], dict[str, dict[str, Any]]] = {}
    for file in sorted(requests.glob("*.jsonl")):
        with open(file, encoding="utf-8") as lines:
            for line in lines:
                record = json.loads(line)
                base = _apis.base_of(record["protocol"], record["url"])
                group = (record["protocol"], base, record["model"], record["api_base"])
                groups.setdefault(group, {}).setdefault(record["key"], record["body"])
    folder = directory / "batches"
    folder.mkdir(exist_ok=True)
    batches: list[dict[str, Any]] = []
    for (protocol, base, model, api_base), bodies in groups.items():
        most, most_bytes = _apis.LIMITS[protocol]
        chunk: list[str] = []
        size = 0
        for key, body in bodies.items():
            line = json.dumps({"key": key, "body": body}, ensure_ascii=False) + "\n"
            if chunk and (len(chunk) >= most or size + len(line) > most_bytes):
                batches.append(_write(folder, len(batches), chunk, protocol, base, model, api_base))
                chunk, size = [], 0
            chunk.append(line)
            size += len(line)
        if chunk:
            batches.append(_write(folder, len(batches), chunk, protocol, base, model, api_base))
    return batches


def _write(
    folder: Path,
    number: int,
    chunk: list[str],
    protocol: str,
    base: str,
    model: str,
    api_base: str | None,
) -> dict[str, Any]:
    name = f"{number:04d}.jsonl"
    (folder / name).write_text("".join(chunk), encoding="utf-8")
    return {
        "file": name,
        "protocol": protocol,
        "base": base,
        "model": model,
        "api_base": api_base,
        "count": len(chunk),
        "id": None,
        "status": "not submitted",
        "done": False,
    }


def _where(batch: dict[str, Any]) -> tuple[str, str, str | None]:
    """The protocol, API root and key a batch is sent with (the key read from the
    environment now, never stored)."""
    way = route(batch["model"], batch["api_base"])
    if way.missing_key is not None:
        raise BatchError(f"{batch['model']}: no API key; set {way.missing_key} in the environment")
    return batch["protocol"], batch["base"], way.key


def _lines(directory: Path, batch: dict[str, Any]) -> list[dict[str, Any]]:
    with open(directory / "batches" / batch["file"], encoding="utf-8") as file:
        return [json.loads(line) for line in file]


def _load(directory: Path) -> dict[str, Any]:
    path = directory / "state.json"
    if not path.exists():
        return {"format": FORMAT, "collected": False, "batches": []}
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise BatchError(
            f"{path} is not JSON ({exc}); delete the directory to start over"
        ) from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise BatchError(f"{path} is not a rewardkit batch state; pass an empty directory")
    return state


def _save(directory: Path, state: dict[str, Any]) -> None:
    fd, temp = tempfile.mkstemp(prefix=".state.", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(state, file, indent=2)
    os.replace(temp, directory / "state.json")


@contextlib.contextmanager
def _env(name: str, value: Path) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = str(value)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


@contextlib.contextmanager
def _client() -> Iterator[Any]:
    import httpx

    with httpx.Client(timeout=_apis.TIMEOUT, follow_redirects=False) as client:
        yield client


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)
