"""`Limits`: what one request may cost the service. No third-party imports (`serve --help`)."""

from __future__ import annotations

from dataclasses import dataclass

from rewardkit.core._errors import ConfigError

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_JSON_DEPTH",
    "Limits",
]

DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_BATCH = 1024
DEFAULT_DEADLINE = 60.0
DEFAULT_BODY_TIMEOUT = 10.0
DEFAULT_MAX_JSON_DEPTH = 100


@dataclass(frozen=True, kw_only=True)
class Limits:
    """The service's limits, checked on creation (`ConfigError` names the one that is wrong)."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    """A larger body gets 413, by its Content-Length or as it streams in."""
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    """Seconds to receive a whole body, else 408."""
    max_json_depth: int = DEFAULT_MAX_JSON_DEPTH
    """Arrays and objects nested deeper get 400."""
    max_batch: int = DEFAULT_MAX_BATCH
    """A `/score/batch` with more samples gets 413."""
    deadline: float | None = DEFAULT_DEADLINE
    """Seconds a request may take, else 504 (its scoring processes are ended); `None`: none."""
    sample_deadline: float | None = None
    """Seconds a sample may take in its scoring process, else an invalid result; `None`: none."""

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_json_depth", "max_batch"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1 (got {getattr(self, name)})")
        for name in ("body_timeout", "deadline", "sample_deadline"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ConfigError(f"{name} must be a positive number of seconds (got {value})")
