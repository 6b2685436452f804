"""The opt-in reply cache (for each provider): hits make no model call; entries hold no
secrets; bad ones are ignored."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server import KEY, PROVIDERS, ChatServer, ok

from rewardkit.core._errors import JudgeBadReply
from rewardkit.models import CompletionRequest, ModelClient, Usage
from rewardkit.models._cache import ReplyCache

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def score(text: str) -> Any:
    try:
        return json.loads(text)["score"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"unusable reply: {exc}") from None


def complete(drive: Drive, request: CompletionRequest, cache: Path, **parse: Any) -> Any:
    return drive(lambda c: c.complete(request, parse=parse.get("parse", score)), cache_dir=cache)


def test_a_second_run_makes_no_request(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    first, value = complete(drive, request_for(), tmp_path)
    assert server.count == 1
    assert not first.cached
    second, again = complete(drive, request_for(), tmp_path)
    assert server.count == 1  # nothing new reached the server
    assert (second.cached, second.attempts, again, second.text) == (True, 0, value, first.text)
    assert second.usage == Usage()  # a hit costs nothing


def test_every_input_is_part_of_the_key(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    complete(drive, request_for(), tmp_path)
    variants = [
        request_for("Is the other file there?"),
        request_for(model=request_for().model + "-other"),
        request_for(schema={"type": "object"}),
        request_for(params={"temperature": 0.5}),
        request_for(sample=1),
    ]
    for request in variants:
        complete(drive, request, tmp_path)
    assert server.count == 1 + len(variants)
    # ... but not the timeout or the credentials
    complete(drive, request_for(timeout=9.0), tmp_path)
    assert server.count == 1 + len(variants)


def test_entries_hold_no_key_and_no_prompt(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    request = request_for("SECRET-PROMPT-TEXT")
    complete(drive, request, tmp_path)
    (entry,) = tmp_path.rglob("*.json")
    assert entry.name == f"{request.key()}.json"
    assert entry.parent.name == request.key()[:2]
    text = entry.read_text()
    assert KEY not in text
    assert "SECRET-PROMPT-TEXT" not in text
    data = json.loads(text)
    assert data["model"] == request.model
    assert data["usage"]["input_tokens"] == 12
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [entry.name]  # no temp left


@pytest.mark.parametrize(
    "damage",
    ["{not json", json.dumps({"format": "other"}), json.dumps([1, 2]), "\udcff"],
)
def test_a_corrupt_entry_is_ignored_and_replaced(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path, damage: str
) -> None:
    request = request_for()
    path = ReplyCache(tmp_path).path(request.key())
    path.parent.mkdir(parents=True)
    path.write_bytes(damage.encode("utf-8", "surrogateescape"))
    result, value = complete(drive, request, tmp_path)
    assert not result.cached
    assert value == "yes"
    assert server.count == 1
    assert json.loads(path.read_text())["text"] == result.text


def test_an_entry_the_parser_rejects_is_asked_again(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    request = request_for()
    ReplyCache(tmp_path).put(request.key(), model="m", text="not json", usage=Usage())
    result, _ = complete(drive, request, tmp_path)
    assert not result.cached
    assert server.count == 1


def test_unusable_replies_are_not_cached(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    server.script(then=ok("no JSON"))
    with pytest.raises(JudgeBadReply):
        complete(drive, request_for(), tmp_path)
    assert list(tmp_path.rglob("*.json")) == []


def test_an_unwritable_cache_does_not_fail_the_call(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache directory should be")
    result, value = complete(drive, request_for(), blocker)
    assert value == "yes"
    assert not result.cached


def test_the_cache_is_shared_by_clients_of_one_run(
    drive: Drive, server: ChatServer, request_for: Make, tmp_path: Path
) -> None:
    async def main(client: ModelClient) -> Any:
        await client.complete(request_for(), parse=score)
        again = ModelClient(cache_dir=tmp_path)
        return await again.complete(request_for(), parse=score)

    result, _ = drive(main, cache_dir=tmp_path)
    assert result.cached
    assert server.count == 1
