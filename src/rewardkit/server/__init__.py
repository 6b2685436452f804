"""The HTTP reward service (`rewardkit serve`; needs the `server` extra).

Names load on first use: `import rewardkit.server` imports no FastAPI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rewardkit.server._limits import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_BATCH,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_JSON_DEPTH,
)

if TYPE_CHECKING:
    from rewardkit.server._app import create_app
    from rewardkit.server._models import (
        BatchIn,
        ErrorOut,
        ResultOut,
        SampleIn,
        ValidateIn,
        ValidateOut,
    )

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_BATCH",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_JSON_DEPTH",
    "BatchIn",
    "ErrorOut",
    "ResultOut",
    "SampleIn",
    "ValidateIn",
    "ValidateOut",
    "create_app",
]

_LAZY = {
    "create_app": "rewardkit.server._app",
    **dict.fromkeys(
        ("BatchIn", "ErrorOut", "ResultOut", "SampleIn", "ValidateIn", "ValidateOut"),
        "rewardkit.server._models",
    ),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rewardkit.server' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
