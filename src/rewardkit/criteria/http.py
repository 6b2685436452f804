"""Built-in criteria that make an HTTP GET request (urllib; no workspace access)."""

from __future__ import annotations

from pathlib import Path

from rewardkit.criteria._registry import builtin

__all__ = ["http_response_contains", "http_status_equals"]


def _fetch(crit: str, url: str, timeout: float, *, read: bool) -> tuple[int | None, bytes | None]:
    """GET `url` and return `(status, body)`.

    `body` is None for an error status (4xx/5xx) and both are None when the request failed
    (refused, timed out, malformed...). The body is read only when `read` is set.

    Raises:
        ValueError: `url` is not http(s); `file://` or `ftp://` is a mistake in the criterion.
    """
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"{crit}: url must start with http:// or https://, got {url!r}")
    import urllib.request
    from urllib.error import HTTPError

    try:
        request = urllib.request.Request(url, method="GET")
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status), (response.read() if read else b"")
    except HTTPError as exc:
        exc.close()
        return exc.code, None
    except Exception:
        return None, None


@builtin("HTTP GET {url} returns status {status}")
def http_status_equals(workspace: Path, url: str, status: int = 200, timeout: float = 10) -> bool:
    """True if a GET of `url` answers with `status` (error statuses count too)."""
    code, _ = _fetch("http_status_equals", url, timeout, read=False)
    return code is not None and code == status


@builtin("HTTP GET {url} response contains '{text}'")
def http_response_contains(workspace: Path, url: str, text: str, timeout: float = 10) -> bool:
    """True if a successful GET of `url` returns a body (decoded as UTF-8) containing `text`."""
    _, body = _fetch("http_response_contains", url, timeout, read=True)
    return body is not None and text in body.decode("utf-8", errors="replace")
