"""The HTTP reward service (`rewardkit serve`; needs the `server` extra)."""

from rewardkit.server._app import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_BODY_BYTES,
    BatchIn,
    ErrorOut,
    ResultOut,
    SampleIn,
    ValidateIn,
    ValidateOut,
    create_app,
)

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY_BYTES",
    "BatchIn",
    "ErrorOut",
    "ResultOut",
    "SampleIn",
    "ValidateIn",
    "ValidateOut",
    "create_app",
]
