"""The two providers' batch APIs: submit a file of requests, ask how it is going, read answers.

- OpenAI (and servers that copy it): upload the requests as a JSONL file (`POST /files`,
  purpose `batch`), start it (`POST /batches`, 24 h window), poll `GET /batches/{id}`, then
  read `GET /files/{output_file_id}/content`: one line per request, by `custom_id`.
- Anthropic: `POST /v1/messages/batches` with the requests inline, poll
  `GET /v1/messages/batches/{id}` until `ended`, then read its `results_url` (JSONL).

What comes back is untrusted: every answer is read a line at a time under the answer cap
(`REWARDKIT_MAX_ANSWER_MIB`), only the `custom_id`s submitted in that batch are taken, and a
`results_url` elsewhere than the provider's own host is refused (the key is never sent
there). Redirects are refused too.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rewardkit.core._errors import RewardKitError
from rewardkit.models import _anthropic, _openai
from rewardkit.models._http import answer_cap, error_message
from rewardkit.models._usage import Usage

if TYPE_CHECKING:
    import httpx

__all__ = [
    "LIMITS",
    "TIMEOUT",
    "BatchError",
    "Outcome",
    "Status",
    "base_of",
    "poll",
    "results",
    "submit",
]

LIMITS = {"openai": (50_000, 190 << 20), "anthropic": (100_000, 250 << 20)}
"""The most requests and bytes one batch takes (a little under each provider's limit)."""
TIMEOUT = 120.0
_ENDED = {"completed", "failed", "expired", "cancelled", "ended"}


class BatchError(RewardKitError):
    """A provider refused a batch, or could not be reached; the run's state is kept."""


@dataclass(frozen=True)
class Status:
    """Where a submitted batch stands."""

    ended: bool
    state: str
    """The provider's word for it (`in_progress`, `completed`, `ended`, ...)."""
    results: str | None
    """Where its answers are (a file id or a URL), once it ended with some; a request with
    no answer there is sent live."""


@dataclass(frozen=True)
class Outcome:
    """One request's fate in a batch: its answer, or why it has none."""

    key: str
    text: str | None
    usage: Usage
    error: str | None = None


def base_of(protocol: str, url: str) -> str:
    """The API root a chat URL sits under (`.../v1` for both providers)."""
    suffix = "/chat/completions" if protocol == "openai" else "/messages"
    return url.removesuffix(suffix)


def submit(
    client: httpx.Client, protocol: str, base: str, key: str | None, lines: Sequence[dict[str, Any]]
) -> str:
    """Start a batch of `lines` (each `{"key", "body"}`); its id.

    Raises:
        BatchError: the provider refused it or could not be reached.
    """
    headers = _headers(protocol, key)
    if protocol == "anthropic":
        requests = [{"custom_id": line["key"], "params": line["body"]} for line in lines]
        created = _json(client, "POST", f"{base}/messages/batches", headers, {"requests": requests})
        return _field(created, "id")
    text = "".join(
        json.dumps(
            {"custom_id": line["key"], "method": "POST", "url": "/v1/chat/completions"}
            | {"body": line["body"]},
            ensure_ascii=False,
        )
        + "\n"
        for line in lines
    )
    files = {"file": ("requests.jsonl", text.encode("utf-8"), "application/jsonl")}
    uploaded = _call(
        client, "POST", f"{base}/files", headers, data={"purpose": "batch"}, files=files
    )
    body = {"input_file_id": _field(uploaded.json(), "id"), "endpoint": "/v1/chat/completions"}
    body["completion_window"] = "24h"
    return _field(_json(client, "POST", f"{base}/batches", headers, body), "id")


def poll(client: httpx.Client, protocol: str, base: str, key: str | None, batch: str) -> Status:
    """Where batch `batch` stands."""
    headers = _headers(protocol, key)
    if protocol == "anthropic":
        data = _json(client, "GET", f"{base}/messages/batches/{batch}", headers)
        state = str(data.get("processing_status"))
        url = data.get("results_url")
        return Status(state == "ended", state, url if isinstance(url, str) else None)
    data = _json(client, "GET", f"{base}/batches/{batch}", headers)
    state = str(data.get("status"))
    output = data.get("output_file_id")
    return Status(state in _ENDED, state, output if isinstance(output, str) else None)


def results(
    client: httpx.Client,
    protocol: str,
    base: str,
    key: str | None,
    where: str,
    keys: frozenset[str],
) -> Iterator[Outcome]:
    """Each answer (or failure) the batch's results at `where` give for one of `keys`.

    Raises:
        BatchError: the results cannot be read, or `where` is not on the provider's host.
    """
    headers = _headers(protocol, key)
    if protocol == "anthropic":
        if _origin(where) != _origin(base):
            raise BatchError(f"the batch's results_url {where!r} is not on {_origin(base)}")
        url = where
    else:
        url = f"{base}/files/{where}/content"
    for data in _lines(client, url, headers, len(keys)):
        found = data.get("custom_id") if isinstance(data, dict) else None
        if isinstance(found, str) and found in keys:
            yield (
                _openai_line(found, data) if protocol == "openai" else _anthropic_line(found, data)
            )


def _openai_line(key: str, data: Mapping[str, Any]) -> Outcome:
    response = data.get("response")
    body = response.get("body") if isinstance(response, dict) else None
    status = response.get("status_code") if isinstance(response, dict) else None
    if status != 200 or not isinstance(body, dict):
        why = data.get("error") or (body.get("error") if isinstance(body, dict) else None)
        return Outcome(key, None, Usage(), f"HTTP {status}: {_short(why)}")
    return Outcome(key, _openai.reply_text(body), Usage.from_openai(body.get("usage")))


def _anthropic_line(key: str, data: Mapping[str, Any]) -> Outcome:
    result = data.get("result")
    kind = result.get("type") if isinstance(result, dict) else None
    message = result.get("message") if isinstance(result, dict) else None
    if kind != "succeeded" or not isinstance(message, dict):
        why = result.get("error") if isinstance(result, dict) else None
        return Outcome(key, None, Usage(), f"{kind}: {_short(why)}")
    return Outcome(key, _anthropic.reply_text(message), Usage.from_anthropic(message.get("usage")))


def _lines(client: httpx.Client, url: str, headers: Mapping[str, str], most: int) -> Iterator[Any]:
    """The JSON lines at `url`: each under the answer cap, at most `most` parsed, no more
    than `most` caps read in all."""
    cap = answer_cap()
    budget, parsed, held = cap * max(most, 1), 0, bytearray()
    try:
        with client.stream("GET", url, headers=headers) as response:
            _check(response, url)
            for piece in response.iter_bytes():
                budget -= len(piece)
                if budget < 0:
                    raise BatchError(f"the batch results at {url} are larger than {most} answers")
                held += piece
                while (end := held.find(b"\n")) >= 0:
                    line, held = bytes(held[:end]), held[end + 1 :]
                    if line.strip() and len(line) <= cap:
                        yield _parsed(line)
                        parsed += 1
                if len(held) > cap:
                    held.clear()  # an over-long line: skipped, up to its end
                if parsed >= most:
                    return
            if held.strip():
                yield _parsed(bytes(held))
    except _transport_errors() as exc:
        raise BatchError(f"could not read the batch results at {url}: {exc}") from None


def _parsed(line: bytes) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _json(
    client: httpx.Client,
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    answer = _call(client, method, url, headers, json=body)
    try:
        data = answer.json()
    except ValueError:
        raise BatchError(f"{method} {url}: the answer is not JSON") from None
    if not isinstance(data, dict):
        raise BatchError(f"{method} {url}: the answer is not a JSON object")
    return data


def _call(
    client: httpx.Client, method: str, url: str, headers: Mapping[str, str], **kwargs: Any
) -> httpx.Response:
    try:
        answer = client.request(method, url, headers=headers, **kwargs)
    except _transport_errors() as exc:
        raise BatchError(f"{method} {url}: {type(exc).__name__}: {exc}") from None
    _check(answer, url)
    if len(answer.content) > answer_cap():
        raise BatchError(f"{method} {url}: the answer is over the answer cap")
    return answer


def _check(answer: httpx.Response, url: str) -> None:
    if answer.is_redirect:
        raise BatchError(f"{url} answered with a redirect, which is not followed")
    if answer.status_code >= 400:
        answer.read()
        text = error_message(answer.content[:4096].decode("utf-8", errors="replace"))
        raise BatchError(f"{url}: HTTP {answer.status_code}: {text}")


def _field(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise BatchError(f"the provider's answer has no {name!r}")
    return value


def _headers(protocol: str, key: str | None) -> dict[str, str]:
    if protocol == "anthropic":
        headers = {"anthropic-version": _anthropic.VERSION}
        return headers | ({"x-api-key": key} if key else {})
    return {"Authorization": f"Bearer {key}"} if key else {}


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


def _short(why: Any) -> str:
    text = why.get("message", why) if isinstance(why, dict) else why
    return str(text)[:300] if text else "no answer"


def _transport_errors() -> tuple[type[Exception], ...]:
    import httpx

    return (httpx.TransportError, httpx.StreamError)
