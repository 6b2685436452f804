"""reward-kit's `reward_kit.reward_function`: `RewardFunction` and `@reward_function`.

`RewardFunction` calls a reward function the way reward-kit 0.4.1 does: a local function
(given, or imported from `"pkg.mod:func"`), or a remote endpoint that takes
`{"messages", "ground_truth", **kwargs}` as JSON and answers with an `EvaluateResult`.
Unlike 0.4.1, importing it configures no logging, and remote calls time out (60 s).

Example:
    >>> from reward_kit.reward_function import RewardFunction
    >>> from rewardkit.types import EvaluateResult
    >>> def brevity(messages, ground_truth=None, **kwargs):
    ...     return EvaluateResult(score=float(len(messages[-1]["content"]) < 20))
    >>> RewardFunction(func=brevity)([{"role": "assistant", "content": "Yes."}]).score
    1.0
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

from reward_kit.typed_interface import reward_function
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["RewardFunction", "reward_function"]

_API_BASE = "https://api.fireworks.ai"
_MODES = ("local", "remote", "fireworks_hosted")
_REMOTE_TIMEOUT = 60.0


class _LazyRequests:
    """`requests`, imported on the first remote call (and replaceable in tests)."""

    def __getattr__(self, name: str) -> Any:
        try:
            module = importlib.import_module("requests")
        except ImportError as exc:
            raise ImportError(
                "RewardFunction(mode='remote'|'fireworks_hosted') needs `requests`: "
                "pip install requests"
            ) from exc
        return getattr(module, name)


requests: Any = _LazyRequests()


class RewardFunction:
    """A reward function called locally or on a remote endpoint, with stored arguments.

    Args:
        func: the function to call in `local` mode.
        func_path: instead of `func`: `"pkg.mod:func"` or `"pkg.mod.func"`.
        mode: `"local"`, `"remote"` (POST to `endpoint`, or to Fireworks' URL for
            `name`) or `"fireworks_hosted"` (the reward endpoint of `model_id`).
        endpoint: the URL of a remote reward function.
        name: a Fireworks-hosted reward function's name (remote mode, no endpoint).
        model_id: the Fireworks model whose reward endpoint to call.
        **kwargs: arguments passed on every call; call-time arguments win.

    Raises:
        ValueError: for an unknown mode, or when the mode's target is missing.
        ImportError: when `func_path` cannot be imported.
    """

    def __init__(
        self,
        func: Callable[..., Any] | None = None,
        func_path: str | None = None,
        mode: str = "local",
        endpoint: str | None = None,
        name: str | None = None,
        model_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        if mode not in _MODES:
            raise ValueError(f"Invalid mode: {mode} (choose one of: {', '.join(_MODES)})")
        self.mode = mode
        self.func_path = func_path
        self.name = name
        self.model_id = model_id
        self.func_kwargs = kwargs
        self.endpoint = endpoint
        self.func: Callable[..., Any] | None = None
        if mode == "local":
            if func is None and func_path is None:
                raise ValueError("RewardFunction(mode='local') needs `func` or `func_path`.")
            self.func = func if func is not None else _load(func_path or "")
        elif mode == "remote" and endpoint is None:
            if name is None:
                raise ValueError("RewardFunction(mode='remote') needs `endpoint` or `name`.")
            self.endpoint = f"{_API_BASE}/v1/reward/{name}"
        elif mode == "fireworks_hosted":
            if model_id is None:
                raise ValueError("RewardFunction(mode='fireworks_hosted') needs `model_id`.")
            self.endpoint = f"{_API_BASE}/v1/models/{model_id}/reward"

    def __call__(
        self, messages: list[Any], ground_truth: Any = None, **kwargs: Any
    ) -> EvaluateResult:
        """Score `messages`; a missing `ground_truth` becomes `messages[:-1]` (as in 0.4.1)."""
        if ground_truth is None:
            ground_truth = messages[:-1] if messages else []
        merged = {**self.func_kwargs, **kwargs}
        if self.func is not None:
            return _local_result(self.func(messages, ground_truth=ground_truth, **merged))
        return self._call_remote(messages, ground_truth, merged)

    def _call_remote(
        self, messages: list[Any], ground_truth: Any, kwargs: dict[str, Any]
    ) -> EvaluateResult:
        payload = {"messages": _dumped(messages), "ground_truth": _dumped(ground_truth), **kwargs}
        headers = {"Content-Type": "application/json"}
        api_key = os.environ.get("FIREWORKS_API_KEY")
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        response = requests.post(
            self.endpoint, json=payload, headers=headers, timeout=_REMOTE_TIMEOUT
        )
        if response.status_code != 200:
            raise RuntimeError(
                f"reward endpoint {self.endpoint} answered HTTP {response.status_code}: "
                f"{str(response.text)[:200]}"
            )
        data = response.json()
        if not isinstance(data, dict) or "score" not in data:
            raise RuntimeError(
                f"reward endpoint {self.endpoint} answered without a 'score': {data!r:.200}"
            )
        metrics = data.get("metrics") or {}
        return EvaluateResult.model_validate(
            {**data, "metrics": {k: {"reason": "", **m} for k, m in metrics.items()}}
        )

    def get_trl_adapter(self) -> Callable[..., list[float]]:
        """A TRL reward function: `adapter(prompts, completions=None, **kwargs) -> scores`.

        Each completion (a string, or `[{"role": "assistant", "content": ...}]`) is appended
        to its prompt's messages; `kwargs["solution"][i]`, if given, is the ground truth. A
        sample that raises scores 0.0.
        """

        def adapter(
            prompts: Sequence[Any], completions: Sequence[Any] | None = None, **kwargs: Any
        ) -> list[float]:
            solutions = kwargs.pop("solution", None)
            count = len(prompts) if completions is None else min(len(prompts), len(completions))
            if completions is not None and len(prompts) != len(completions):
                warnings.warn(
                    f"TRL adapter: {len(prompts)} prompts but {len(completions)} completions; "
                    f"scoring the first {count}",
                    stacklevel=2,
                )
            scores = []
            for i in range(count):
                messages = _conversation(
                    prompts[i], None if completions is None else completions[i]
                )
                truth = None if solutions is None else str(solutions[i])
                try:
                    scores.append(self(messages, ground_truth=truth, **kwargs).score)
                except Exception:  # one bad sample must not stop the batch (0.4.1 does the same)
                    scores.append(0.0)
            return scores

        return adapter


def _load(path: str) -> Callable[..., Any]:
    module_name, sep, attr = path.partition(":")
    if not sep:
        module_name, _, attr = path.rpartition(".")
    if not module_name or not attr:
        raise ImportError(f"func_path {path!r} must look like 'pkg.module:function'")
    try:
        return getattr(importlib.import_module(module_name), attr)  # type: ignore[no-any-return]
    except (ImportError, AttributeError) as exc:
        raise ImportError(f"cannot import func_path {path!r}: {exc}") from exc


def _local_result(result: Any) -> EvaluateResult:
    """0.4.1's accepted returns: `EvaluateResult`, and (deprecated) a tuple or a dict."""
    if isinstance(result, EvaluateResult):
        return result
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict):
        warnings.warn(
            "Tuple return format is deprecated. Use EvaluateResult instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        score, parts = result
        metrics = {k: MetricResult(score=v, reason=f"{k} score") for k, v in parts.items()}
        return EvaluateResult(score=score, metrics=metrics)
    if isinstance(result, dict) and "score" in result:
        warnings.warn(
            "Dictionary return format is deprecated. Use EvaluateResult instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        return EvaluateResult.model_validate(result)
    if isinstance(result, Real):
        return EvaluateResult(score=float(result))
    raise TypeError(
        f"the reward function returned {type(result).__name__}; return an EvaluateResult"
    )


def _dumped(value: Any) -> Any:
    """Messages as JSON-ready dicts."""
    if isinstance(value, Message):
        return value.model_dump(exclude_none=True)
    if isinstance(value, list):
        return [_dumped(v) for v in value]
    return value


def _conversation(prompt: Any, completion: Any) -> list[Any]:
    messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else list(prompt)
    if completion is None:
        return messages
    if isinstance(completion, list):
        completion = completion[0].get("content", "") if completion else ""
    return [*messages, {"role": "assistant", "content": str(completion)}]
