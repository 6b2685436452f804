"""Loading LiteLLM off the critical path, and leaving fast once it was loaded.

Only models without a native provider (see `_route`) load it. `import litellm` takes 3 to
9 s of CPU here and its interpreter shutdown another 1.5 s, both
far longer than a whole programmatic run. So:

- `start_loading()` begins the import in a daemon thread; call it the moment a judge is
  discovered, and the import overlaps discovery, prompt building and programmatic criteria.
  The thread then makes one offline (`mock_response`) completion, so LiteLLM's lazy set-up
  is not paid by the first real request either, and freezes the garbage collector's view of
  what was loaded (`gc.freeze()`), so later collections do not walk LiteLLM's objects.
  `load()` (what `ModelClient.complete` awaits) waits only for whatever is left of it.
- Before importing, `LITELLM_LOCAL_MODEL_COST_MAP=True` is set (unless the user set it) so
  LiteLLM never fetches its price map over the network, and its loggers are silenced
  (unless `LITELLM_LOG` is set): failures reach the user as our `JudgeError` messages.
- The shutdown cost is the interpreter's final garbage collections over LiteLLM's millions of
  objects, not its `atexit` hooks. `prepare_exit()` (`gc.freeze()`) once the outputs are
  written takes it from ≈1.5 s to ≈0.1 s while keeping every `atexit` hook; `exit_now()`
  flushes and ends the process with `os._exit` when even that is too much.

The import is process-wide by nature, so this module keeps one loader per process; it holds
no state about runs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, NoReturn

from rewardkit.core._errors import ConfigError, JudgeError
from rewardkit.models._route import INSTALL_HINT, litellm_available, route

__all__ = [
    "Loader",
    "close_clients",
    "exit_now",
    "litellm_loader",
    "load",
    "preload",
    "prepare_exit",
    "start_loading",
    "users",
]

_ENV_DEFAULTS = {"LITELLM_LOCAL_MODEL_COST_MAP": "True"}
_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm")


class Loader:
    """Imports one module in a background daemon thread, at most once.

    Attributes:
        started_at: `time.perf_counter()` when the import began, or `None`.
        finished_at: `time.perf_counter()` when it ended (either way), or `None`.
    """

    def __init__(
        self, name: str = "litellm", prepare: Callable[[ModuleType], None] | None = None
    ) -> None:
        self.name = name
        self.prepare = prepare
        """Run in the thread right after the import (LiteLLM: silence, warm up, freeze)."""
        self.started_at: float | None = None
        self.finished_at: float | None = None
        self._lock = threading.Lock()
        self._future: concurrent.futures.Future[ModuleType] | None = None

    def start(self) -> concurrent.futures.Future[ModuleType]:
        """Begin the import unless it has begun; return its future."""
        with self._lock:
            if self._future is None:
                future: concurrent.futures.Future[ModuleType] = concurrent.futures.Future()
                # RUNNING: cancelling a waiter (asyncio.wrap_future) must not cancel the import.
                future.set_running_or_notify_cancel()
                self._future = future
                for key, value in _ENV_DEFAULTS.items():
                    os.environ.setdefault(key, value)
                self.started_at = time.perf_counter()
                threading.Thread(
                    target=self._run, name=f"rewardkit-import-{self.name}", daemon=True
                ).start()
            return self._future

    def _run(self) -> None:
        assert self._future is not None
        try:
            module = importlib.import_module(self.name)
            if self.prepare is not None:
                self.prepare(module)
        except BaseException as exc:  # handed to whoever waits, re-raised there
            self.finished_at = time.perf_counter()
            self._future.set_exception(exc)
        else:
            self.finished_at = time.perf_counter()
            self._future.set_result(module)

    def loaded(self) -> bool:
        """Whether the import finished successfully."""
        future = self._future
        return future is not None and future.done() and future.exception() is None

    async def load(self) -> ModuleType:
        """The module, starting the import if needed and waiting without blocking the loop.

        Raises:
            ConfigError: the module is not installed (the message names the extra).
            JudgeError: it is installed but failed to import.
        """
        try:
            return await asyncio.wrap_future(self.start())
        except ImportError as exc:
            raise _import_error(self.name, exc) from None
        except Exception as exc:
            raise JudgeError(f"{self.name} failed to import: {exc}") from exc


def _import_error(name: str, exc: ImportError) -> ConfigError:
    if isinstance(exc, ModuleNotFoundError) and exc.name == name:
        why = f"{name} is not installed"
    else:
        why = f"{name} could not be imported ({exc})"
    return ConfigError(f"LLM judges need LiteLLM, but {why}. Install it with: {INSTALL_HINT}")


def _quiet(litellm: Any) -> None:
    """Silence LiteLLM's own printing and logging; our errors carry what matters."""
    litellm.suppress_debug_info = True
    if os.environ.get("LITELLM_LOG"):
        return
    for name in _LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _warm_up(litellm: Any) -> None:
    """Run one offline (`mock_response`) completion so the first real call is not the one
    that builds LiteLLM's lazy models and imports (≈0.15 s here). Never fails the load."""
    if getattr(litellm, "completion", None) is None:
        return
    with contextlib.suppress(Exception):  # a warm-up only; real calls report real problems
        litellm.completion(
            model="openai/gpt-4o-mini",
            messages=[{"role": "user", "content": "warm-up"}],
            mock_response="ok",
            api_key="not-used",
        )


def _prepare(litellm: Any) -> None:
    _quiet(litellm)
    _warm_up(litellm)
    gc.freeze()  # see `prepare_exit`: later collections skip LiteLLM's objects


_LITELLM = Loader("litellm", _prepare)


def start_loading() -> None:
    """Begin importing LiteLLM in the background; returns at once and is idempotent."""
    _LITELLM.start()


async def load() -> ModuleType:
    """LiteLLM, once its background import is done (started now if it was not)."""
    return await _LITELLM.load()


def litellm_loader() -> Loader:
    """The process's LiteLLM loader (its timestamps feed the benchmark's overlap report)."""
    return _LITELLM


async def close_clients() -> None:
    """Close LiteLLM's cached HTTP sessions and forget them, if LiteLLM is loaded.

    Without this, sessions opened in a loop that has since closed are garbage collected
    with `ResourceWarning: unclosed transport`. The cache is emptied too, so a later call
    opens fresh sessions instead of finding closed ones.
    """
    if not _LITELLM.loaded():
        return
    litellm: Any = sys.modules.get("litellm")
    closer = getattr(litellm, "close_litellm_async_clients", None)
    if closer is not None:
        await closer()
    cache = getattr(litellm, "in_memory_llm_clients_cache", None)
    if cache is not None and hasattr(cache, "flush_cache"):
        cache.flush_cache()


class _Users:
    """How many `ModelClient`s have called LiteLLM and not closed yet.

    LiteLLM's session cache is process-wide, so closing it while another client is mid-call
    would break that call: the last client to close closes it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def hold(self) -> None:
        with self._lock:
            self._count += 1

    async def release(self) -> None:
        with self._lock:
            self._count -= 1
            last = self._count == 0
        if last:
            await close_clients()


users = _Users()


def prepare_exit() -> None:
    """Make interpreter shutdown cheap once the outputs are written.

    Moves every live object into the collector's permanent generation (`gc.freeze()`), so the
    final collections skip LiteLLM's millions of objects (≈1.5 s → ≈0.1 s here). `atexit`
    hooks still run; nothing is lost. Do not allocate heavily afterwards.
    """
    gc.freeze()


def exit_now(code: int = 0) -> NoReturn:
    """Flush standard streams and logging, then end the process at once with `code`.

    Skips `atexit` hooks and interpreter finalization (LiteLLM's hooks included); use it
    only after every output is written and closed.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to save
            stream.flush()
    logging.shutdown()
    os._exit(code)


def preload(models: Iterable[str]) -> None:
    """Begin importing LiteLLM in the background when one of `models` is sent through it
    (and it is installed); native models never load it."""
    api_base = os.environ.get("REWARDKIT_API_BASE") or None
    for model in models:
        try:
            through = route(model, api_base).provider
        except ConfigError:  # reported by the call itself, naming the judge
            continue
        if through == "litellm" and litellm_available():
            start_loading()
            return
